/**
 * The chat crash tests' team and the model ledger kept outside the engine. The fake
 * model server runs in the test's process, so it outlives every kill; each answer it
 * gives carries a stamp (its input token count: the n-th request asked gets n), so the
 * session's log tells exactly which answer the engine recorded for each call.
 *
 * The team (every session's message is `<topic> <i> turn <k>`):
 * - topic `team`: boss delegates to alpha (reads a.txt) and beta (appends its task to
 *   the ledger MCP tool) at once, then merges their answers;
 * - topic `write`: boss appends the message to the ledger, then says whether it did;
 * - topic `read`: boss reads n.txt, then says what it holds;
 * - topic `vault`: boss delegates to alpha (reads a.txt) and scribe (creates a vault note
 *   holding its task, at `notePathOf(task)`) at once, then merges their answers.
 * A message's task is the last line of its last user message (what an adapter adds goes before).
 */
import type { FakeTurn } from '../fake-models.js';
import { agentOf, profile } from '../chat.js';

export interface Asked {
  /** 1 for the first request the fake was asked, 2 for the next… (the answer's input tokens). */
  stamp: number;
  agent: string;
  /** The agent and every message: the same call asked again has the same key. */
  key: string;
  /** The request's body (the fake server's record of it is found by this object). */
  body: any;
  /** The child process (life) that asked it, from 1. */
  life: number;
}

/** The team's profiles; boss may make `budget` model calls per turn. */
export function team(budget: number): Record<string, string> {
  return {
    boss: profile('boss', `tools = ["delegate_to_agent", "read_file", "ledger.append"]\nmax_iterations = ${budget}`),
    alpha: profile('alpha', 'tools = ["read_file"]'),
    beta: profile('beta', 'tools = ["ledger.append"]'),
    scribe: profile('scribe', 'tools = ["create_note"]'),
  };
}

/** Model calls one turn of a topic makes. */
export const CALLS_PER_TURN: Record<string, number> = { team: 6, write: 2, read: 2, vault: 6 };

/** What boss answers at the end of a `team` turn. */
export const teamAnswer = (message: string): string => `A is 1 and B is noted (${message})`;

/** The vault note scribe creates for its task. */
export const notePathOf = (task: string): string => `notes/${task.replace(/[^a-z0-9]+/gi, '-')}.md`;

/** What boss answers at the end of a `vault` turn. */
export const vaultAnswer = (message: string): string => `A is 1 and Filed in ${notePathOf(`file ${message}`)} (${message})`;

/** What boss answers at the end of a turn of any topic that ends with a known answer (`team`, `vault`). */
export const answerOf = (message: string): string => (message.startsWith('vault ') ? vaultAnswer(message) : teamAnswer(message));

const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] });

function answer(agent: string, body: any): FakeTurn {
  const messages: Array<{ role: string; content: string }> = body?.messages ?? [];
  const lastUser = messages.map((m) => m.role).lastIndexOf('user');
  const task = (messages[lastUser]?.content ?? '').split('\n').at(-1)!;
  const after = messages.slice(lastUser + 1);
  const step = after.filter((m) => m.role === 'assistant').length;
  const results = after.filter((m) => m.role === 'tool').map((m) => m.content.trim());
  const topic = task.split(' ')[0];
  if (agent === 'alpha') return step === 0 ? call('read_file', { path: 'a.txt' }) : { text: `A is ${results[0]}` };
  if (agent === 'beta') return step === 0 ? call('ledger__append', { line: task }) : { text: 'B is noted' };
  if (agent === 'scribe') {
    if (step === 0) return call('create_note', { path: notePathOf(task), content: task });
    return { text: results[0]!.startsWith('Created the note') ? `Filed in ${notePathOf(task)}` : `Not filed: ${results[0]}` };
  }
  if (agent !== 'boss') return { status: 500, error: `fake: no agent ${agent}` };
  if (topic === 'team') {
    if (step === 0) return { toolCalls: [{ name: 'delegate_to_agent', arguments: { agent: 'alpha', task: `find A for ${task}` } }, { name: 'delegate_to_agent', arguments: { agent: 'beta', task: `note B for ${task}` } }] };
    return { text: `${results.join(' and ')} (${task})` };
  }
  if (topic === 'vault') {
    if (step === 0) return { toolCalls: [{ name: 'delegate_to_agent', arguments: { agent: 'alpha', task: `find A for ${task}` } }, { name: 'delegate_to_agent', arguments: { agent: 'scribe', task: `file ${task}` } }] };
    return { text: `${results.join(' and ')} (${task})` };
  }
  if (topic === 'write') {
    if (step === 0) return call('ledger__append', { line: task });
    return { text: results[0]!.includes('KW_ERR_TOOL_OUTCOME_UNKNOWN') ? `Unsure whether "${task}" was written.` : `Wrote "${task}".` };
  }
  if (topic === 'read') return step === 0 ? call('read_file', { path: 'n.txt' }) : { text: `The file says ${results[0]}` };
  return { status: 500, error: `fake: no topic ${topic}` };
}

export class ModelLedger {
  /** The life now running; the test moves it on before it starts each child. */
  life = 0;
  readonly asked: Asked[] = [];
  /** Lives that ended by SIGKILL. */
  readonly killed = new Set<number>();

  /** `pace`: the delay between the streamed pieces of an answer (ms), given the call and how often its key was asked before. */
  constructor(private readonly pace: (asked: Asked, seen: number) => number = () => 0) {}

  readonly script = (body: any): FakeTurn => {
    const agent = agentOf(body);
    const key = `${agent} ${JSON.stringify(body?.messages)}`;
    const seen = this.asked.filter((a) => a.key === key).length;
    const asked: Asked = { stamp: this.asked.length + 1, agent, key, body, life: this.life };
    this.asked.push(asked);
    const chunkDelayMs = this.pace(asked, seen);
    return { ...answer(agent, body), usage: { input: asked.stamp, output: 1 }, ...(chunkDelayMs > 0 ? { chunkDelayMs } : {}) };
  };

  /** Requests asked under the same key more than once. */
  repeatedKeys(): string[] {
    const counts = new Map<string, number>();
    for (const a of this.asked) counts.set(a.key, (counts.get(a.key) ?? 0) + 1);
    return [...counts].filter(([, n]) => n > 1).map(([k]) => k);
  }
}
