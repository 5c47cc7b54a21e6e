/**
 * Run leases on Postgres (schema 002): the runs this node executes, at the epoch it took
 * each. A new run's lease starts with its first commit; a run loaded from the log (to
 * approve it, to resume it) is claimed first, which raises its epoch; a run this node
 * drops is released. Every commit calls `kw_fence` before its writes, so a node that was
 * paused (GC, SIGSTOP) while its lease expired and another node took the run cannot write
 * into that run again. `heartbeat` renews what this node holds; `adoptable` lists the
 * unfinished runs nobody holds (their node died or stopped).
 */
import { FINAL_RUN_STATES } from '../../../actors/index.js';
import type { RunState } from '../../../actors/index.js';
import { RunHeldElsewhere } from '../leases.js';
import type { RunLeases } from '../leases.js';
import type { PgSession } from './session.js';
import type { SyncPg } from './sync-pg.js';

export interface PgLeaseOptions {
  /** This node's id (a row of `nodes`). */
  nodeId: string;
  /** How long a lease lasts without a heartbeat, ms. */
  ttlMs: number;
}

interface LeaseRow {
  node_id: string | null;
  last_node: string;
  epoch: number;
  live: boolean;
  url: string | null;
}

export class PgLeases implements RunLeases {
  /** Runs this node holds → the epoch it took (0: a new run whose first commit has not been written). */
  private readonly held = new Map<string, number>();

  constructor(private readonly pg: SyncPg, private readonly session: PgSession, private readonly options: PgLeaseOptions) {}

  get ttlMs(): number {
    return this.options.ttlMs;
  }

  created(runId: string): void {
    this.held.set(runId, 0);
  }

  claim(runId: string): void {
    const { nodeId, ttlMs } = this.options;
    const epoch = this.pg.transaction(() => {
      // SKIP LOCKED: a row another node is claiming, or committing into (kw_fence reads it FOR SHARE), is that node's.
      const row = this.pg.get<LeaseRow>(
        `SELECT l.node_id, l.last_node, l.epoch, (l.node_id IS NOT NULL AND l.expires_at > kw_now()) AS live, n.url
         FROM run_leases l LEFT JOIN nodes n ON n.id = l.node_id WHERE l.run_id = $1 FOR UPDATE OF l SKIP LOCKED`, [runId]);
      if (row === undefined) {
        // No row: a run no node has held yet here (copied in from another store), or a row locked by a node taking it now.
        const inserted = this.pg.get<{ epoch: number }>(
          `INSERT INTO run_leases (run_id, node_id, last_node, epoch, expires_at) VALUES ($1, $2, $2, 1, kw_now() + $3)
           ON CONFLICT (run_id) DO NOTHING RETURNING epoch`, [runId, nodeId, ttlMs]);
        if (inserted === undefined) throw new RunHeldElsewhere(runId, undefined, undefined);
        return inserted.epoch;
      }
      if (row.live && row.node_id !== nodeId) throw new RunHeldElsewhere(runId, row.node_id ?? undefined, row.url ?? undefined);
      const next = row.epoch + 1;
      this.pg.run('UPDATE run_leases SET node_id = $2, last_node = $2, epoch = $3, expires_at = kw_now() + $4 WHERE run_id = $1', [runId, nodeId, next, ttlMs]);
      if (row.last_node !== nodeId) {
        this.pg.run(
          'INSERT INTO lease_handovers (run_id, from_node, to_node, epoch, at, reason) VALUES ($1, $2, $3, $4, kw_now(), $5)',
          [runId, row.last_node, nodeId, next, row.node_id === null ? 'released' : 'expired']);
      }
      return next;
    })();
    this.held.set(runId, epoch);
  }

  release(runId: string): void {
    const epoch = this.held.get(runId);
    if (epoch === undefined) return;
    this.held.delete(runId);
    this.session.write('UPDATE run_leases SET node_id = NULL, expires_at = 0 WHERE run_id = $1 AND node_id = $2 AND epoch = $3', [runId, this.options.nodeId, epoch]);
  }

  fence(batches: ReadonlyArray<{ runId: string; state: RunState }>): void {
    const runs = [...new Set(batches.map((b) => b.runId))];
    // -1: a run this node does not hold (never expected): kw_fence refuses it.
    const epochs = runs.map((r) => this.held.get(r) ?? -1);
    this.session.write('SELECT kw_fence($1, $2, $3, $4)', [this.options.nodeId, runs, epochs, this.options.ttlMs]);
    for (const r of runs) if (this.held.get(r) === 0) this.held.set(r, 1);
    // A run this commit finishes writes nothing more (a step still running is being killed, and its end is not recorded):
    // its lease is given up in this same commit, not in a commit of its own.
    const finished = [...new Set(batches.filter((b) => FINAL_RUN_STATES.has(b.state)).map((b) => b.runId))];
    if (finished.length === 0) return;
    this.session.write('UPDATE run_leases SET node_id = NULL, expires_at = 0 WHERE run_id = ANY ($1) AND node_id = $2', [finished, this.options.nodeId]);
    for (const r of finished) this.held.delete(r);
  }

  /** Renew every lease this node still holds (its runs' and its chat turns'), and its heartbeat with how many steps it runs (one round trip). */
  heartbeat(stepsRunning: number): void {
    const { nodeId, ttlMs } = this.options;
    this.pg.batch([
      { sql: 'UPDATE nodes SET heartbeat_at = kw_now(), steps_running = $2 WHERE id = $1', params: [nodeId, stepsRunning] },
      { sql: 'UPDATE run_leases SET expires_at = kw_now() + $2 WHERE node_id = $1', params: [nodeId, ttlMs] },
      { sql: 'UPDATE chat_leases SET expires_at = kw_now() + $2 WHERE node_id = $1', params: [nodeId, ttlMs] },
    ]);
  }

  /** Unfinished runs no live node holds, oldest first: this node may claim them. */
  adoptable(limit: number): string[] {
    return this.pg.all<{ id: string }>(
      `SELECT r.id FROM runs r LEFT JOIN run_leases l ON l.run_id = r.id
       WHERE r.state IN ('queued', 'running') AND (l.run_id IS NULL OR l.node_id IS NULL OR l.expires_at <= kw_now())
       ORDER BY r.created_at LIMIT $1`, [limit]).map((r) => r.id);
  }
}
