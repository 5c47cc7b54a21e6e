/**
 * Episodic memory: every finished chat turn (the message and the answer) in an index
 * written in the transaction of its `turn.finished`, and searched by the `recall` tool —
 * the data folder's FTS5 table `chat_fts`, or, on a store several nodes share, Postgres's
 * `chat_recall` (so every node finds every node's turns). A query is the user's words,
 * any of them matching, best first (bm25; Postgres: ts_rank); words only, so no search
 * syntax in it is taken as such.
 */
import { KowalskiError } from '../../core/index.js';
import type { EpisodeRow, EpisodeWindow, RecallQueries } from '../store/sql/recall.js';

/** One earlier turn found. */
export interface RecallHit {
  sessionId: string;
  title: string;
  turn: number;
  agent: string;
  /** ms since epoch: when the turn finished. */
  at: number;
  /** A short passage, the matched words in `[` `]`. */
  snippet: string;
}

/** Most hits a search returns. */
export const MAX_RECALL_LIMIT = 20;
/** Words of a query used (the rest are left out). */
const MAX_TERMS = 24;
/** Longest word kept, in characters. */
const MAX_TERM_CHARS = 64;

/** The words of the user's text searched for (lower case, each once, at most MAX_TERMS); KW_ERR_TOOL_ARGS when it has none. */
export function recallTerms(text: string): string[] {
  const words = (text.normalize('NFKC').match(/[\p{L}\p{N}_]+/gu) ?? []).map((w) => w.slice(0, MAX_TERM_CHARS).toLowerCase());
  const terms = [...new Set(words)].slice(0, MAX_TERMS);
  if (terms.length === 0) throw new KowalskiError('KW_ERR_TOOL_ARGS', `the query ${JSON.stringify(text.slice(0, 80))} has no word to search for`);
  return terms;
}

export class RecallIndex {
  constructor(private readonly q: RecallQueries) {}

  /** Index a finished turn; `again` when the turn was indexed before (it went on after more budget). Call inside the turn.finished transaction. */
  write(row: EpisodeRow, again: boolean): void {
    if (again) this.q.remove(row.session_id, row.turn);
    this.q.insert(row);
  }

  /** Earlier turns matching `query`, best first, leaving out the session `exclude` (the one asking). */
  search(query: string, options: { limit?: number; exclude?: string } = {}): RecallHit[] {
    const limit = Math.min(Math.max(1, options.limit ?? 5), MAX_RECALL_LIMIT);
    return this.q.search(recallTerms(query), options.exclude ?? '', limit).map((r) => ({
      sessionId: r.session_id, title: r.title, turn: r.turn, agent: r.agent, at: r.at, snippet: r.snippet,
    }));
  }

  /** Turns of chat sessions (an `agent` step's are left out) finished in the window, oldest first, at most `limit`. */
  since(window: EpisodeWindow, limit: number): EpisodeRow[] {
    return this.q.since(window, limit);
  }

  /** How many turns `since` would give with no limit. */
  countSince(window: EpisodeWindow): number {
    return this.q.countSince(window);
  }
}
