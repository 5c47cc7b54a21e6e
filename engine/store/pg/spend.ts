/**
 * What each data folder's model calls spent on each run (`run_spend`, migration 5): the
 * share of a run's budget that the other nodes' traces hold. A node writes its folder's
 * sums after each trace it records (`publish`, replacing its row) and reads the other
 * folders' rows when it adds up a run's spend (`others`). See engine/store/traces.ts.
 */
import type { SharedSpend } from '../traces.js';
import type { PgSession } from './session.js';

interface SpendRow {
  calls: number;
  tokens: number;
  cost: number;
  unpriced: number;
  tools: number;
}

/** `folderId`: this node's data folder, whose traces are read locally, never from here (null: a folder that never ran a node, so every row is another's); `nodeId` is recorded with each write. */
export function pgSpend(s: PgSession, folderId: string | null, nodeId: string): SharedSpend {
  return {
    // A run that is not in the store (a chat's own traces, a consolidation) gets no row.
    publish: (runId, spend) => s.write(
      `INSERT INTO run_spend (run_id, folder_id, model_calls, tokens, cost_usd, unpriced, tool_calls, node_id, updated_at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, kw_now() WHERE EXISTS (SELECT 1 FROM runs WHERE id = $1)
       ON CONFLICT (run_id, folder_id) DO UPDATE SET model_calls = excluded.model_calls, tokens = excluded.tokens, cost_usd = excluded.cost_usd,
         unpriced = excluded.unpriced, tool_calls = excluded.tool_calls, node_id = excluded.node_id, updated_at = excluded.updated_at`,
      [runId, folderId, spend.modelCalls, spend.tokens, spend.costUsd, spend.unpriced, spend.toolCalls, nodeId]),
    others: (runId) => {
      const r = s.get<SpendRow>(
        `SELECT coalesce(sum(model_calls), 0)::bigint AS calls, coalesce(sum(tokens), 0)::bigint AS tokens, coalesce(sum(cost_usd), 0)::double precision AS cost,
           coalesce(sum(unpriced), 0)::bigint AS unpriced, coalesce(sum(tool_calls), 0)::bigint AS tools
         FROM run_spend WHERE run_id = $1 AND folder_id IS DISTINCT FROM $2`, [runId, folderId])!;
      return { modelCalls: r.calls, tokens: r.tokens, costUsd: r.cost, unpriced: r.unpriced, toolCalls: r.tools };
    },
  };
}
