/**
 * Traces of model calls and what each model learned about tool calling. Traces are a
 * record of what happened, not a source of run state: they are written as calls end,
 * outside the event log, and a resumed run never reads them (a re-run with
 * --replay-models reads an earlier run's, to answer the same requests the same way).
 *
 * A run's budget counts its traces (docs/budgets.md). The traces are the data folder's
 * (SQLite), or, on a store shared by several nodes, the shared database's: a run handed
 * from one node to another counts the calls of both, and any node lists them.
 */
import { replayEntry } from '../../agents/index.js';
import type { ModelCallTrace, ReplayTable, ToolCallingMode } from '../../agents/index.js';
import type { TraceFilter, TraceQueries, TraceSummaryRecord } from './sql/traces.js';
import type { TraceDetail, TraceSummary } from '../../contract/traces.js';
export type { TraceDetail, TraceSummary } from '../../contract/traces.js';

export type { TraceFilter };

/** Sums over a run's traces. */
export interface TracedSpend {
  modelCalls: number;
  tokens: number;
  costUsd: number;
  /** Calls whose price is unknown (cost_usd NULL). */
  unpriced: number;
  toolCalls: number;
}

/** Where a trace belongs: a step attempt of a run, or (with `sessionId`) a node of a chat turn. */
export interface TraceWhere {
  runId: string;
  step: string;
  attempt: number;
  sessionId?: string;
  parentId?: number | null;
  agent?: string;
}

/** A trace whose prompt is larger than this keeps only the last messages, so one run cannot fill the disk. */
const MAX_DATA_CHARS = 4 * 1024 * 1024;

function toSummary(r: TraceSummaryRecord): TraceSummary {
  return {
    id: r.id, runId: r.run_id, step: r.step, attempt: r.attempt, seq: r.seq, provider: r.provider, model: r.model, mode: r.mode,
    inputTokens: r.input_tokens, outputTokens: r.output_tokens, costUsd: r.cost_usd, latencyMs: r.latency_ms,
    attempts: r.attempts, toolCalls: r.tool_calls,
    error: r.error_code === null ? null : { code: r.error_code, message: r.error ?? '' },
    startedAt: r.started_at,
    sessionId: r.session_id, parentId: r.parent_id, agent: r.agent,
    replayed: r.attempts === 0 && r.error_code === null,
  };
}

function dataOf(trace: ModelCallTrace): string {
  const replayed = trace.replayedFrom === undefined ? {} : { replayedFrom: trace.replayedFrom };
  const full = JSON.stringify({ messages: trace.messages, tools: trace.tools, completion: trace.completion, calls: trace.toolCalls, ...replayed });
  if (full.length <= MAX_DATA_CHARS) return full;
  const note = { role: 'user', content: `[trace cut: the prompt was ${full.length} characters; only the last message is kept]` };
  return JSON.stringify({ messages: [note, ...trace.messages.slice(-1)], tools: trace.tools, completion: trace.completion, calls: trace.toolCalls, ...replayed });
}

type StoredData = { messages?: TraceDetail['messages']; tools?: string[]; completion?: string; calls?: TraceDetail['calls']; replayedFrom?: number };

export class TraceStore {
  /** @param q The data folder's traces (store/sql/traces.ts) or the shared store's (store/pg/sql/traces.ts). */
  constructor(private readonly q: TraceQueries) {}

  insert(where: TraceWhere, trace: ModelCallTrace): number {
    return this.q.insert({
      runId: where.runId, step: where.step, attempt: where.attempt,
      sessionId: where.sessionId ?? null, parentId: where.parentId ?? null, agent: where.agent ?? null,
      seq: trace.seq, provider: trace.provider, model: trace.model, mode: trace.mode,
      inputTokens: trace.usage.inputTokens, outputTokens: trace.usage.outputTokens, costUsd: trace.costUsd,
      latencyMs: Math.round(trace.latencyMs), attempts: trace.attempts, toolCalls: trace.toolCalls.length,
      errorCode: trace.error?.code ?? null, error: trace.error?.message ?? null, startedAt: trace.startedAt,
      data: dataOf(trace),
    });
  }

  list(filter: TraceFilter): TraceSummary[] {
    return this.q.list(filter).map(toSummary);
  }

  get(id: number): TraceDetail | undefined {
    const row = this.q.byId(id);
    if (row === undefined) return undefined;
    const data = JSON.parse(row.data) as StoredData;
    const detail: TraceDetail = { ...toSummary(row), messages: data.messages ?? [], tools: data.tools ?? [], completion: data.completion ?? '', calls: data.calls ?? [] };
    if (data.replayedFrom !== undefined) detail.replayedFrom = data.replayedFrom;
    return detail;
  }

  /** The answered model calls of one step of a run, oldest first: what a re-run with --replay-models may answer from (agents/model-replay.ts). */
  replayTable(runId: string, step: string): ReplayTable {
    const table: ReplayTable = {};
    for (const row of this.q.replayRows(runId, step)) {
      const data = JSON.parse(row.data) as StoredData;
      const entry = replayEntry(row.id, {
        provider: row.provider, model: row.model, mode: row.mode,
        messages: data.messages ?? [], tools: data.tools ?? [], completion: data.completion ?? '', toolCalls: data.calls ?? [],
      });
      if (entry !== undefined && table[entry[0]] === undefined) table[entry[0]] = entry[1];
    }
    return table;
  }

  /** The tool calls a model call asked for, with their results, once they have run. */
  updateCalls(id: number, trace: ModelCallTrace): void {
    this.q.updateCalls(id, trace.toolCalls.length, dataOf(trace));
  }

  /** What a run's model steps spent, over all their attempts (a run's budget counts from these). */
  spentBy(runId: string): TracedSpend {
    const r = this.q.spentBy(runId);
    return { modelCalls: r.calls, tokens: r.tokens, costUsd: r.cost, unpriced: r.unpriced, toolCalls: r.tools };
  }

  /** The trace of one model call of a chat turn. */
  chatCall(sessionId: string, turn: number, node: string, seq: number): number | undefined {
    return this.q.chatCall(sessionId, turn, node, seq);
  }

  learnedMode(model: string): ToolCallingMode | undefined {
    const mode = this.q.learnedMode(model);
    return mode === 'native' || mode === 'text' ? mode : undefined;
  }

  learn(model: string, mode: ToolCallingMode, at: number): void {
    this.q.learn(model, mode, at);
  }
}
