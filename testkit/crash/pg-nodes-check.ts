/**
 * The invariants of the nodes kill test (pg-nodes-kills.ts), read from the Postgres store
 * through the engine's own queries (RunQueries, EventLog on a SyncPg session) and from
 * the ledger the steps' commands kept outside the engine:
 * - every acknowledged run exists, and every run in the store succeeded;
 * - folding a run's events gives the state its `runs` row holds;
 * - each step passed exactly once; its passed attempt's command ran exactly once (one
 *   start, one end in the ledger) and no attempt after it ran; attempts before it were
 *   interrupted ones; no command ran for an attempt the store never recorded;
 * - each parked run was approved through a node other than the one that parked it, and
 *   the lease passed from the parking node to one the approval was sent to;
 * - each run a killed node was executing passed to another node with reason `expired`.
 */
import fs from 'node:fs';
import { foldRun } from '../../actors/index.js';
import { EventLog } from '../../engine/store/event-log.js';
import { openSyncPg } from '../../engine/store/pg/sync-pg.js';
import { PgSession } from '../../engine/store/pg/session.js';
import { postgresRunStore } from '../../engine/store/pg/run-store.js';
import { RunQueries } from '../../engine/store/queries.js';
import type { RunRow } from '../../engine/store/queries.js';
import { LEDGER_STEPS } from './pg-nodes.js';

/** What the driver knows from outside the engine. */
export interface NodesBooks {
  /** Acknowledged runs: id → the horde. */
  acked: Map<string, string>;
  /** Parked runs seen: id → the node holding the run when it parked (run_leases.last_node). */
  parkedBy: Map<string, string>;
  /** Parked runs: id → every node an approval was sent to. */
  approvalSentTo: Map<string, string[]>;
  /** Killed node → the unfinished runs it held when it died. */
  orphans: Map<string, string[]>;
}

export interface NodesCheck {
  runs: number;
  unacknowledged: number;
  steps: number;
  /** Ledger attempts (a command that started). */
  commands: number;
  /** Interrupted attempts whose step then ran again. */
  reruns: number;
  handovers: { expired: number; released: number };
  orphans: number;
  problems: string[];
}

const STEPS: Record<string, string[]> = { soak: ['a', 'b', 'c', 'd'], gate: ['a', 'b', 'check', 'd'] };

/** `run/step` → attempt → how many `start` and `end` lines its command wrote. */
export function readNodesLedger(file: string): Map<string, Map<number, { start: number; end: number }>> {
  const out = new Map<string, Map<number, { start: number; end: number }>>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const [run, step, attempt, what] = line.split(' ');
    if (what !== 'start' && what !== 'end') continue;
    const attempts = out.get(`${run}/${step}`) ?? new Map<number, { start: number; end: number }>();
    out.set(`${run}/${step}`, attempts);
    const a = attempts.get(Number(attempt)) ?? { start: 0, end: 0 };
    attempts.set(Number(attempt), a);
    a[what]++;
  }
  return out;
}

export function checkNodes(url: string, ledgerFile: string, books: NodesBooks): NodesCheck {
  const pg = openSyncPg(url, { applicationName: 'kowalski-check' });
  const session = new PgSession(pg);
  const store = postgresRunStore(session);
  const queries = new RunQueries(store);
  const log = new EventLog(store);
  const ledger = readNodesLedger(ledgerFile);
  const problems: string[] = [];
  const out: NodesCheck = { runs: 0, unacknowledged: 0, steps: 0, commands: 0, reruns: 0, handovers: { expired: 0, released: 0 }, orphans: 0, problems };
  try {
    const rows: RunRow[] = [];
    for (;;) {
      const page = queries.listRuns({ limit: 1000, ...(rows.length === 0 ? {} : { cursor: rows.at(-1)!.id }) });
      rows.push(...page);
      if (page.length < 1000) break;
    }
    out.runs = rows.length;
    const ids = new Set(rows.map((r) => r.id));
    for (const id of books.acked.keys()) if (!ids.has(id)) problems.push(`acknowledged run ${id} is not in the store`);
    out.unacknowledged = rows.filter((r) => !books.acked.has(r.id)).length;
    const handovers = session.all<{ run_id: string; from_node: string; to_node: string; reason: 'expired' | 'released' }>(
      'SELECT run_id, from_node, to_node, reason FROM lease_handovers ORDER BY id');
    out.handovers.expired = handovers.filter((h) => h.reason === 'expired').length;
    out.handovers.released = handovers.filter((h) => h.reason === 'released').length;
    for (const row of rows) checkRun(row, { queries, log, ledger, books, handovers, out });
    for (const [node, runs] of books.orphans) {
      for (const run of runs) {
        out.orphans++;
        if (!handovers.some((h) => h.run_id === run && h.from_node === node && h.reason === 'expired')) {
          problems.push(`run ${run} was held by killed node ${node}, and no hand-over from it with reason expired was recorded`);
        }
      }
    }
    return out;
  } finally {
    pg.close();
  }
}

interface RunCheckDeps {
  queries: RunQueries;
  log: EventLog;
  ledger: ReturnType<typeof readNodesLedger>;
  books: NodesBooks;
  handovers: Array<{ run_id: string; from_node: string; to_node: string; reason: string }>;
  out: NodesCheck;
}

function checkRun(row: RunRow, { queries, log, ledger, books, handovers, out }: RunCheckDeps): void {
  const problems = out.problems;
  const id = row.id;
  if (row.state !== 'succeeded') problems.push(`run ${id} (${row.hordeId}) is ${row.state}${row.error === null ? '' : `: ${row.error}`}`);
  const folded = foldRun(id, log.read(id).map((s) => s.event));
  if (!folded.ok) problems.push(`run ${id} does not replay: ${folded.reason}`);
  else if (folded.actor.state !== row.state) problems.push(`run ${id}: its events fold to ${folded.actor.state}, its row says ${row.state}`);
  const attempts = queries.attempts(id);
  for (const step of STEPS[row.hordeId] ?? []) {
    out.steps++;
    const mine = attempts.filter((a) => a.step === step);
    const passed = mine.filter((a) => a.state === 'passed');
    if (passed.length !== 1) {
      problems.push(`${id}/${step} passed ${passed.length} times`);
      continue;
    }
    const p = passed[0]!.attempt;
    for (const a of mine) {
      if (a.attempt < p && a.state !== 'interrupted') problems.push(`${id}/${step} attempt ${a.attempt} before the passed one is ${a.state}`);
      else if (a.attempt < p) out.reruns++;
    }
    if (!LEDGER_STEPS.includes(step)) continue;
    const ran = ledger.get(`${id}/${step}`) ?? new Map<number, { start: number; end: number }>();
    out.commands += ran.size;
    const at = ran.get(p);
    if (at?.start !== 1 || at.end !== 1) problems.push(`${id}/${step}: the passed attempt ${p}'s command left ${at?.start ?? 0} starts and ${at?.end ?? 0} ends in the ledger (want 1 and 1)`);
    for (const n of ran.keys()) {
      if (n > p) problems.push(`${id}/${step}: attempt ${n} ran after attempt ${p} passed`);
      if (!mine.some((a) => a.attempt === n)) problems.push(`${id}/${step}: attempt ${n} ran and the store has no such attempt`);
    }
  }
  if (row.hordeId !== 'gate') return;
  const granted = queries.approvals(id).filter((a) => a.state === 'granted' && a.reason === 'review');
  if (granted.length !== 1) problems.push(`gate run ${id} has ${granted.length} granted reviews`);
  const parkedBy = books.parkedBy.get(id);
  const sentTo = books.approvalSentTo.get(id) ?? [];
  if (parkedBy === undefined || sentTo.length === 0) {
    problems.push(`gate run ${id} was never seen parked and approved by the driver`);
    return;
  }
  if (sentTo.includes(parkedBy)) problems.push(`gate run ${id}: its approval was sent to ${parkedBy}, the node that parked it`);
  if (!handovers.some((h) => h.run_id === id && h.from_node === parkedBy && sentTo.includes(h.to_node))) {
    problems.push(`gate run ${id}: no hand-over from ${parkedBy} (which parked it) to a node its approval was sent to (${sentTo.join(', ')})`);
  }
}
