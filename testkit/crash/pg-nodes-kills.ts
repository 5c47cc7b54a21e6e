/**
 * Three `kowalski serve` nodes on one Postgres store while one of them is SIGKILLed at
 * random moments and started again on its data folder: the CI test
 * (test/crash/pg-three-nodes.test.ts) and the soak (bench/soak-pg-nodes.ts) both run this, then
 * check the invariants of pg-nodes-check.ts.
 *
 * - The runs come in `kills + 1` waves. Clients start each wave's runs through the three
 *   nodes in turn (`POST /api/hordes/:id/runs`; a node that does not answer passes the
 *   run on to the next); every `gateEvery`th run is of the `gate` horde, which parks.
 * - Once a random share of a wave (half of it or more) is acknowledged, the killer waits a
 *   random delay, cut short when at most two runs are left in flight (steps are fast: a
 *   fixed delay would often land after the wave is done), and SIGKILLs a random node among
 *   those executing runs, notes the unfinished runs that node held, and starts it again (a
 *   new node id); the rest of that wave goes to the other nodes, and the next wave starts
 *   once the killed node listens again.
 * - The approver watches the store: a run parked (its lease free) is approved once a kill
 *   has happened since it parked (or all kills are done), through a node of another data
 *   folder than the node that parked it; until then it must stay parked.
 * - A node whose engine stopped (the fence refused its commit after it stalled past its
 *   lease, which an overloaded machine can cause) is counted and started again, as its
 *   operator would; what it held must pass to the others like a killed node's runs.
 * - With `chat`, clients also chat with the agent team through the nodes and Slack sends
 *   them events, spread over the same waves (pg-nodes-chat.ts); a kill picks among the
 *   nodes running runs or chat turns, and the chat invariants are checked with the runs'.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { checkNodes } from './pg-nodes-check.js';
import type { NodesBooks, NodesCheck } from './pg-nodes-check.js';
import { NodesChat } from './pg-nodes-chat.js';
import type { NodesChatOptions, NodesChatResult } from './pg-nodes-chat.js';
import { call, killNode, nodeConfig, startNode, stopNode, writeNodeHome } from './pg-nodes.js';
import type { Answer, NodeSlot, NodeWatch } from './pg-nodes.js';

export interface NodesKillsOptions {
  /** An empty database of a running cluster. */
  url: string;
  runs: number;
  kills: number;
  /** Every this-many-th run parks (default 10). */
  gateEvery?: number;
  /** Each step command's duration, s (default 0.05). */
  sleepS?: number;
  /** `[store] lease_secs` of every node (default 1). */
  leaseSecs?: number;
  /** Concurrent clients starting runs (default 3). */
  clients?: number;
  /** A kill lands up to this long after its share of the wave was acknowledged, ms (default 1500). */
  maxDelayMs?: number;
  /** The whole soak's bound, ms (default 30 min). */
  limitMs?: number;
  /** Chat sessions and Slack events through the nodes as well (issue 40). */
  chat?: NodesChatOptions;
  onProgress?(line: string): void;
}

export interface NodesKillsResult extends NodesCheck {
  acked: number;
  kills: number;
  /** Node lives, kills and restarts of stopped engines included. */
  lives: number;
  /** Engines stopped by the fence (then started again). */
  fenced: number;
  parked: number;
  approvals: { sent: number; acknowledged: number; unanswered: number; elsewhere: number };
  startsUnanswered: number;
  /** Kill to listening again, ms. */
  restartMs: { median: number; max: number };
  seconds: number;
  /** With `chat`: its invariants' counts (its problems are in `problems`). */
  chat?: Omit<NodesChatResult, 'problems'>;
}

const NODES = 3;

/** The answer of a node whose engine has stopped: like no answer, the request goes to another node. */
const stoppedAnswer = (a: Answer): boolean => (a.body.error as { code?: string } | undefined)?.code === 'KW_ERR_STORE_FENCED';

export async function nodesUnderKills(options: NodesKillsOptions): Promise<NodesKillsResult> {
  const o = { gateEvery: 10, sleepS: 0.05, leaseSecs: 1, clients: 3, maxDelayMs: 1500, limitMs: 1_800_000, ...options };
  const began = Date.now();
  const deadline = began + o.limitMs;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-pg-nodes-'));
  const ledger = path.join(dir, 'ledger');
  fs.writeFileSync(ledger, '');
  const files = path.join(dir, 'files');
  const problems: string[] = [];
  const books: NodesBooks = { acked: new Map(), parkedBy: new Map(), approvalSentTo: new Map(), orphans: new Map() };
  const approvals = { sent: 0, acknowledged: 0, unanswered: 0, elsewhere: 0 };
  const restartMs: number[] = [];
  let startsUnanswered = 0;
  let kills = 0;
  /** Kills whose node listens again: wave `w` starts once this is `w`. */
  let restarted = 0;
  let fenced = 0;
  let startsDone = false;
  /** Parked runs whose approval was acknowledged, and the kill count when each run was first seen parked. */
  const approved = new Set<string>();
  const parkedAtKill = new Map<string, number>();
  /** Parked runs that left the state with no approval sent (each a problem, told once). */
  const unparked = new Set<string>();
  const waveOf = (i: number): number => Math.floor((i * (o.kills + 1)) / o.runs);
  /** How many runs the waves before wave `w` hold. */
  const before = (w: number): number => Array.from({ length: o.runs }, (_, i) => i).filter((i) => waveOf(i) < w).length;

  const db = new pg.Client({ connectionString: o.url });
  await db.connect();
  const slots: NodeSlot[] = Array.from({ length: NODES }, (_, index) => ({ index, home: path.join(dir, `node${index}`), ids: [] }));
  for (const s of slots) writeNodeHome(s.home, { url: o.url, files, leaseSecs: o.leaseSecs, ledger, sleepS: o.sleepS });
  const chat = o.chat === undefined ? undefined : new NodesChat(o.chat, dir);
  await chat?.setUp(slots);
  const watchOf = (slot: NodeSlot): NodeWatch => ({
    // A node that ended by itself is a problem; it is started again so that the rest goes on.
    died(how, stderr) {
      problems.push(`node ${slot.index} (${slot.ids.at(-1)}) ended by itself (${how}): ${stderr.slice(-1500)}`);
      start(slot).catch((err: unknown) => problems.push(`node ${slot.index} did not start again: ${String(err)}`));
    },
    engineStopped(line, node) {
      fenced++;
      o.onProgress?.(`node ${slot.index} (${node}): ${line}; starting it again`);
      if (!/no longer held by node/.test(line)) problems.push(`node ${slot.index} (${node}): ${line}`);
      if (slot.up?.nodeId !== node) return; // the killer got there first
      void (async () => {
        await killNode(slot);
        books.orphans.set(node, await heldBy(node));
        chat?.ended(node, await chatsHeldBy(node));
        await start(slot);
      })().catch((err: unknown) => problems.push(`node ${slot.index} did not start again: ${String(err)}`));
    },
  });
  const start = async (slot: NodeSlot): Promise<void> => {
    await chat?.beforeStart(slot, nodeConfig({ url: o.url, files, leaseSecs: o.leaseSecs }));
    await startNode(slot, db, watchOf(slot), chat?.env);
    chat?.started(slot);
  };
  /** The chat turns a node that is gone still holds (their lease passes to another node once it lapses). */
  const chatsHeldBy = async (node: string): Promise<number> => Number((await db.query<{ n: string }>(
    'SELECT count(*) AS n FROM chat_leases WHERE node_id = $1', [node])).rows[0]!.n);
  /** The unfinished runs a node that is gone still holds: each must pass to another node with reason expired. */
  const heldBy = async (node: string): Promise<string[]> => (await db.query<{ run_id: string }>(
    "SELECT l.run_id FROM run_leases l JOIN runs r ON r.id = l.run_id WHERE l.node_id = $1 AND r.state IN ('queued', 'running')", [node])).rows.map((r) => r.run_id);

  const inFlight = async (): Promise<number> => Number((await db.query<{ n: string }>(
    "SELECT count(*) AS n FROM runs WHERE state IN ('queued', 'running')")).rows[0]!.n);

  const until = async (condition: () => boolean, what: string): Promise<void> => {
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} (${o.limitMs} ms); problems so far: ${problems.slice(0, 5).join('; ')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const pick = <T>(xs: T[]): T | undefined => xs[Math.floor(Math.random() * xs.length)];

  /** Start run `i` through node i mod 3; a node that does not answer hands it to the next. */
  const startRun = async (i: number): Promise<void> => {
    const horde = (i + 1) % o.gateEvery === 0 ? 'gate' : 'soak';
    for (let k = 0; ; k++) {
      const slot = slots[(i + k) % NODES]!;
      if (slot.up === undefined) {
        if (k % NODES === NODES - 1) await until(() => slots.some((s) => s.up !== undefined), 'a node to start runs on');
        continue;
      }
      const a = await call(slot, 'POST', `/api/hordes/${horde}/runs`, { input: {} });
      if (a === undefined || stoppedAnswer(a)) {
        startsUnanswered++; // the node died or stopped: the run may exist, unacknowledged
        continue;
      }
      if (a.status === 201 && typeof a.body.runId === 'string') books.acked.set(a.body.runId, horde);
      else problems.push(`POST /api/hordes/${horde}/runs to node ${slot.index}: ${a.status} ${JSON.stringify(a.body)}`);
      return;
    }
  };

  let next = 0;
  const client = async (): Promise<void> => {
    for (let i = next++; i < o.runs; i = next++) {
      await until(() => restarted >= waveOf(i), `wave ${waveOf(i)}`);
      await startRun(i);
    }
  };

  const killer = async (): Promise<void> => {
    for (let k = 1; k <= o.kills; k++) {
      const share = before(k - 1) + Math.ceil((before(k) - before(k - 1)) * (0.5 + Math.random() / 2));
      await until(() => books.acked.size >= share, `${share} runs acknowledged`);
      const killAt = Date.now() + Math.random() * o.maxDelayMs;
      while (Date.now() < killAt && await inFlight() > 2) await new Promise((resolve) => setTimeout(resolve, 25));
      await until(() => slots.every((s) => s.up !== undefined), 'every node up');
      // A random node among those executing runs now (with chat: those also running a chat turn, when some are), any node when none is, so that the kill cuts work in flight.
      const holders = async (sql: string): Promise<Set<string>> => new Set((await db.query<{ node_id: string }>(sql)).rows.map((r) => r.node_id));
      const busy = await holders("SELECT DISTINCT l.node_id FROM run_leases l JOIN runs r ON r.id = l.run_id WHERE r.state IN ('queued', 'running') AND l.node_id IS NOT NULL");
      const chatting = chat === undefined ? new Set<string>() : await holders('SELECT DISTINCT node_id FROM chat_leases WHERE node_id IS NOT NULL');
      const up = (ids: Set<string>): NodeSlot[] => slots.filter((s) => ids.has(s.up?.nodeId ?? ''));
      const slot = pick(up(new Set([...busy].filter((id) => chatting.has(id))))) ?? pick(up(new Set([...busy, ...chatting]))) ?? pick(slots)!;
      if (slot.up === undefined) {
        k--; // a node stopped by the fence is being started again meanwhile: try this kill again
        continue;
      }
      const killedAt = Date.now();
      const acked = books.acked.size;
      const node = await killNode(slot);
      kills++;
      const held = await heldBy(node);
      books.orphans.set(node, held);
      const chats = await chatsHeldBy(node);
      chat?.ended(node, chats);
      await start(slot);
      restarted++;
      restartMs.push(Date.now() - killedAt);
      o.onProgress?.(`kill ${kills} (${acked} runs acknowledged): node ${slot.index} (${node}) held ${held.length} unfinished runs${chat === undefined ? '' : ` and ${chats} chat turns`}; listening again as ${slot.up?.nodeId} after ${Date.now() - killedAt} ms`);
    }
  };

  /** One look at the store: parked runs seen, parked runs that must still be parked, approvals due. True once every run has finished. */
  const watch = async (): Promise<boolean> => {
    const { rows } = await db.query<{ id: string; state: string; last_node: string | null; free: boolean | null }>(
      `SELECT r.id, r.state, l.last_node, (l.node_id IS NULL OR l.expires_at <= kw_now()) AS free
       FROM runs r LEFT JOIN run_leases l ON l.run_id = r.id`);
    const due: Array<{ id: string; parkedBy: string }> = [];
    for (const r of rows) {
      const parkedBy = books.parkedBy.get(r.id);
      if (parkedBy !== undefined && !books.approvalSentTo.has(r.id) && r.state !== 'awaiting_input' && !unparked.has(r.id)) {
        unparked.add(r.id);
        problems.push(`run ${r.id} parked by ${parkedBy} is ${r.state}, and no approval was sent`);
      }
      if (r.state !== 'awaiting_input' || r.free !== true || r.last_node === null || approved.has(r.id)) continue;
      if (parkedBy === undefined) {
        books.parkedBy.set(r.id, r.last_node);
        parkedAtKill.set(r.id, kills);
      }
      if (kills > parkedAtKill.get(r.id)! || kills >= o.kills) due.push({ id: r.id, parkedBy: books.parkedBy.get(r.id)! });
    }
    await Promise.all(due.map(approve));
    return startsDone && kills >= o.kills && rows.length > 0 && rows.every((r) => r.state !== 'queued' && r.state !== 'running' && r.state !== 'awaiting_input');
  };

  /** Approve through a node of another data folder than the one whose node parked the run. */
  const approve = async ({ id, parkedBy }: { id: string; parkedBy: string }): Promise<void> => {
    const slot = pick(slots.filter((s) => s.up !== undefined && !s.ids.includes(parkedBy)));
    if (slot === undefined) return; // the others are down: the next look tries again
    const via = slot.up!.nodeId;
    books.approvalSentTo.set(id, [...(books.approvalSentTo.get(id) ?? []), via]);
    approvals.sent++;
    const a = await call(slot, 'POST', `/api/runs/${id}/approve`, {});
    if (a === undefined || stoppedAnswer(a)) approvals.unanswered++;
    else if (a.status === 200) {
      approvals.acknowledged++;
      approved.add(id);
    } else if (a.status === 409 && (a.body.error as { code?: string } | undefined)?.code === 'KW_ERR_RUN_ELSEWHERE') approvals.elsewhere++;
    else problems.push(`approve ${id} through node ${slot.index} (${via}): ${a.status} ${JSON.stringify(a.body)}`);
  };

  try {
    await start(slots[0]!); // it migrates the database; the others then start together
    await Promise.all(slots.slice(1).map(start));
    o.onProgress?.(`3 nodes listening after ${Date.now() - began} ms`);
    const watching = (async () => {
      while (!(await watch())) {
        if (Date.now() > deadline) throw new Error(`runs still unfinished after ${o.limitMs} ms; ${await stuck(db, slots)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const starting = Promise.all(Array.from({ length: o.clients }, client)).then(() => void (startsDone = true));
    const chatting = chat?.drive({ slots, until, restarted: () => restarted, waves: o.kills + 1, problems });
    await Promise.all([starting, killer(), watching, chatting]);
    if (chat !== undefined) await chat.posted({ slots, until, restarted: () => restarted, waves: o.kills + 1, problems });
    await until(() => slots.every((s) => s.up !== undefined), 'every node up');
    for (const slot of slots) {
      const how = await stopNode(slot);
      if (how !== '0') problems.push(`node ${slot.index} did not stop cleanly on SIGTERM: ${how}`);
    }
    const check = checkNodes(o.url, ledger, books);
    const chatCheck = await chat?.check(slots[0]!.home);
    const median = [...restartMs].sort((a, b) => a - b)[Math.floor(restartMs.length / 2)] ?? NaN;
    return {
      ...check,
      problems: [...problems, ...check.problems, ...(chatCheck?.problems ?? [])],
      acked: books.acked.size,
      kills,
      lives: slots.reduce((n, s) => n + s.ids.length, 0),
      fenced,
      parked: books.parkedBy.size,
      approvals,
      startsUnanswered,
      restartMs: { median, max: Math.max(...restartMs) },
      seconds: Math.round((Date.now() - began) / 1000),
      ...(chatCheck === undefined ? {} : { chat: (({ problems: _, ...counts }) => counts)(chatCheck) }),
    };
  } finally {
    for (const slot of slots) if (slot.up !== undefined) await killNode(slot);
    await db.end();
    await chat?.close();
    if (process.env.KW_KEEP === undefined) fs.rmSync(dir, { recursive: true, force: true });
    else o.onProgress?.(`kept ${dir}`);
  }
}

/** What the store says of the runs not finished, and of the nodes, for the message of a soak that ran out of time. */
async function stuck(db: pg.Client, slots: NodeSlot[]): Promise<string> {
  const runs = await db.query<{ state: string; node_id: string | null; live: boolean | null; n: string }>(
    `SELECT r.state, l.node_id, l.expires_at > kw_now() AS live, count(*) AS n FROM runs r LEFT JOIN run_leases l ON l.run_id = r.id
     WHERE r.state <> 'succeeded' GROUP BY 1, 2, 3 ORDER BY 1, 2`);
  const nodes = await db.query<{ id: string; age: string; stopped_at: string | null; steps_running: number }>(
    'SELECT id, kw_now() - heartbeat_at AS age, stopped_at, steps_running FROM nodes ORDER BY started_at');
  const up = slots.map((s) => `${s.index}: ${s.up?.nodeId ?? 'down'}`).join(', ');
  return `runs not succeeded (state, lease holder, live, count): ${JSON.stringify(runs.rows)}; nodes (id, heartbeat age ms, stopped, steps running): ${JSON.stringify(nodes.rows)}; slots ${up}`;
}
