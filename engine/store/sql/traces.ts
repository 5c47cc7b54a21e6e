/**
 * The traces of model calls (`traces`, migrations 2 and 5) and what each model learned
 * about tool calling (`model_tool_modes`): one typed function per query, positional
 * parameters, typed rows. See engine/store/traces.ts.
 */
import type { Database } from 'better-sqlite3';
import type { ModelCallTrace } from '../../../agents/index.js';
import { listByShape, whereOf } from '../where.js';

/** A row of `traces` as stored. */
export interface TraceRecord {
  id: number;
  run_id: string;
  step: string;
  attempt: number;
  seq: number;
  provider: string;
  model: string;
  mode: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  latency_ms: number;
  attempts: number;
  tool_calls: number;
  error_code: string | null;
  error: string | null;
  started_at: number;
  /** JSON: messages, tools, completion, calls (and replayedFrom). */
  data: string;
  session_id: string | null;
  parent_id: number | null;
  agent: string | null;
}

/** A row of `traces` without its `data`: what lists read. */
export type TraceSummaryRecord = Omit<TraceRecord, 'data'>;

/** A new row of `traces` (bound by name). */
export interface NewTrace {
  runId: string;
  step: string;
  attempt: number;
  seq: number;
  provider: string;
  model: string;
  mode: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
  latencyMs: number;
  attempts: number;
  toolCalls: number;
  errorCode: string | null;
  error: string | null;
  startedAt: number;
  data: string;
  sessionId: string | null;
  parentId: number | null;
  agent: string | null;
}

export interface TraceFilter {
  runId?: string;
  sessionId?: string;
  /** Only the calls delegated by this trace's model call. */
  parentId?: number;
  /** Only traces with an id below this (paging backwards from the newest). */
  before?: number;
  limit: number;
}

/** Sums over a run's traces (its chat calls left out). */
export interface TraceSpendRow {
  calls: number;
  tokens: number;
  cost: number;
  /** Calls whose cost_usd is NULL. */
  unpriced: number;
  tools: number;
}

/** An answered model call of a run's step, what a replay answers from. */
export interface ReplayRow {
  id: number;
  provider: ModelCallTrace['provider'];
  model: string;
  mode: ModelCallTrace['mode'];
  data: string;
}

const SUMMARY_COLUMNS = 'id, run_id, step, attempt, seq, provider, model, mode, input_tokens, output_tokens, cost_usd, latency_ms, attempts, tool_calls, error_code, error, started_at, session_id, parent_id, agent';

/** The traces' queries, on SQLite (here) or Postgres (store/pg/sql/traces.ts). */
export interface TraceQueries {
  /** A new trace; returns its id. */
  insert(t: NewTrace): number;
  /** The tool calls of a trace's model call, with their results, once they have run. */
  updateCalls(id: number, toolCalls: number, data: string): void;
  byId(id: number): TraceRecord | undefined;
  /** Newest first. */
  list(f: TraceFilter): TraceSummaryRecord[];
  /** Sums over a run's step calls (its chat calls left out). */
  spentBy(runId: string): TraceSpendRow;
  /** The answered calls of one step of a run, oldest first. */
  replayRows(runId: string, step: string): ReplayRow[];
  /** The trace of one model call of a chat turn (`attempt` holds the turn, `step` the node). */
  chatCall(sessionId: string, turn: number, node: string, seq: number): number | undefined;
  /** The tool-calling mode learned for a model, as stored. */
  learnedMode(model: string): string | undefined;
  learn(model: string, mode: string, at: number): void;
}

export function traceQueries(db: Database): TraceQueries {
  const insert = db.prepare<[NewTrace]>(`INSERT INTO traces (run_id, step, attempt, seq, provider, model, mode, input_tokens, output_tokens,
      cost_usd, latency_ms, attempts, tool_calls, error_code, error, started_at, data, session_id, parent_id, agent)
      VALUES (@runId, @step, @attempt, @seq, @provider, @model, @mode, @inputTokens, @outputTokens,
      @costUsd, @latencyMs, @attempts, @toolCalls, @errorCode, @error, @startedAt, @data, @sessionId, @parentId, @agent)`);
  const setCalls = db.prepare<[toolCalls: number, data: string, id: number]>('UPDATE traces SET tool_calls = ?, data = ? WHERE id = ?');
  const chatCall = db.prepare<[sessionId: string, turn: number, node: string, seq: number], number>(
    'SELECT id FROM traces WHERE session_id = ? AND attempt = ? AND step = ? AND seq = ?').pluck();
  const byId = db.prepare<[id: number], TraceRecord>('SELECT * FROM traces WHERE id = ?');
  const spent = db.prepare<[runId: string, sameRunId: string], TraceSpendRow>(`SELECT count(*) AS calls, coalesce(sum(input_tokens + output_tokens), 0) AS tokens,
      coalesce(sum(cost_usd), 0) AS cost, coalesce(sum(cost_usd IS NULL), 0) AS unpriced, coalesce(sum(tool_calls), 0) AS tools
      FROM traces WHERE (run_id = ? AND session_id IS NULL)
        OR session_id IN (SELECT session_id FROM step_sessions WHERE run_id = ?)`);
  const replay = db.prepare<[runId: string, step: string], ReplayRow>(
    'SELECT id, provider, model, mode, data FROM traces WHERE run_id = ? AND step = ? AND session_id IS NULL AND error_code IS NULL ORDER BY id');
  const modeOf = db.prepare<[model: string], string>('SELECT mode FROM model_tool_modes WHERE model = ?').pluck();
  const learn = db.prepare<[model: string, mode: string, at: number]>(`INSERT INTO model_tool_modes (model, mode, learned_at) VALUES (?, ?, ?)
      ON CONFLICT (model) DO UPDATE SET mode = excluded.mode, learned_at = excluded.learned_at`);
  // One statement per filter shape (prepared at its first use), so each can use its index (traces_by_run, traces_by_session, traces_by_parent).
  const listOf = listByShape<TraceSummaryRecord>(db, (where) => `SELECT ${SUMMARY_COLUMNS} FROM traces ${where} ORDER BY id DESC LIMIT ?`);
  const list = (f: TraceFilter): TraceSummaryRecord[] => {
    const where = whereOf([
      // A run's calls, and those of its agent steps' turns (their traces are their sessions').
      f.runId === undefined ? undefined : ['(run_id = ? OR session_id IN (SELECT session_id FROM step_sessions WHERE run_id = ?))', f.runId, f.runId],
      f.sessionId === undefined ? undefined : ['session_id = ?', f.sessionId],
      f.parentId === undefined ? undefined : ['parent_id = ?', f.parentId],
      f.before === undefined ? undefined : ['id < ?', f.before],
    ]);
    return listOf(where, f.limit);
  };
  return {
    insert: (t: NewTrace): number => Number(insert.run(t).lastInsertRowid),
    updateCalls: (id: number, toolCalls: number, data: string): void => void setCalls.run(toolCalls, data, id),
    byId: (id: number): TraceRecord | undefined => byId.get(id),
    list,
    spentBy: (runId: string): TraceSpendRow => spent.get(runId, runId)!,
    replayRows: (runId: string, step: string): ReplayRow[] => replay.all(runId, step),
    chatCall: (sessionId: string, turn: number, node: string, seq: number): number | undefined => chatCall.get(sessionId, turn, node, seq),
    learnedMode: (model: string): string | undefined => modeOf.get(model),
    learn: (model: string, mode: string, at: number): void => void learn.run(model, mode, at),
  };
}
