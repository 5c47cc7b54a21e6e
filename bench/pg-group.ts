/**
 * The `pg` group of the bench (issue 18): W1 and webhook intake on the Postgres run
 * store with 1, 2 and 3 nodes, and chat overhead per model call (issue 40), beside the
 * same workloads on SQLite and, when
 * DBOS's driver is installed (bench/peers.ts), DBOS on the same Postgres. One
 * throwaway cluster with fsync on (as a durable store runs) serves the whole group, a
 * fresh database per sample; the Postgres floor is sampled before each repetition.
 */
import { freshDatabase, startPostgres } from '../testkit/postgres.js';
import { CHAT_TOOL_CALLS, chatCallsOnce } from './chat.js';
import type { ChatCallSample } from './chat.js';
import { peerDir, peerOnce } from './peers.js';
import type { PeerSample } from './peers.js';
import { commitFloor } from './floor.js';
import { pgAsyncFloor, pgSyncFloor } from './pg-floor.js';
import { pgHookNodesOnce, pgW1NodesOnce } from './pg-nodes.js';
import { median, repeat } from './stats.js';
import type { Row } from './table.js';
import { num } from './table.js';
import { W1_STEPS, floorRunsPerSec, w1Once } from './w1.js';
import type { W1Sample } from './w1.js';
import { HOOK_CONNECTIONS, plainRouteOnce, webhookOnce } from './webhook.js';

const RUNS = 500;
const IN_FLIGHT = 50;
const DELIVERIES = 500;
/** Commits per floor sample: a Postgres commit with fsync costs about what a FULL SQLite one does. */
const FLOOR_COMMITS = 300;
/** Issue 18: W1 with 50 in flight on Postgres at ≥ 3× DBOS's runs/s on the same Postgres. */
const DBOS_FACTOR = 3;

/** `6 samples 382–3069` */
function spread(samples: readonly number[]): string {
  return samples.length === 1 ? '1 sample' : `${samples.length} samples ${num(Math.min(...samples))}–${num(Math.max(...samples))}`;
}


function w1Note(s: readonly W1Sample[], maxParallelSteps: number): string {
  const m = (f: (x: W1Sample) => number) => median(s.map(f));
  return `${num(m((x) => x.runsPerSec))} runs/s, ${num(m((x) => x.usPerStep))} µs/step; main-thread CPU ${num(m((x) => x.cpuUsPerStep))} µs/step, all threads ${num(m((x) => x.cpuAllUsPerStep))}; maxParallelSteps ${maxParallelSteps}; ` +
    `engine.stats: ${num(m((x) => x.batches / x.commits))} batches/commit, ${num(m((x) => x.events / x.commits))} events/commit` +
    (s.some((x) => x.failed > 0) ? '; SOME RUNS DID NOT SUCCEED' : '');
}

/** Turns per chat sample (as the chat group). */
const CHAT_TURNS = 100;

/**
 * Chat overhead per model call with the sessions, their log and the traces in Postgres
 * (issue 40) beside the same in the data folder's SQLite at FULL, in the same run: the
 * floor is the same fake model called bare (bench/chat.ts).
 */
async function chatRows(reps: number, fresh: () => string, progress: (line: string) => void): Promise<Row[]> {
  const lite = await repeat(reps, () => chatCallsOnce('full', CHAT_TURNS));
  const shared = await repeat(reps, () => chatCallsOnce('full', CHAT_TURNS, { url: fresh() }));
  progress(`pg: chat turn ${shared.map((s) => `${num(s.turn / 1000)} ms`).join(', ')} (SQLite ${lite.map((s) => `${num(s.turn / 1000)} ms`).join(', ')}); tool turn per call ${shared.map((s) => `${num(s.toolTurn / 1000)} ms`).join(', ')} (SQLite ${lite.map((s) => `${num(s.toolTurn / 1000)} ms`).join(', ')})`);
  const ms = (samples: readonly ChatCallSample[], pick: (s: ChatCallSample) => number): number => median(samples.map(pick)) / 1000;
  const row = (name: string, samples: readonly ChatCallSample[], store: string, pick: (s: ChatCallSample) => number, floorOf: (s: ChatCallSample) => number, what: string): Row => {
    const value = ms(samples, pick);
    const floor = ms(samples, floorOf);
    return {
      name, median: value, unit: 'ms/call', floor, ratio: median(samples.map((s) => pick(s) / floorOf(s))),
      note: `${store}; overhead ${num(value - floor)} ms per model call over the bare call (floor: the same fake model called bare, interleaved); ${what}`,
    };
  };
  return [
    row('Chat on SQLite (FULL): one model call per turn', lite, 'sessions, log and traces in the data folder', (s) => s.turn, (s) => s.floor, `${CHAT_TURNS} turns, ${median(lite.map((s) => s.turnEvents))} events each`),
    row('Chat on Postgres: one model call per turn', shared, 'sessions, log, traces and the turn\'s lease in Postgres (fsync on)', (s) => s.turn, (s) => s.floor, `${CHAT_TURNS} turns, ${median(shared.map((s) => s.turnEvents))} events each, a lease claimed and released per turn`),
    row(`Chat on SQLite (FULL): a turn of ${CHAT_TOOL_CALLS} tool calls + the answer, per model call`, lite, 'as above', (s) => s.toolTurn, (s) => s.loopFloor, 'floor: the same loop bare'),
    row(`Chat on Postgres: a turn of ${CHAT_TOOL_CALLS} tool calls + the answer, per model call`, shared, 'as above', (s) => s.toolTurn, (s) => s.loopFloor, 'floor: the same loop bare'),
  ];
}

/** The chat rows alone (`npm run bench -- pg-chat`), on a throwaway cluster of their own. */
export async function pgChatRows(reps: number, progress: (line: string) => void): Promise<Row[]> {
  const cluster = await startPostgres({ fsync: true });
  let databases = 0;
  try {
    return await chatRows(reps, () => freshDatabase(cluster.url, `bench_chat_${++databases}`), progress);
  } finally {
    await cluster.stop();
  }
}

export async function pgGroupRows(reps: number, progress: (line: string) => void): Promise<Row[]> {
  const cluster = await startPostgres({ fsync: true });
  let databases = 0;
  const fresh = (): string => freshDatabase(cluster.url, `bench_${++databases}`);
  try {
    const floorUrl = fresh();
    const floors = { sqlite: [] as number[], sync: [] as number[], async: [] as number[] };
    const sqliteFloorNow = (): number => {
      const us = commitFloor('full', FLOOR_COMMITS);
      floors.sqlite.push(us);
      return us;
    };
    const pgFloorNow = async (): Promise<{ sync: number; async: number }> => {
      const sync = pgSyncFloor(floorUrl, FLOOR_COMMITS);
      const asyncUs = await pgAsyncFloor(floorUrl, FLOOR_COMMITS);
      floors.sync.push(sync);
      floors.async.push(asyncUs);
      return { sync, async: asyncUs };
    };
    const rows: Row[] = [];
    const later: Row[] = [];

    // SQLite, as the w1 group measures it at FULL.
    const sqlite1 = await repeat(reps, async () => ({ floor: sqliteFloorNow(), s: await w1Once({ synchronous: 'full', runs: RUNS, inFlight: 1, maxParallelSteps: 4, warmup: 20 }) }));
    const sqlite50 = await repeat(reps, async () => ({ floor: sqliteFloorNow(), s: await w1Once({ synchronous: 'full', runs: RUNS, inFlight: IN_FLIGHT, maxParallelSteps: IN_FLIGHT, warmup: 2 * IN_FLIGHT }) }));
    progress(`pg: sqlite w1 ${sqlite1.map((x) => `${num(x.s.usPerStep)} µs/step`).join(', ')}; 50 in flight ${sqlite50.map((x) => `${num(x.s.runsPerSec)} runs/s`).join(', ')}`);

    // One node, in this process (main-thread CPU is the engine's).
    const pg1 = await repeat(reps, async () => ({ floor: await pgFloorNow(), s: await w1Once({ synchronous: 'full', runs: RUNS, inFlight: 1, maxParallelSteps: 4, warmup: 20, store: { url: fresh() } }) }));
    progress(`pg: w1 one at a time ${pg1.map((x) => `${num(x.s.usPerStep)} µs/step (floor ${num(x.floor.sync)})`).join(', ')}`);
    const pg50 = await repeat(reps, async () => ({ floor: await pgFloorNow(), s: await w1Once({ synchronous: 'full', runs: RUNS, inFlight: IN_FLIGHT, maxParallelSteps: IN_FLIGHT, warmup: 2 * IN_FLIGHT, store: { url: fresh() } }) }));
    progress(`pg: w1 50 in flight ${pg50.map((x) => `${num(x.s.runsPerSec)} runs/s`).join(', ')}`);
    const pgBatches = await repeat(reps, async () => ({ floor: await pgFloorNow(), s: await w1Once({ synchronous: 'full', runs: RUNS, inFlight: IN_FLIGHT, maxParallelSteps: IN_FLIGHT, warmup: IN_FLIGHT, shape: 'batches', store: { url: fresh() } }) }));
    progress(`pg: w1 batches ${pgBatches.map((x) => `${num(x.s.runsPerSec)} runs/s`).join(', ')}`);

    // 1, 2 and 3 nodes, each a process of its own.
    const multi = new Map<number, Array<{ floor: { sync: number }; s: Awaited<ReturnType<typeof pgW1NodesOnce>> }>>();
    for (const n of [1, 2, 3]) {
      multi.set(n, await repeat(reps, async () => ({ floor: await pgFloorNow(), s: await pgW1NodesOnce(fresh(), n, RUNS, IN_FLIGHT) })));
      progress(`pg: w1 ${n} node processes ${multi.get(n)!.map((x) => `${num(x.s.runsPerSec)} runs/s`).join(', ')}`);
    }

    // DBOS on the same cluster.
    const peer = peerDir('dbos');
    let dbos: Array<{ floor: { async: number }; s: PeerSample }> = [];
    if ('dir' in peer) {
      dbos = await repeat(reps, async (rep) => ({ floor: await pgFloorNow(), s: await peerOnce('dbos', peer.dir, { url: cluster.url.replace(/\/kowalski$/, `/dbos_${rep}`), runs: RUNS, batch: IN_FLIGHT, park: 0 }) }));
      progress(`pg: dbos ${dbos.map((x) => `${num(x.s.oneAtATime.usPerStep)} µs/step, ${num(x.s.batches.runsPerSec)} runs/s in batches`).join('; ')}`);
    } else {
      progress(`pg: DBOS skipped: ${peer.skipped}`);
    }
    const dbosRunsPerSec = dbos.length === 0 ? undefined : median(dbos.map((x) => x.s.batches.runsPerSec));
    const vsDbos = (): Pick<Row, 'target'> => (dbosRunsPerSec === undefined ? {} : { target: { op: '>', value: DBOS_FACTOR * dbosRunsPerSec } });
    const dbosNote = (runsPerSec: number): string => (dbosRunsPerSec === undefined ? 'DBOS not measured (not installed: bench/peers/install.sh)' : `${num(runsPerSec / dbosRunsPerSec)}× DBOS's runs/s (target ${DBOS_FACTOR}×)`);

    // Webhook intake.
    const hooks = await repeat(reps, async () => ({
      plain: await plainRouteOnce(DELIVERIES),
      sqlite: await webhookOnce(DELIVERIES, 'full'),
      pg: await webhookOnce(DELIVERIES, 'full', { url: fresh() }),
      pg1: await pgHookNodesOnce(fresh(), 1, DELIVERIES),
      pg3: await pgHookNodesOnce(fresh(), 3, DELIVERIES),
    }));
    progress(`pg: webhook ${hooks.map((h) => `sqlite ${num(h.sqlite.perSec)}, pg ${num(h.pg.perSec)}, 1 node ${num(h.pg1.perSec)}, 3 nodes ${num(h.pg3.perSec)} runs/s (plain ${num(h.plain.perSec)} req/s)`).join('; ')}`);

    // The table.
    rows.push({ name: 'floor: SQLite insert+commit, FULL', median: median(floors.sqlite), unit: 'µs/commit', note: `better-sqlite3, WAL, fresh file, ${FLOOR_COMMITS} commits; ${spread(floors.sqlite)}` });
    rows.push({ name: 'floor: Postgres INSERT + COMMIT through SyncPg (the engine\'s client)', median: median(floors.sync), unit: 'µs/commit', note: `one autocommitted INSERT of an event-sized row per call, ${FLOOR_COMMITS} a sample, throwaway cluster on this disk with fsync on; the caller blocks on Atomics.wait while the worker thread's pg client does the round trip; ${spread(floors.sync)}` });
    rows.push({ name: 'floor: Postgres INSERT + COMMIT through a plain async pg.Client', median: median(floors.async), unit: 'µs/commit', note: `the same statement (prepared), awaited one after the other; ${spread(floors.async)}` });

    const sqliteFloor1 = median(sqlite1.map((x) => x.floor));
    rows.push({
      name: `W1 SQLite ${RUNS} runs × ${W1_STEPS} no-op steps, one at a time, FULL`, median: median(sqlite1.map((x) => x.s.usPerStep)), unit: 'µs/step',
      floor: sqliteFloor1, ratio: median(sqlite1.map((x) => x.s.usPerStep / x.floor)), note: `as the w1 group; ${w1Note(sqlite1.map((x) => x.s), 4)}`,
    });
    rows.push({
      name: `W1 Postgres, 1 node, one at a time`, median: median(pg1.map((x) => x.s.usPerStep)), unit: 'µs/step',
      floor: median(pg1.map((x) => x.floor.sync)), ratio: median(pg1.map((x) => x.s.usPerStep / x.floor.sync)),
      note: `the engine in this process; ${w1Note(pg1.map((x) => x.s), 4)}`,
    });
    const sqlite50Floor = floorRunsPerSec(median(sqlite50.map((x) => x.floor)));
    rows.push({
      name: `W1 SQLite, ${IN_FLIGHT} in flight, FULL`, median: median(sqlite50.map((x) => x.s.runsPerSec)), unit: 'runs/s',
      floor: sqlite50Floor, ratio: median(sqlite50.map((x) => x.s.runsPerSec / floorRunsPerSec(x.floor))),
      note: `floor: runs/s at one FULL SQLite commit per step; ${w1Note(sqlite50.map((x) => x.s), IN_FLIGHT)}`,
    });
    const pgRow = (name: string, samples: ReadonlyArray<{ floor: { sync: number }; s: { runsPerSec: number } }>, note: string): Row => {
      const runsPerSec = median(samples.map((x) => x.s.runsPerSec));
      return {
        name, median: runsPerSec, unit: 'runs/s', floor: floorRunsPerSec(median(samples.map((x) => x.floor.sync))),
        ratio: median(samples.map((x) => x.s.runsPerSec / floorRunsPerSec(x.floor.sync))), ...vsDbos(),
        note: `floor: runs/s at one SyncPg commit per step; ${dbosNote(runsPerSec)}; ${note}`,
      };
    };
    rows.push(pgRow(`W1 Postgres, 1 node, ${IN_FLIGHT} in flight`, pg50, `the engine in this process; ${w1Note(pg50.map((x) => x.s), IN_FLIGHT)}`));
    rows.push(pgRow(`W1 Postgres, 1 node, Promise.all batches of ${IN_FLIGHT} (DBOS's driver shape)`, pgBatches, `the engine in this process; ${w1Note(pgBatches.map((x) => x.s), IN_FLIGHT)}`));
    for (const [n, samples] of multi) {
      const m = (f: (x: (typeof samples)[number]['s']) => number) => median(samples.map((x) => f(x.s)));
      rows.push(pgRow(`W1 Postgres, ${n} node process${n === 1 ? '' : 'es'}, ${IN_FLIGHT} in flight in all`, samples,
        `each node an engine in a child process, its share of the ${RUNS} runs and of the ${IN_FLIGHT} in flight (maxParallelSteps = its share), started together after a warm-up; ` +
        `${num(m((x) => x.usPerStep))} µs/step; main-thread CPU of all nodes ${num(m((x) => x.cpuUsPerStep))} µs/step; ${num(m((x) => x.batches / x.commits))} batches/commit` +
        (samples.some((x) => x.s.failed > 0) ? '; SOME RUNS DID NOT SUCCEED' : '')));
    }
    if (dbos.length > 0) {
      const version = dbos[0]!.s.version;
      const fails = dbos.reduce((n, x) => n + x.s.oneAtATime.failed + x.s.batches.failed, 0);
      rows.push({
        name: `DBOS ${version}, same Postgres: W1 one at a time`, median: median(dbos.map((x) => x.s.oneAtATime.usPerStep)), unit: 'µs/step',
        floor: median(dbos.map((x) => x.floor.async)), ratio: median(dbos.map((x) => x.s.oneAtATime.usPerStep / x.floor.async)),
        note: `bench/peers/dbos/w1.mjs: a workflow of ${W1_STEPS} no-op steps (registerStep), startWorkflow + getResult, ${RUNS} runs after 20; floor: the async pg client's commit (DBOS's client); ${num(median(dbos.map((x) => x.s.oneAtATime.runsPerSec)))} runs/s` + (fails > 0 ? `; ${fails} WORKFLOWS FAILED` : ''),
      });
      rows.push({
        name: `DBOS ${version}, same Postgres: W1 in Promise.all batches of ${IN_FLIGHT}`, median: dbosRunsPerSec!, unit: 'runs/s',
        floor: floorRunsPerSec(median(dbos.map((x) => x.floor.async))), ratio: median(dbos.map((x) => x.s.batches.runsPerSec / floorRunsPerSec(x.floor.async))),
        note: `${RUNS} runs after a batch of warm-up; ${num(median(dbos.map((x) => x.s.batches.usPerStep)))} µs/step; floor: runs/s at one async pg commit per step`,
      });
    } else {
      later.push({ name: 'DBOS on the same Postgres', median: Number.NaN, unit: '', note: `not measured: ${'skipped' in peer ? peer.skipped : ''}` });
    }

    const plain = median(hooks.map((h) => h.plain.perSec));
    const hookRow = (name: string, pick: (h: (typeof hooks)[number]) => { perSec: number; ms: number; bad: number; runs: number; batches: number; commits: number; cpuUsPerDelivery: number }, note: string): Row => {
      const bad = hooks.reduce((n, h) => n + pick(h).bad + (DELIVERIES - pick(h).runs), 0);
      return {
        name, median: median(hooks.map((h) => pick(h).perSec)), unit: 'runs/s', floor: plain, ratio: median(hooks.map((h) => pick(h).perSec / h.plain.perSec)),
        note: `${note}; ${num(median(hooks.map((h) => pick(h).ms)))} ms per sample; ${num(median(hooks.map((h) => pick(h).batches / pick(h).commits)))} batches/commit; ` +
          `main-thread CPU ${num(median(hooks.map((h) => pick(h).cpuUsPerDelivery)))} µs/delivery; ` + (bad === 0 ? 'checked: every answer 202 and one run per delivery' : `${bad} BAD ANSWERS OR MISSING RUNS`),
      };
    };
    rows.push({ name: `floor: a plain Fastify route, ${DELIVERIES} JSON POSTs over ${HOOK_CONNECTIONS} connections`, median: plain, unit: 'req/s', note: 'the same client, bodies and machine; answers at once' });
    rows.push(hookRow(`Webhook intake, SQLite (FULL), ${DELIVERIES} deliveries over ${HOOK_CONNECTIONS} connections`, (h) => h.sqlite, 'as the webhook group: server, engine and client in this process (CPU counts all three)'));
    rows.push(hookRow('Webhook intake, Postgres, 1 node in this process', (h) => h.pg, 'server, engine and client in this process, as the SQLite row (CPU counts all three)'));
    rows.push(hookRow('Webhook intake, Postgres, 1 node process', (h) => h.pg1, 'the server in a child process, the client here (CPU: the node\'s main thread only)'));
    rows.push(hookRow('Webhook intake, Postgres, 3 node processes', (h) => h.pg3, 'three servers in child processes on one database, the 50 connections dealt out among them (17/17/16), the client here (CPU: the nodes\' main threads together)'));
    rows.push(...await chatRows(reps, fresh, progress));
    return [...rows, ...later];
  } finally {
    await cluster.stop();
  }
}
