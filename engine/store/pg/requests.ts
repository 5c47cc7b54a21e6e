/**
 * Requests one node leaves for another (schema 003): an operator's action on a run the
 * other node executes. `leave` and `answer` notify at their commit (channels.ts); `take`
 * marks what it returns taken, so each request is performed once, by the node asked.
 */
import { CHANNELS } from './channels.js';
import type { SyncPg } from './sync-pg.js';

export type ForwardedAction = 'approve' | 'deny' | 'cancel' | 'review_edit' | 'raise_budget';

export interface NodeRequest {
  id: number;
  fromNode: string;
  runId: string;
  action: ForwardedAction;
  args: Record<string, unknown>;
}

export type RequestAnswer = { ok: true; value: unknown } | { ok: false; code: string; message: string };

interface RequestRow {
  id: number;
  from_node: string;
  run_id: string;
  action: ForwardedAction;
  args: Record<string, unknown>;
}

export function pgRequests(pg: SyncPg) {
  return {
    /** Leave a request for node `to` (and wake it); returns the request's id. */
    leave(from: string, to: string, runId: string, action: ForwardedAction, args: Record<string, unknown>): number {
      const [rows] = pg.batch([
        { sql: 'INSERT INTO node_requests (node_id, from_node, run_id, action, args, created_at) VALUES ($1, $2, $3, $4, $5::jsonb, kw_now()) RETURNING id', params: [to, from, runId, action, JSON.stringify(args)] },
        { sql: `SELECT pg_notify('${CHANNELS.requests}', $1)`, params: [to] },
      ]);
      return (rows as Array<{ id: number }>)[0]!.id;
    },
    /** The requests waiting for this node, now taken by it, oldest first. Requests older than an hour (their asker died) are deleted on the way. */
    take(nodeId: string): NodeRequest[] {
      const [, rows] = pg.batch([
        { sql: 'DELETE FROM node_requests WHERE created_at < kw_now() - 3600000' },
        { sql: 'UPDATE node_requests SET taken_at = kw_now() WHERE node_id = $1 AND taken_at IS NULL RETURNING id, from_node, run_id, action, args', params: [nodeId] },
      ]);
      return (rows as RequestRow[]).sort((a, b) => a.id - b.id).map((r) => ({ id: r.id, fromNode: r.from_node, runId: r.run_id, action: r.action, args: r.args }));
    },
    /** Write the answer to a request (and wake the node that asked). */
    answer(id: number, answer: RequestAnswer): void {
      pg.batch([
        { sql: 'UPDATE node_requests SET answer = $2::jsonb, answered_at = kw_now() WHERE id = $1', params: [id, JSON.stringify(answer)] },
        { sql: `SELECT pg_notify('${CHANNELS.answers}', $1)`, params: [String(id)] },
      ]);
    },
    /** The answer, once there is one; `taken`: whether the node asked has begun. */
    state(id: number): { taken: boolean; answer: RequestAnswer | undefined } | undefined {
      const row = pg.get<{ taken: boolean; answer: RequestAnswer | null }>('SELECT taken_at IS NOT NULL AS taken, answer FROM node_requests WHERE id = $1', [id]);
      return row === undefined ? undefined : { taken: row.taken, answer: row.answer ?? undefined };
    },
    /** Withdraw a request nobody took: true when it was withdrawn (it will never be performed). */
    withdraw(id: number): boolean {
      return pg.run('DELETE FROM node_requests WHERE id = $1 AND taken_at IS NULL', [id]) === 1;
    },
    /** The asking node read the answer (or gave up on a request that was taken). */
    forget(id: number): void {
      pg.run('DELETE FROM node_requests WHERE id = $1', [id]);
    },
  };
}

export type PgRequests = ReturnType<typeof pgRequests>;
