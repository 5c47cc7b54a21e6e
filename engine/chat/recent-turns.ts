/**
 * The chat turns finished recently, as the memory's consolidation reads them (`kowalski
 * memory consolidate`, consolidate.ts, and the `recent_turns` tool of the built-in
 * memory-consolidation horde). Only the turns of chat sessions: an `agent` step's session
 * is a horde's own (step_sessions), so a consolidation never reads its own reports or any
 * other step's turns. Oldest first, each turn a block of text, bounded in turns and
 * characters; what was left out is counted, and a cursor says where to read on.
 */
import { KowalskiError } from '../../core/index.js';
import type { EpisodeRow, EpisodeWindow } from '../store/sql/recall.js';
import type { RecallIndex } from './recall.js';

/** Longest message, and longest answer, given of one turn, in characters (the rest is cut, with a note). */
export const MAX_TURN_SIDE_CHARS = 8000;

/** How much one read gives at most. */
export interface RecentTurnsLimits {
  /** Turns. */
  maxTurns: number;
  /** Characters of the blocks together (the first turn is always given, cut to MAX_TURN_SIDE_CHARS a side). */
  maxChars: number;
}

/** The last turn read: read on after it. */
export type TurnCursor = NonNullable<EpisodeWindow['after']>;

export interface RecentTurns {
  /** The turns given, oldest first, and each as a block of text. */
  turns: EpisodeRow[];
  blocks: string[];
  /** Turns of the window not given (read them after `last`). */
  leftOut: number;
  /** The last turn given (absent when none was). */
  last?: TurnCursor;
}

function side(text: string): string {
  if (text.length <= MAX_TURN_SIDE_CHARS) return text;
  return `${text.slice(0, MAX_TURN_SIDE_CHARS)}… [${text.length - MAX_TURN_SIDE_CHARS} more characters left out]`;
}

/** One turn as the model reads it: its session, number and agent, the user's message and the answer. */
export function turnBlock(t: EpisodeRow): string {
  return `Session ${t.session_id}, turn ${t.turn} (${t.agent}):\nUser: ${side(t.user)}\nAssistant: ${side(t.assistant)}`;
}

/** The turns of chat sessions finished in `window`, oldest first, within `limits`. Reads only. */
export function readRecentTurns(recall: Pick<RecallIndex, 'since' | 'countSince'>, window: EpisodeWindow, limits: RecentTurnsLimits): RecentTurns {
  const turns: EpisodeRow[] = [];
  const blocks: string[] = [];
  let chars = 0;
  for (const t of recall.since(window, limits.maxTurns)) {
    const block = turnBlock(t);
    if (chars + block.length > limits.maxChars && blocks.length > 0) break;
    turns.push(t);
    blocks.push(block);
    chars += block.length;
  }
  const leftOut = recall.countSince(window) - turns.length;
  const tail = turns.at(-1);
  return { turns, blocks, leftOut, ...(tail === undefined ? {} : { last: { at: tail.at, sessionId: tail.session_id, turn: tail.turn } }) };
}

/** The cursor as a tool's answer gives it: `<at>:<session>:<turn>`. */
export function cursorText(c: TurnCursor): string {
  return `${c.at}:${c.sessionId}:${c.turn}`;
}

/** A cursor a tool's answer gave; KW_ERR_TOOL_ARGS for anything else. */
export function parseCursor(text: string): TurnCursor {
  const m = /^(\d{1,15}):(c[0-9a-z]{1,40}):(\d{1,9})$/.exec(text.trim());
  if (m === null) throw new KowalskiError('KW_ERR_TOOL_ARGS', `"after" takes the value an earlier recent_turns answer gave (like "1764921600000:cabc123:2"), not ${JSON.stringify(text.slice(0, 80))}`);
  return { at: Number(m[1]), sessionId: m[2]!, turn: Number(m[3]) };
}
