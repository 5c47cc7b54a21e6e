/** The traces of model calls and the tool-calling modes learned, on Postgres (migration 7): the same functions as ../../sql/traces.ts. */
import type { ReplayRow, TraceQueries, TraceRecord, TraceSpendRow, TraceSummaryRecord } from '../../sql/traces.js';
import { numbered, whereOf } from '../../where.js';
import type { PgSession } from '../session.js';

const SUMMARY_COLUMNS = 'id, run_id, step, attempt, seq, provider, model, mode, input_tokens, output_tokens, cost_usd, latency_ms, attempts, tool_calls, error_code, error, started_at, session_id, parent_id, agent';

export function pgTraceQueries(s: PgSession): TraceQueries {
  return {
    // A read (RETURNING): inside a transaction it sends what waits first, so the row goes in the transaction's order.
    insert: (t) => s.get<{ id: number }>(
      `INSERT INTO traces (run_id, step, attempt, seq, provider, model, mode, input_tokens, output_tokens, cost_usd, latency_ms, attempts, tool_calls,
         error_code, error, started_at, data, session_id, parent_id, agent)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20) RETURNING id`,
      [t.runId, t.step, t.attempt, t.seq, t.provider, t.model, t.mode, t.inputTokens, t.outputTokens, t.costUsd, t.latencyMs, t.attempts, t.toolCalls,
        t.errorCode, t.error, t.startedAt, t.data, t.sessionId, t.parentId, t.agent])!.id,
    updateCalls: (id, toolCalls, data) => s.write('UPDATE traces SET tool_calls = $1, data = $2 WHERE id = $3', [toolCalls, data, id]),
    byId: (id) => s.get<TraceRecord>('SELECT * FROM traces WHERE id = $1', [id]),
    list: (f) => {
      const where = whereOf([
        // A run's calls, and those of its agent steps' turns (their traces are their sessions').
        f.runId === undefined ? undefined : ['(run_id = ? OR session_id IN (SELECT session_id FROM step_sessions WHERE run_id = ?))', f.runId, f.runId],
        f.sessionId === undefined ? undefined : ['session_id = ?', f.sessionId],
        f.parentId === undefined ? undefined : ['parent_id = ?', f.parentId],
        f.before === undefined ? undefined : ['id < ?', f.before],
      ]);
      return s.all<TraceSummaryRecord>(numbered(`SELECT ${SUMMARY_COLUMNS} FROM traces ${where.sql} ORDER BY id DESC LIMIT ?`), [...where.params, f.limit]);
    },
    spentBy: (runId) => s.get<TraceSpendRow>(
      `SELECT count(*) AS calls, coalesce(sum(input_tokens + output_tokens), 0)::bigint AS tokens, coalesce(sum(cost_usd), 0)::double precision AS cost,
         count(*) FILTER (WHERE cost_usd IS NULL) AS unpriced, coalesce(sum(tool_calls), 0)::bigint AS tools
       FROM traces WHERE (run_id = $1 AND session_id IS NULL) OR session_id IN (SELECT session_id FROM step_sessions WHERE run_id = $1)`, [runId])!,
    replayRows: (runId, step) => s.all<ReplayRow>(
      'SELECT id, provider, model, mode, data FROM traces WHERE run_id = $1 AND step = $2 AND session_id IS NULL AND error_code IS NULL ORDER BY id', [runId, step]),
    chatCall: (sessionId, turn, node, seq) => s.get<{ id: number }>('SELECT id FROM traces WHERE session_id = $1 AND attempt = $2 AND step = $3 AND seq = $4', [sessionId, turn, node, seq])?.id,
    learnedMode: (model) => s.get<{ mode: string }>('SELECT mode FROM model_tool_modes WHERE model = $1', [model])?.mode,
    learn: (model, mode, at) => s.write(
      'INSERT INTO model_tool_modes (model, mode, learned_at) VALUES ($1, $2, $3) ON CONFLICT (model) DO UPDATE SET mode = excluded.mode, learned_at = excluded.learned_at',
      [model, mode, at]),
  };
}
