/**
 * Chat overhead (issue 13): what a model call costs through `engine.chat` — the durable
 * turn, every call and tool call written to the session's log before it takes effect —
 * over the same call made bare. The model is a fake Ollama answering at once (the real
 * `ollama` client, one HTTP round trip), so the model's own time is zero and what is left
 * is the engine's work: commits, the session's machine, traces.
 * - one model call per turn: `engine.chat.send(id, text).done` vs `provider.chat(…)`;
 * - a turn of N tool calls (read_file, one per model call): per model call, vs the same
 *   loop run bare (runToolLoop with the same registry, nothing written);
 * - a delegation tree: a coordinator asks 50 sub-agents at once in one answer, then
 *   merges: wall time, model calls, events written, vs the same calls made bare in the
 *   same shape (1, then 50 at once, then 1).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createFileTools, createToolRegistry, runToolLoop } from '../agents/index.js';
import { createProvider } from '../agents/providers/index.js';
import type { ChatRequest, ProviderSettings } from '../agents/index.js';
import { createEngine } from '../engine/index.js';
import type { Engine } from '../engine/index.js';
import { agentOf, profile, writeTeam } from '../testkit/chat.js';
import { startFakeOllama } from '../testkit/fake-models.js';
import type { FakeModelServer, FakeTurn } from '../testkit/fake-models.js';
import type { BenchStore, Sync } from './setup.js';
import { removeDir, tempDir } from './setup.js';
import { median, now } from './stats.js';

export const CHAT_TOOL_CALLS = 10;
export const TREE_WIDTH = 50;
const MODEL = 'bench';

export interface ChatCallSample {
  /** µs per bare provider call. */
  floor: number;
  /** µs per one-call turn through engine.chat. */
  turn: number;
  /** µs per model call of the bare tool loop (N tool calls + the answer). */
  loopFloor: number;
  /** µs per model call of the same loop as a chat turn. */
  toolTurn: number;
  /** Events written per one-call turn and per tool turn. */
  turnEvents: number;
  toolTurnEvents: number;
}

export interface TreeSample {
  /** ms for the whole turn through engine.chat. */
  ms: number;
  /** ms for the same calls made bare, in the same shape. */
  floor: number;
  calls: number;
  events: number;
  stop: string;
}

function settings(host: string): ProviderSettings {
  return { ollama: { host }, anthropic: {}, timeoutMs: 10_000, maxRetries: 0, retryBaseMs: 100 };
}

const ref = { provider: 'ollama' as const, model: MODEL };

/**
 * The fake's script: `solo` answers; `reader` reads f0…f9 one per call, then answers;
 * `boss` delegates to 50 `worker`s in one answer, then merges; a worker answers.
 */
function script(body: any): FakeTurn {
  const messages: any[] = body.messages ?? [];
  const tools = messages.filter((m) => m.role === 'tool').length;
  switch (agentOf(body)) {
    case 'reader':
      return tools < CHAT_TOOL_CALLS ? { toolCalls: [{ name: 'read_file', arguments: { path: `f${tools}.txt` } }] } : { text: 'Read them all.' };
    case 'boss':
      return tools === 0
        ? { toolCalls: Array.from({ length: TREE_WIDTH }, (_, i) => ({ name: 'delegate_to_agent', arguments: { agent: 'worker', task: `part ${i}` } })) }
        : { text: `Merged ${tools} answers.` };
    case 'worker':
      return { text: 'Done with my part.' };
    default:
      return { text: 'Hello there.' };
  }
}

interface Setup {
  server: FakeModelServer;
  home: string;
  files: string;
  engine: Engine;
}

/** `store`: chat sessions, their log and traces in a Postgres store (issue 40) rather than the data folder's SQLite. */
async function setUp(sync: Sync, store?: BenchStore): Promise<Setup> {
  const server = await startFakeOllama(script);
  const home = tempDir('chat');
  const files = tempDir('chat-files');
  for (let i = 0; i < CHAT_TOOL_CALLS; i++) fs.writeFileSync(path.join(files, `f${i}.txt`), `file ${i}\n`);
  writeTeam(home, {
    solo: profile('solo', 'tools = []'),
    reader: profile('reader', `tools = ["read_file"]\nmax_iterations = ${CHAT_TOOL_CALLS + 1}`),
    boss: profile('boss', `tools = ["delegate_to_agent"]\nmax_iterations = ${TREE_WIDTH + 2}`),
    worker: profile('worker', 'tools = []'),
  });
  fs.writeFileSync(path.join(home, 'config.toml'),
    `[store]\nsynchronous = "${sync}"\n${store === undefined ? '' : `url = "${store.url}"\n`}[model]\ndefault = "ollama:${MODEL}"\ntool_calling = "native"\n[providers.ollama]\nhost = "${server.url}"\n[tools]\nroot = "${files}"\n`);
  const engine = await createEngine({ dataDir: home });
  return { server, home, files, engine };
}

async function tearDown(s: Setup): Promise<void> {
  await s.engine.close();
  await s.server.close();
  removeDir(s.home);
  removeDir(s.files);
}

/** One turn in a new session (created before the clock starts); its wall time, µs, and the events it wrote. */
async function timedTurn(engine: Engine, agent: string, text: string): Promise<{ us: number; events: number; stop: string; calls: number }> {
  const { id } = engine.chat.create({ agent, by: 'bench' });
  const t0 = now();
  const out = await engine.chat.send(id, text, { by: 'bench' }).done;
  const us = (now() - t0) * 1000;
  if (out.stop !== 'done') throw new Error(`bench chat turn of ${agent} ended ${out.stop}: ${JSON.stringify(out.error)}`);
  return { us, events: engine.chat.events(id).length - 1, stop: out.stop, calls: out.usage.calls };
}

export async function chatCallsOnce(sync: Sync, turns: number, store?: BenchStore): Promise<ChatCallSample> {
  const s = await setUp(sync, store);
  try {
    const bare = createProvider(ref, settings(s.server.url));
    const request: ChatRequest = { model: MODEL, messages: [{ role: 'system', content: 'You are solo.' }, { role: 'user', content: 'hello' }] };
    for (let i = 0; i < 10; i++) await bare.chat(request);
    for (let i = 0; i < 10; i++) await timedTurn(s.engine, 'solo', 'hello');
    for (let i = 0; i < 2; i++) await timedTurn(s.engine, 'reader', 'read the files');

    // Interleaved, so drift of the shared machine hits both alike.
    const floor: number[] = [];
    const turn: number[] = [];
    let turnEvents = 0;
    for (let i = 0; i < turns; i++) {
      const t0 = now();
      await bare.chat(request);
      floor.push((now() - t0) * 1000);
      const t = await timedTurn(s.engine, 'solo', 'hello');
      turn.push(t.us);
      turnEvents = t.events;
    }

    const registry = createToolRegistry({ builtins: createFileTools({ root: s.files, dataDir: s.home }) });
    const tools = await registry.describe(['read_file']);
    const loopFloor: number[] = [];
    const toolTurn: number[] = [];
    let toolTurnEvents = 0;
    const loops = Math.max(3, Math.round(turns / 10));
    for (let i = 0; i < loops; i++) {
      const t0 = now();
      const r = await runToolLoop({
        provider: bare, ref, tools, setting: 'native',
        messages: [{ role: 'system', content: 'You are reader.' }, { role: 'user', content: 'read the files' }],
        callTool: (name, args, signal) => registry.call(name, args, signal),
        signal: new AbortController().signal,
        maxIterations: CHAT_TOOL_CALLS + 1, maxToolErrors: 0,
        onTrace: () => undefined,
      });
      if (r.toolCalls !== CHAT_TOOL_CALLS) throw new Error(`the bare loop made ${r.toolCalls} tool calls, not ${CHAT_TOOL_CALLS}`);
      loopFloor.push(((now() - t0) * 1000) / (CHAT_TOOL_CALLS + 1));
      const t = await timedTurn(s.engine, 'reader', 'read the files');
      if (t.calls !== CHAT_TOOL_CALLS + 1) throw new Error(`the chat turn made ${t.calls} model calls, not ${CHAT_TOOL_CALLS + 1}`);
      toolTurn.push(t.us / (CHAT_TOOL_CALLS + 1));
      toolTurnEvents = t.events;
    }
    return { floor: median(floor), turn: median(turn), loopFloor: median(loopFloor), toolTurn: median(toolTurn), turnEvents, toolTurnEvents };
  } finally {
    await tearDown(s);
  }
}

/** The tree's calls made bare in the same shape: the coordinator, its 50 workers at once, the coordinator again. */
async function bareTree(bare: ReturnType<typeof createProvider>): Promise<number> {
  const boss: ChatRequest = { model: MODEL, messages: [{ role: 'system', content: 'You are boss.' }, { role: 'user', content: 'split it' }] };
  const t0 = now();
  const first = await bare.chat(boss);
  await Promise.all(first.toolCalls.map((c) => bare.chat({ model: MODEL, messages: [{ role: 'system', content: 'You are worker.' }, { role: 'user', content: String(c.arguments.task) }] })));
  const merged = await bare.chat({
    model: MODEL,
    messages: [...boss.messages, { role: 'assistant', content: '', toolCalls: first.toolCalls },
      ...first.toolCalls.map((c) => ({ role: 'tool' as const, content: 'Done with my part.', toolCallId: c.id, toolName: c.name }))],
  });
  if (!merged.content.startsWith('Merged')) throw new Error(`the bare tree's last call answered ${JSON.stringify(merged.content)}`);
  return now() - t0;
}

export async function treeOnce(sync: Sync): Promise<TreeSample> {
  const s = await setUp(sync);
  try {
    const bare = createProvider(ref, settings(s.server.url));
    await bareTree(bare);
    await timedTurn(s.engine, 'boss', 'split it');
    const floor = await bareTree(bare);
    const t = await timedTurn(s.engine, 'boss', 'split it');
    return { ms: t.us / 1000, floor, calls: t.calls, events: t.events, stop: t.stop };
  } finally {
    await tearDown(s);
  }
}
