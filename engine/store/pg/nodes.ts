/**
 * The nodes sharing a Postgres store (schema 002): each process registers itself at start,
 * beats its heartbeat, and records a clean stop. `list` and `handovers` are what the
 * Nodes view and `kowalski nodes` show.
 */
import { CHANNELS } from './channels.js';
import type { SyncPg } from './sync-pg.js';
import type { HandoverRecord, NodeRecord } from '../../../contract/nodes.js';
export type { HandoverRecord, NodeRecord } from '../../../contract/nodes.js';

export function pgNodes(pg: SyncPg) {
  return {
    register(n: { id: string; name: string; pid: number; folderId: string }): void {
      pg.run('INSERT INTO nodes (id, name, pid, started_at, heartbeat_at, folder_id) VALUES ($1, $2, $3, kw_now(), kw_now(), $4)', [n.id, n.name, n.pid, n.folderId]);
    },
    /**
     * The earlier nodes of this data folder that never stopped cleanly are dead (this node
     * holds the folder's lock): their leases expire now, so this node can take their runs
     * (and chat turns) back at once (a hand-over `expired`, as after any dead node).
     */
    buryPredecessors(id: string, folderId: string): void {
      pg.batch([
        { sql: 'UPDATE run_leases SET expires_at = 0 WHERE node_id IN (SELECT n.id FROM nodes n WHERE n.folder_id = $2 AND n.id <> $1 AND n.stopped_at IS NULL)', params: [id, folderId] },
        { sql: 'UPDATE chat_leases SET expires_at = 0 WHERE node_id IN (SELECT n.id FROM nodes n WHERE n.folder_id = $2 AND n.id <> $1 AND n.stopped_at IS NULL)', params: [id, folderId] },
      ]);
    },
    setUrl(id: string, url: string): void {
      pg.run('UPDATE nodes SET url = $2 WHERE id = $1', [id, url]);
    },
    /** A clean stop: its leases are given up at once (its parked and unfinished runs are free for the others). */
    stopped(id: string): void {
      pg.batch([
        { sql: 'UPDATE run_leases SET node_id = NULL, expires_at = 0 WHERE node_id = $1', params: [id] },
        { sql: 'UPDATE chat_leases SET node_id = NULL, expires_at = 0 WHERE node_id = $1', params: [id] },
        { sql: 'UPDATE nodes SET stopped_at = kw_now() WHERE id = $1', params: [id] },
        { sql: `SELECT pg_notify('${CHANNELS.leases}', $1)`, params: [id] },
      ]);
    },
    /**
     * Newest first; nodes stopped or silent for longer than `forgetAfterMs` are left out.
     * `chatLeases`: the table is there (a reader may meet a database no node of this
     * version has migrated yet: no chat turns are counted there).
     */
    list(forgetAfterMs: number, chatLeases = true): NodeRecord[] {
      const chatTurns = chatLeases ? '(SELECT count(*)::integer FROM chat_leases c WHERE c.node_id = n.id)' : '0';
      return pg.all<{ id: string; name: string; url: string | null; pid: number; started_at: number; heartbeat_at: number; stopped_at: number | null; steps_running: number; runs_held: number; chat_turns: number; age: number }>(
        `SELECT n.*, kw_now() - n.heartbeat_at AS age,
           (SELECT count(*)::integer FROM run_leases l WHERE l.node_id = n.id) AS runs_held,
           ${chatTurns} AS chat_turns
         FROM nodes n WHERE coalesce(n.stopped_at, n.heartbeat_at) > kw_now() - $1 ORDER BY n.started_at DESC`, [forgetAfterMs],
      ).map((r) => ({
        id: r.id, name: r.name, url: r.url, pid: r.pid, startedAt: r.started_at, heartbeatAt: r.heartbeat_at, stoppedAt: r.stopped_at, stepsRunning: r.steps_running,
        runsHeld: r.runs_held, chatTurnsHeld: r.chat_turns, heartbeatAgeMs: r.age,
      }));
    },
    /** The newest hand-overs first. */
    handovers(limit: number): HandoverRecord[] {
      return pg.all<{ run_id: string; from_node: string; to_node: string; epoch: number; at: number; reason: 'expired' | 'released' }>(
        'SELECT run_id, from_node, to_node, epoch, at, reason FROM lease_handovers ORDER BY id DESC LIMIT $1', [limit],
      ).map((r) => ({ runId: r.run_id, fromNode: r.from_node, toNode: r.to_node, epoch: r.epoch, at: r.at, reason: r.reason }));
    },
  };
}

export type PgNodes = ReturnType<typeof pgNodes>;
