/**
 * The engine process the kill soak (`soak-kill.ts`) SIGKILLs: `<data-dir> <horde-dir> <n> [<maxParallelSteps>] [<top-up>]`
 * recovers what is unfinished, starts n new runs (with top-up 1: as many as bring the
 * unfinished ones it recovered up to n), prints `READY`, then `IDLE` once every
 * run it knows has settled, and closes.
 */
import { DEFAULT_CONFIG, createEngine } from '../engine/index.js';

const [, , dataDir, hordeDir, count, parallel, topUp] = process.argv;
const say = (line: string): void => void process.stdout.write(`${line}\n`);
const runs = { ...DEFAULT_CONFIG.runs, maxParallelSteps: Number(parallel ?? DEFAULT_CONFIG.runs.maxParallelSteps) };
const engine = await createEngine({ dataDir: dataDir!, config: { ...DEFAULT_CONFIG, runs } });
engine.on('engine:warning', ({ message }) => process.stderr.write(`warning: ${message}\n`));
const summary = await engine.recover();
say(`RECOVERED ${JSON.stringify({ resumed: summary.resumed.length, retried: summary.retried.length, killedProcesses: summary.killedProcesses, failed: summary.failed })}`);
const { horde } = await engine.resolveHorde(hordeDir!);
const fresh = Math.max(0, Number(count ?? '0') - (Number(topUp ?? '0') > 0 ? summary.resumed.length : 0));
const started = await Promise.all(Array.from({ length: fresh }, () => engine.startRun(horde, {}, { provenance: 'soak' })));
say('READY');
await Promise.all([...summary.resumed, ...started].map((id) => engine.waitForRun(id)));
say('IDLE');
await engine.close();
