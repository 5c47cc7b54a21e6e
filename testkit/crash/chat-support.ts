/**
 * Chat crash tests: a data dir for the team of chat-ledger.ts, a child process (chat-child.ts)
 * per life, and the invariants checked after the last life against the model ledger, the
 * MCP tool's ledger file and the database:
 * - every session has all its turns, each `done` with the expected answer;
 * - no answer the engine recorded was asked for again (by its stamp), every call asked
 *   was recorded in the end, and a call asked again follows a kill of the life that asked;
 * - the traces are the calls that ended (one row per `model.finished`/`model.failed`,
 *   none for an interrupted call), each delegated call's parent the call that delegated;
 * - each turn's budget counts each model call once (the interrupted one included);
 * - the ledger tool (not safe to repeat) took effect at most once per call, and exactly
 *   once when its result was recorded;
 * - each vault note an agent created (`create_note`) was written once: one audited write,
 *   done, and the note holds what the agent wrote; no note has a second write.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createEngine } from '../../engine/index.js';
import type { StoredChatEvent } from '../../engine/index.js';
import { writeTeam } from '../chat.js';
import type { FakeModelServer } from '../fake-models.js';
import { harness } from './support.js';
import type { HarnessOptions, HarnessRun } from './support.js';
import type { ModelLedger } from './chat-ledger.js';
import { testOwnCode } from '../dist.js';

export const CHAT_CHILD = new URL('./chat-child.ts', import.meta.url).pathname;
const LEDGER_SERVER = new URL('./ledger.mjs', import.meta.url).pathname;

export interface ChatHome {
  home: string;
  /** The file tools' root: a.txt holds 1, n.txt holds 42. */
  files: string;
  /** The file the ledger MCP tool appends to. */
  ledgerFile: string;
}

export function writeChatHome(dir: string, modelUrl: string, profiles: Record<string, string>): ChatHome {
  const home = path.join(dir, 'home');
  const files = path.join(dir, 'files');
  const ledgerFile = path.join(dir, 'ledger');
  fs.mkdirSync(files, { recursive: true });
  fs.writeFileSync(path.join(files, 'a.txt'), '1');
  fs.writeFileSync(path.join(files, 'n.txt'), '42');
  writeTeam(home, profiles);
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]
default = "ollama:qwen2.5:7b"
[providers.ollama]
host = "${modelUrl}"
[tools]
root = "${files}"
[[mcp.servers]]
name = "ledger"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(LEDGER_SERVER)}]
env = { LEDGER_FILE = ${JSON.stringify(ledgerFile)} }
`);
  return { home, files, ledgerFile };
}

export interface Chatting {
  agent: string;
  sessions: number;
  turns: number;
  /** The sessions checked are those whose title starts with `<topic> `. */
  topic: string;
  /** The message of a session's turn, whose answer is known (default `<title> turn <turn>`); `text` is what the log says was sent. */
  messageOf?(title: string, turn: number, text: string): string;
}

/** One life of the engine: a child process chatting, killed or not as `options` say. */
export async function chatLife(home: string, ledger: ModelLedger, what: Chatting, options: HarnessOptions = {}): Promise<HarnessRun> {
  ledger.life += 1;
  const run = await harness(home, [what.agent, String(what.sessions), String(what.turns), what.topic], { ...options, script: CHAT_CHILD });
  if (run.signal === 'SIGKILL') ledger.killed.add(ledger.life);
  return run;
}

/** Each session's turn and the model calls its budget counted so far, read from the database between lives. */
export function budgetsNow(home: string): Map<string, { turn: number; used: number }> {
  const file = path.join(home, 'kowalski.sqlite');
  const out = new Map<string, { turn: number; used: number }>();
  if (!fs.existsSync(file)) return out;
  const db = new Database(file, { readonly: true });
  try {
    for (const r of db.prepare('SELECT id, turns, budget_used FROM chat_sessions').all() as Array<{ id: string; turns: number; budget_used: number }>) {
      out.set(r.id, { turn: r.turns, used: r.budget_used });
    }
  } finally {
    db.close();
  }
  return out;
}

/** Problems when a session's budget went down across a restart. */
export function budgetDrops(before: Map<string, { turn: number; used: number }>, after: Map<string, { turn: number; used: number }>): string[] {
  const problems: string[] = [];
  for (const [id, b] of before) {
    const a = after.get(id);
    if (a === undefined) problems.push(`session ${id} is gone after a restart`);
    else if (a.turn === b.turn && a.used < b.used) problems.push(`session ${id} turn ${a.turn}: budget used went from ${b.used} down to ${a.used} across a restart`);
  }
  return problems;
}

export interface ChatCheck {
  problems: string[];
  sessions: number;
  turns: number;
  calls: number;
  /** Requests the fake answered for a call asked again (the engine died before it recorded the answer). */
  answersLostToKills: number;
  /** Calls asked again after a restart (their first request was interrupted). */
  askedAgain: number;
  /** Calls of the ledger tool whose outcome the model was told is unknown. */
  outcomeUnknown: number;
  /** Vault notes created by agents. */
  notes: number;
}

type Ev = StoredChatEvent['event'];
const ended = (e: Ev): e is Extract<Ev, { type: 'model.finished' | 'model.failed' }> => e.type === 'model.finished' || e.type === 'model.failed';

/**
 * The invariants (see the top of this file) over every session of each kind in `what`;
 * `answer(message)` is the expected answer of a turn. `servers`: the fakes the ledger's
 * script answers for.
 */
export async function checkChat(
  home: string, ledger: ModelLedger, servers: readonly FakeModelServer[], ledgerFile: string,
  what: readonly Chatting[], answer: (message: string) => string,
): Promise<ChatCheck> {
  const problems: string[] = [];
  const out: ChatCheck = { problems, sessions: 0, turns: 0, calls: 0, answersLostToKills: 0, askedAgain: 0, outcomeUnknown: 0, notes: 0 };
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  const committed = new Map<number, string>();
  const toolLines: Array<{ line: string; recorded: boolean; where: string }> = [];
  const notes: Array<{ path: string; content: string; recorded: boolean; where: string }> = [];
  try {
    const all = engine.chat.list(10_000);
    for (const w of what) {
      const sessions = all.filter((s) => s.agent === w.agent && s.title.startsWith(`${w.topic} `));
      out.sessions += sessions.length;
      if (sessions.length !== w.sessions) problems.push(`${sessions.length} sessions of ${w.topic}, not ${w.sessions}`);
      for (const s of sessions) {
        const log = engine.chat.events(s.id).map((e) => e.event);
        checkSession(s, log, w, answer, { out, committed, toolLines, notes });
        problems.push(...traceProblems(s.title, log, engine.listTraces({ sessionId: s.id, limit: 10_000 })));
      }
    }
    problems.push(...noteProblems(engine, notes));
    out.notes = notes.length;
  } finally {
    await engine.close();
  }
  problems.push(...modelProblems(ledger, servers, committed, out));
  const written = fs.existsSync(ledgerFile) ? fs.readFileSync(ledgerFile, 'utf8').split('\n').filter((l) => l !== '') : [];
  for (const t of toolLines) {
    const n = written.filter((l) => l === t.line).length;
    if (n > 1 || (t.recorded && n !== 1)) problems.push(`${t.where}: the ledger tool took effect ${n} times (its result ${t.recorded ? 'was' : 'was not'} recorded)`);
  }
  return out;
}

interface SessionBooks {
  out: ChatCheck;
  /** Stamp of each answer the engine recorded → where. */
  committed: Map<number, string>;
  toolLines: Array<{ line: string; recorded: boolean; where: string }>;
  notes: Array<{ path: string; content: string; recorded: boolean; where: string }>;
}

type SessionSummary = ReturnType<Awaited<ReturnType<typeof createEngine>>['chat']['list']>[number];

/** One session's turns: each done with its answer, its calls started and ended, within budget; its tools' effects noted for the checks after. */
function checkSession(s: SessionSummary, log: Ev[], w: Chatting, answer: (message: string) => string, { out, committed, toolLines, notes }: SessionBooks): void {
  const problems = out.problems;
  if (s.state !== 'idle' || s.turns !== w.turns) problems.push(`session ${s.id} (${s.title}) is ${s.state} at turn ${s.turns}, not idle after ${w.turns}`);
  for (let turn = 1; turn <= s.turns; turn++) {
    out.turns += 1;
    const events = log.filter((e) => 'turn' in e && e.turn === turn);
    const sent = events.find((e) => e.type === 'turn.started');
    const message = w.messageOf?.(s.title, turn, sent?.type === 'turn.started' ? sent.text : '') ?? `${s.title} turn ${turn}`;
    const where = `${s.title}, turn ${turn}`;
    // The last end of the turn (one stopped by its budget ends again once more is granted).
    const fin = events.findLast((e) => e.type === 'turn.finished');
    if (fin?.type !== 'turn.finished' || fin.stop !== 'done' || fin.text !== answer(message)) {
      problems.push(`${where} did not finish done with "${answer(message)}": ${JSON.stringify(fin)}`);
    }
    const started = events.filter((e) => e.type === 'model.started');
    const ends = events.filter(ended);
    out.calls += started.length;
    if (ends.length !== started.length) problems.push(`${where}: ${started.length} model calls started, ${ends.length} ended`);
    const limit = events.reduce((n, e) => n + (e.type === 'turn.started' ? e.budget : e.type === 'budget.granted' ? e.extra : 0), 0);
    if (started.length > limit) problems.push(`${where}: ${started.length} model calls on a budget of ${limit}`);
    if (fin?.type === 'turn.finished' && fin.usage.calls !== started.length) problems.push(`${where}: usage counts ${fin.usage.calls} calls, the log ${started.length}`);
    if (turn === s.turns && s.budget.used !== started.length) problems.push(`${where}: budget used ${s.budget.used}, the log started ${started.length} calls`);
    for (const e of ends) if (e.type === 'model.finished') committed.set(e.response.usage.inputTokens, `${where} ${e.node}:${e.seq}`);
    // The ledger tool and the vault's create_note: what each was asked, and whether its result was recorded.
    for (const e of events) {
      if (e.type !== 'tool.started' || (e.name !== 'ledger.append' && e.name !== 'create_note')) continue;
      const result = events.find((r) => r.type === 'tool.finished' && r.node === e.node && r.seq === e.seq && r.index === e.index);
      const recorded = result?.type === 'tool.finished' && result.error === undefined;
      const at = `${where} ${e.node}:${e.seq}.${e.index}`;
      if (e.name === 'create_note') {
        notes.push({ path: String(e.arguments.path), content: String(e.arguments.content), recorded, where: at });
        continue;
      }
      if (result?.type === 'tool.finished' && result.error?.code === 'KW_ERR_TOOL_OUTCOME_UNKNOWN') out.outcomeUnknown += 1;
      toolLines.push({ line: String(e.arguments.line), recorded, where: at });
    }
  }
}

/** Each note an agent created: one audited write of it, done, and the note holds what was written; a call whose result was not recorded wrote at most once. */
function noteProblems(engine: Awaited<ReturnType<typeof createEngine>>, notes: SessionBooks['notes']): string[] {
  const problems: string[] = [];
  for (const n of notes) {
    const writes = engine.vault.writes({ path: n.path, limit: 10 });
    const done = writes.filter((w) => w.state === 'done');
    if (writes.length > 1) problems.push(`${n.where}: the note ${n.path} has ${writes.length} writes (${writes.map((w) => `${w.op} ${w.state}`).join(', ')})`);
    if (n.recorded && done.length !== 1) problems.push(`${n.where}: its create_note was recorded, and the note ${n.path} has ${done.length} done writes`);
    if (done.length === 1) {
      const content = engine.vault.read(n.path).content;
      if (content !== n.content) problems.push(`${n.where}: the note ${n.path} holds ${JSON.stringify(content)}, not ${JSON.stringify(n.content)}`);
    }
  }
  return problems;
}

/** One trace row per model call that ended, none other; each names its node's agent, and a delegated call's parent is the call that asked for the delegation. */
function traceProblems(title: string, log: Ev[], traces: ReturnType<Awaited<ReturnType<typeof createEngine>>['listTraces']>): string[] {
  const problems: string[] = [];
  const key = (turn: number, node: string, seq: number): string => `${turn}/${node}:${seq}`;
  const calls = log.filter(ended).map((e) => key(e.turn, e.node, e.seq)).sort();
  const rows = traces.map((t) => key(t.attempt, t.step, t.seq)).sort();
  if (JSON.stringify(calls) !== JSON.stringify(rows)) problems.push(`${title}: the traces ${JSON.stringify(rows)} are not the calls that ended ${JSON.stringify(calls)}`);
  const byKey = new Map(traces.map((t) => [key(t.attempt, t.step, t.seq), t.id]));
  const agentOf = new Map<string, string>();
  for (const e of log) {
    if (e.type === 'turn.started') agentOf.set(`${e.turn}/r`, e.agent.name);
    if (e.type === 'delegation.started') agentOf.set(`${e.turn}/${e.node}`, e.agent.name);
  }
  for (const t of traces) {
    if (t.agent !== agentOf.get(`${t.attempt}/${t.step}`)) problems.push(`${title}: trace ${key(t.attempt, t.step, t.seq)} names agent ${t.agent}, not ${agentOf.get(`${t.attempt}/${t.step}`)}`);
    const m = /^(.*)\/(\d+)\.\d+$/.exec(t.step);
    const parent = m === null ? null : byKey.get(key(t.attempt, m[1]!, Number(m[2]))) ?? -1;
    if (t.parentId !== parent) problems.push(`${title}: trace ${key(t.attempt, t.step, t.seq)} has parent ${t.parentId}, not ${parent}`);
  }
  return problems;
}

/** The fake's ledger against the answers the engine recorded (`committed`: stamp → where). */
function modelProblems(ledger: ModelLedger, servers: readonly FakeModelServer[], committed: Map<number, string>, out: ChatCheck): string[] {
  const problems: string[] = [];
  const answered = (body: unknown): boolean => servers.some((server) => server.requests.find((r) => r.body === body)?.answered === true);
  const recordedOf = new Map<string, number>();
  for (const a of ledger.asked) if (committed.has(a.stamp)) recordedOf.set(a.key, a.stamp);
  for (const [stamp, where] of committed) if (!ledger.asked.some((a) => a.stamp === stamp)) problems.push(`${where}: its answer (stamp ${stamp}) was never given by the fake`);
  for (const a of ledger.asked) {
    const recorded = recordedOf.get(a.key);
    const name = `${a.agent}'s call (request ${a.stamp}, life ${a.life})`;
    if (recorded === undefined) problems.push(`${name} was never recorded`);
    else if (a.stamp > recorded) problems.push(`${name} was asked again after its answer (request ${recorded}) was recorded`);
    else if (a.stamp < recorded) {
      out.askedAgain += 1;
      if (!ledger.killed.has(a.life)) problems.push(`${name} was asked again though its life was not killed`);
      if (answered(a.body)) out.answersLostToKills += 1;
    }
  }
  return problems;
}
