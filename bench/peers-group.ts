/**
 * The `peers` group of the bench (issue 35, opt-in): kowalski beside Mastra, LangGraph.js
 * and DBOS in one run, each in the same shape: a 6-step no-op workflow one at a time, then
 * in Promise.all batches of 50, the whole process's CPU per step, and 200 runs parked at
 * step 3 and resumed by a new process (kowalski: at a `review`, W2-review). kowalski goes
 * through its public engine API; each peer through its own, in a process of its own
 * (bench/peers.ts), as installed by bench/peers/install.sh. DBOS needs Postgres: a
 * throwaway cluster with fsync on, when its binaries are installed.
 */
import { startPostgres } from '../testkit/postgres.js';
import type { Postgres } from '../testkit/postgres.js';
import { commitFloor } from './floor.js';
import { peerDir, peerOnce } from './peers.js';
import type { PeerName, PeerSample } from './peers.js';
import { median, repeat } from './stats.js';
import type { Row } from './table.js';
import { num } from './table.js';
import { W1_STEPS, floorRunsPerSec, w1Once } from './w1.js';
import { w2Once } from './w2.js';

const RUNS = 500;
const BATCH = 50;
const PARKED = 200;
/** The targets: one at a time ≤ 2.5× the floor and faster than every peer; 50 in flight ≥ 1.5× the floor's runs/s; CPU per step ≤ 300 µs (whole process), ≤ 200 µs (engine thread). */
const ONE_AT_A_TIME_FACTOR = 2.5;
const BATCH_FACTOR = 1.5;
const CPU_WHOLE_US = 300;
const CPU_ENGINE_US = 200;
const PEER_NAMES: readonly PeerName[] = ['mastra', 'langgraph', 'dbos'];

interface System {
  name: string;
  store: string;
  one: number[];
  runsPerSec: number[];
  cpu: number[];
  resumeMs: number[];
  failed: number;
  /** kowalski only: the engine thread's CPU per step, one at a time. */
  engineCpu?: number[];
}

export async function peersGroupRows(reps: number, progress: (line: string) => void): Promise<Row[]> {
  const floors: number[] = [];
  const kowalski: System = { name: 'kowalski', store: 'SQLite, synchronous FULL', one: [], runsPerSec: [], cpu: [], resumeMs: [], failed: 0, engineCpu: [] };
  const peers: System[] = [];
  const skipped: string[] = [];
  let postgres: Postgres | undefined;
  try {
    await repeat(reps, async (rep) => {
      floors.push(commitFloor('full', 300));
      const one = await w1Once({ synchronous: 'full', runs: RUNS, inFlight: 1, maxParallelSteps: 4, warmup: 20 });
      const batches = await w1Once({ synchronous: 'full', runs: RUNS, inFlight: BATCH, maxParallelSteps: BATCH, warmup: BATCH, shape: 'batches' });
      const parked = await w2Once({ runs: PARKED, synchronous: 'full', maxParallelSteps: 4, review: true });
      kowalski.one.push(one.usPerStep);
      kowalski.cpu.push(one.cpuAllUsPerStep);
      kowalski.engineCpu!.push(one.cpuUsPerStep);
      kowalski.runsPerSec.push(batches.runsPerSec);
      kowalski.resumeMs.push(parked.ms);
      kowalski.failed += one.failed + batches.failed + parked.bad;
      progress(`peers: kowalski ${num(one.usPerStep)} µs/step, ${num(batches.runsPerSec)} runs/s, resumed in ${num(parked.ms)} ms`);
      for (const name of PEER_NAMES) {
        const at = peerDir(name);
        if ('skipped' in at) {
          if (rep === 0) skipped.push(`${name}: ${at.skipped}`);
          continue;
        }
        let url: string | undefined;
        if (name === 'dbos') {
          try {
            postgres ??= await startPostgres({ fsync: true });
          } catch (err) {
            if (rep === 0) skipped.push(`dbos: no Postgres to run on (${(err as Error).message.split('\n')[0]})`);
            continue;
          }
          url = postgres.url.replace(/\/[^/]+$/, `/dbos_peers_${rep}`);
        }
        const s: PeerSample = await peerOnce(name, at.dir, { runs: RUNS, batch: BATCH, park: PARKED, ...(url === undefined ? {} : { url }) });
        let system = peers.find((p) => p.name.startsWith(s.peer));
        if (system === undefined) {
          system = { name: `${s.peer} ${s.version}`, store: s.store, one: [], runsPerSec: [], cpu: [], resumeMs: [], failed: 0 };
          peers.push(system);
        }
        system.one.push(s.oneAtATime.usPerStep);
        system.cpu.push(s.oneAtATime.cpuUsPerStep);
        system.runsPerSec.push(s.batches.runsPerSec);
        system.resumeMs.push(s.resume.ms);
        system.failed += s.oneAtATime.failed + s.batches.failed + s.resume.bad + (PARKED - s.parked);
        progress(`peers: ${s.peer} ${num(s.oneAtATime.usPerStep)} µs/step, ${num(s.batches.runsPerSec)} runs/s, resumed in ${num(s.resume.ms)} ms`);
      }
    });
  } finally {
    await postgres?.stop();
  }
  return peerRows(median(floors), kowalski, peers, skipped);
}

function peerRows(floor: number, kowalski: System, peers: readonly System[], skipped: readonly string[]): Row[] {
  const all = [kowalski, ...peers];
  const best = (pick: (s: System) => number[], better: (a: number, b: number) => boolean): number | undefined =>
    peers.map((p) => median(pick(p))).reduce<number | undefined>((b, v) => (b === undefined || better(v, b) ? v : b), undefined);
  const fastestOne = best((s) => s.one, (a, b) => a < b);
  const fastestResume = best((s) => s.resumeMs, (a, b) => a < b);
  const floorRuns = floorRunsPerSec(floor);
  const failures = (s: System): string => (s.failed > 0 ? `; ${s.failed} RUNS DID NOT SUCCEED` : '');
  const vs = (value: number, peer: number | undefined, lowerIsBetter: boolean): string =>
    peer === undefined ? 'no peer measured' : `${num(lowerIsBetter ? peer / value : value / peer)}× the best peer`;
  const rows: Row[] = [{ name: 'floor: SQLite insert+commit, FULL', median: floor, unit: 'µs/commit', note: 'better-sqlite3, WAL, fresh file, 300 commits, before each repetition' }];
  for (const s of all) {
    const one = median(s.one);
    rows.push({
      name: `${s.name}: W1 one at a time`, median: one, unit: 'µs/step', floor,
      ...(s === kowalski ? { target: { op: '<' as const, value: Math.min(ONE_AT_A_TIME_FACTOR * floor, fastestOne ?? Infinity) } } : {}),
      note: `${s.store}; ${RUNS} runs of ${W1_STEPS} no-op steps after 20` + (s === kowalski ? `; target: ≤ ${ONE_AT_A_TIME_FACTOR}× the floor and faster than every peer (${vs(one, fastestOne, true)})` : '') + failures(s),
    });
  }
  for (const s of all) {
    const runs = median(s.runsPerSec);
    rows.push({
      name: `${s.name}: W1 in Promise.all batches of ${BATCH}`, median: runs, unit: 'runs/s', floor: floorRuns,
      ...(s === kowalski ? { target: { op: '>' as const, value: BATCH_FACTOR * floorRuns } } : {}),
      note: `floor: runs/s at one FULL commit per step` + (s === kowalski ? `; ${vs(runs, best((p) => p.runsPerSec, (a, b) => a > b), false)}` : ''),
    });
  }
  for (const s of all) {
    rows.push({
      name: `${s.name}: CPU per step, whole process, one at a time`, median: median(s.cpu), unit: 'µs/step',
      ...(s === kowalski ? { target: { op: '<' as const, value: CPU_WHOLE_US } } : {}),
      note: s === kowalski
        ? `every thread of the process (/proc); the engine's thread alone ${num(median(kowalski.engineCpu!))} µs/step (target ≤ ${CPU_ENGINE_US})`
        : 'process.cpuUsage() over the timed runs' + (s.store === 'Postgres' ? ' (Postgres\'s own CPU not counted)' : ''),
    });
  }
  for (const s of all) {
    const ms = median(s.resumeMs);
    rows.push({
      name: `${s.name}: ${PARKED} runs parked at step 3, resumed by a new process`, median: ms, unit: 'ms',
      ...(s === kowalski && fastestResume !== undefined ? { target: { op: '<' as const, value: fastestResume } } : {}),
      note: s === kowalski
        ? `step 3 a review of step 2's artifact (W2-review): approve all, first approve to last success; ${vs(ms, fastestResume, true)}`
        : `step 3 suspends (Mastra suspend(), LangGraph interruptBefore, DBOS recv); resume all, first resume to last success`,
    });
  }
  for (const why of skipped) rows.push({ name: `peer not measured`, median: Number.NaN, unit: '', note: why });
  return rows;
}
