/**
 * Tool-loop overhead per iteration, the model's own time excluded: a fake Ollama that
 * answers at once (a tool call until the last turn, then the answer) stands in for the
 * model. The floor is the bare provider call (the real `ollama` client, one HTTP round
 * trip to the same server); a loop iteration costs that call plus the tool, the schema
 * check, the trace and the bookkeeping.
 * - in process: runToolLoop with the tool registry, as a step's thread runs it;
 * - through the engine: a model step in a pool thread, each tool call travelling to the
 *   engine's registry and back over the step bus, each trace stored (FULL).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createFileTools, createToolRegistry, runToolLoop } from '../agents/index.js';
import { createProvider } from '../agents/providers/index.js';
import type { ProviderSettings } from '../agents/index.js';
import { createEngine } from '../engine/index.js';
import { startFakeOllama } from '../testkit/fake-models.js';
import type { FakeScript } from '../testkit/fake-models.js';
import { removeDir, tempDir } from './setup.js';
import { median, now } from './stats.js';

export const TOOL_CALLS = 10;

export interface ToolLoopSample {
  /** µs per bare provider call. */
  floor: number;
  /** µs per loop iteration (one model call + one tool call), in process. */
  inProcess: number;
  /** µs per iteration for a model step through the engine. */
  engine: number;
}

/** Tool calls to read_file f0…f9, then the answer (message count says where the loop is). */
const script: FakeScript = (body) => {
  const done = body.messages.filter((m: { role: string }) => m.role === 'tool').length;
  return done < TOOL_CALLS ? { toolCalls: [{ name: 'read_file', arguments: { path: `f${done}.txt` } }] } : { text: '# Done' };
};

function settings(host: string): ProviderSettings {
  return { ollama: { host }, anthropic: {}, timeoutMs: 10_000, maxRetries: 0, retryBaseMs: 100 };
}

export async function toolLoopOnce(loops: number): Promise<ToolLoopSample> {
  const server = await startFakeOllama(script);
  const home = tempDir('tools');
  const files = tempDir('tools-root');
  try {
    for (let i = 0; i < TOOL_CALLS; i++) fs.writeFileSync(path.join(files, `f${i}.txt`), `file ${i}\n`);
    const ref = { provider: 'ollama' as const, model: 'bench' };
    const provider = createProvider(ref, settings(server.url));
    const plain = createProvider(ref, settings(server.url));

    // Floor: the same HTTP round trip with no loop around it (the script answers a call with no tool results with a tool call).
    const floorSamples: number[] = [];
    for (let i = 0; i < loops * TOOL_CALLS; i++) {
      const t0 = now();
      await plain.chat({ model: 'bench', messages: [{ role: 'user', content: 'go' }] });
      floorSamples.push((now() - t0) * 1000);
    }

    const registry = createToolRegistry({ builtins: createFileTools({ root: files, dataDir: home }) });
    const tools = await registry.describe(['read_file']);
    const loopSamples: number[] = [];
    for (let i = 0; i < loops; i++) {
      const t0 = now();
      const r = await runToolLoop({
        provider, ref, tools, setting: 'native',
        messages: [{ role: 'system', content: 'bench' }, { role: 'user', content: 'go' }],
        callTool: (name, args, signal) => registry.call(name, args, signal),
        signal: new AbortController().signal,
        maxIterations: TOOL_CALLS + 1, maxToolErrors: 0,
        onTrace: () => undefined,
      });
      if (r.toolCalls !== TOOL_CALLS) throw new Error(`the loop made ${r.toolCalls} tool calls, not ${TOOL_CALLS}`);
      loopSamples.push(((now() - t0) * 1000) / (TOOL_CALLS + 1));
    }

    fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:bench"\ntool_calling = "native"\nmax_tool_iterations = ${TOOL_CALLS + 1}\n[providers.ollama]\nhost = "${server.url}"\n[tools]\nroot = "${files}"\n`);
    const hordeDir = path.join(home, 'hordes', 'bench-tools');
    fs.mkdirSync(path.join(hordeDir, 'agents'), { recursive: true });
    fs.writeFileSync(path.join(hordeDir, 'horde.md'), '---\nid = "bench-tools"\npipeline = ["read"]\n---\n');
    fs.writeFileSync(path.join(hordeDir, 'agents', 'read.md'), '---\nname = "read"\nkind = "process"\ntools = ["read_file"]\n---\n');
    const engine = await createEngine({ dataDir: home });
    const engineSamples: number[] = [];
    try {
      const { horde } = await engine.resolveHorde('bench-tools');
      await engine.waitForRun(await engine.startRun(horde, {})); // warm-up: the pool thread and its imports
      for (let i = 0; i < loops; i++) {
        const t0 = now();
        const runId = await engine.startRun(horde, {});
        const state = await engine.waitForRun(runId);
        if (state !== 'succeeded') throw new Error(`bench run ${runId} ${state}: ${JSON.stringify(engine.getRun(runId).steps)}`);
        engineSamples.push(((now() - t0) * 1000) / (TOOL_CALLS + 1));
      }
    } finally {
      await engine.close();
    }
    return { floor: median(floorSamples), inProcess: median(loopSamples), engine: median(engineSamples) };
  } finally {
    await server.close();
    removeDir(home);
    removeDir(files);
  }
}
