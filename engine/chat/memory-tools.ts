/**
 * The memory tools chat agents call: `recall({query, limit})` searches earlier sessions
 * (episodic memory, recall.ts), `remember({fact})` keeps a fact as a note under the
 * vault's `memory/` (semantic memory, remember.ts), `recent_turns({since_hours, agent,
 * after})` reads the chat turns finished recently, page by page (recent-turns.ts: what the
 * built-in memory-consolidation horde's archivist reads). All are safe to run again after a
 * crash: recall and recent_turns only read, and remember's write is found again by the
 * call's durable key.
 */
import { KowalskiError } from '../../core/index.js';
import type { Tool } from '../../agents/index.js';
import { MAX_RECALL_LIMIT } from './recall.js';
import type { RecallIndex } from './recall.js';
import { MAX_FACT_CHARS, checkedFact, factOfWrite, rememberFact } from './remember.js';
import type { MemoryVault } from './remember.js';
import type { NoteWrite } from '../vault/types.js';
import { cursorText, parseCursor, readRecentTurns } from './recent-turns.js';

export const RECALL_TOOL = 'recall';
export const REMEMBER_TOOL = 'remember';
export const RECENT_TURNS_TOOL = 'recent_turns';

/** The window recent_turns reads when not told, in hours. */
export const DEFAULT_RECENT_HOURS = 24;
/** The widest window recent_turns reads, in hours (30 days). */
export const MAX_RECENT_HOURS = 720;
/** What one recent_turns answer gives at most: turns, and characters of them. */
const RECENT_LIMITS = { maxTurns: 40, maxChars: 40_000 };
/** The most facts kept already that one recent_turns answer lists, and the most writes of one session looked at. */
const MAX_KEPT_LISTED = 50;
const MAX_WRITES_PER_SESSION = 200;

const utc = (at: number): string => `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export function createRecallTool(recall: RecallIndex): Tool {
  return {
    idempotent: true,
    spec: {
      name: RECALL_TOOL,
      description: 'Search the earlier chat sessions (not this one) for what was said: returns the best matching turns with their session, date and a passage.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, maxLength: 1000, description: 'Words to look for, e.g. "tea preference"' },
          limit: { type: 'integer', minimum: 1, maximum: MAX_RECALL_LIMIT, description: 'Most turns to return (default 5)' },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
    call(args, ctx) {
      const hits = recall.search(String(args.query), {
        ...(typeof args.limit === 'number' ? { limit: args.limit } : {}),
        ...(ctx.caller === undefined ? {} : { exclude: ctx.caller.sessionId }),
      });
      const meta = { hits: hits.map((h) => ({ sessionId: h.sessionId, turn: h.turn })) };
      if (hits.length === 0) return Promise.resolve({ content: `No earlier session mentions ${JSON.stringify(String(args.query))}.`, meta });
      const lines = hits.map((h) => `- session ${h.sessionId}${h.title === '' ? '' : ` "${h.title}"`}, turn ${h.turn}, ${new Date(h.at).toISOString().slice(0, 16).replace('T', ' ')} UTC, ${h.agent}: ${h.snippet}`);
      return Promise.resolve({ content: lines.join('\n'), meta });
    },
  };
}

/** `now` is the engine's clock (the note's date). */
export function createRememberTool(vault: MemoryVault, now: () => number): Tool {
  return {
    idempotent: true,
    spec: {
      name: REMEMBER_TOOL,
      description: 'Keep a durable fact for later conversations (a preference, a decision, a name): it is written as a note under memory/ in the vault, audited and revertible, and given back when it bears on a message.',
      inputSchema: {
        type: 'object',
        properties: { fact: { type: 'string', minLength: 1, maxLength: MAX_FACT_CHARS, description: 'One self-contained sentence, e.g. "The user prefers metric units"' } },
        required: ['fact'],
        additionalProperties: false,
      },
    },
    async call(args, ctx) {
      const fact = checkedFact(args.fact);
      const caller = ctx.caller;
      if (caller === undefined) throw new KowalskiError('KW_ERR_TOOL_FAILED', 'remember is for chat agents and agent steps (kind = "agent"): a model step keeps notes with write_file');
      const write = await rememberFact(vault, fact, { sessionId: caller.sessionId, agent: caller.agent, traceId: caller.traceId, callKey: caller.key, by: 'agent' }, now());
      return { content: `Remembered in ${write.path} (write ${write.writeId}).`, meta: { path: write.path, writeId: write.writeId } };
    },
  };
}

export interface RecentTurnsToolDeps {
  recall: RecallIndex;
  /** The vault's audited writes made in a session, newest first (`vault.writes({sessionId, limit})`). */
  writesOf(sessionId: string, limit: number): NoteWrite[];
  /** The engine's clock: the window's end. */
  now(): number;
}

/** The facts `remember` kept in these sessions (not reverted), oldest first, at most MAX_KEPT_LISTED; `more` counts the rest. */
function keptIn(deps: RecentTurnsToolDeps, sessions: string[]): { lines: string[]; more: number } {
  const kept = sessions.flatMap((id) => deps.writesOf(id, MAX_WRITES_PER_SESSION).flatMap((w) => {
    const fact = factOfWrite(w);
    return fact === undefined ? [] : [{ at: w.at, line: `- ${fact} (${w.path}, session ${id})` }];
  })).sort((x, y) => x.at - y.at);
  return { lines: kept.slice(0, MAX_KEPT_LISTED).map((k) => k.line), more: Math.max(0, kept.length - MAX_KEPT_LISTED) };
}

/** `recent_turns`: reads only; the facts already kept in the sessions it gives are listed after their turns. */
export function createRecentTurnsTool(deps: RecentTurnsToolDeps): Tool {
  const { recall, now } = deps;
  return {
    idempotent: true,
    spec: {
      name: RECENT_TURNS_TOOL,
      description: 'Read the chat turns finished recently (the user\'s message and the answer), oldest first: only conversations with the user, never the turns of horde steps. '
        + 'An answer holds at most ' + String(RECENT_LIMITS.maxTurns) + ' turns; it says how many more there are and the "after" value that reads on, '
        + 'and lists the facts already kept (with remember) in those conversations.',
      inputSchema: {
        type: 'object',
        properties: {
          since_hours: { type: 'integer', minimum: 1, maximum: MAX_RECENT_HOURS, description: `Turns finished in the last this many hours (default ${DEFAULT_RECENT_HOURS})` },
          agent: { type: 'string', minLength: 1, maxLength: 64, description: 'Only the turns answered by this agent (default: every agent\'s)' },
          after: { type: 'string', minLength: 1, maxLength: 80, description: 'Read on after the turns an earlier answer gave: the "after" value it named' },
        },
        additionalProperties: false,
      },
    },
    call(args) {
      const hours = typeof args.since_hours === 'number' ? args.since_hours : DEFAULT_RECENT_HOURS;
      const from = now() - hours * 3_600_000;
      const after = typeof args.after === 'string' ? parseCursor(args.after) : undefined;
      const agent = typeof args.agent === 'string' ? args.agent : undefined;
      const read = readRecentTurns(recall, { at: from, ...(agent === undefined ? {} : { agent }), ...(after === undefined ? {} : { after }) }, RECENT_LIMITS);
      const whose = agent === undefined ? '' : ` answered by ${agent}`;
      const meta = { from, turns: read.turns.map((t) => ({ sessionId: t.session_id, turn: t.turn })), leftOut: read.leftOut };
      if (read.turns.length === 0) {
        return Promise.resolve({ content: `No chat turn${whose} finished since ${utc(from)}${after === undefined ? '' : ' after the ones read'}.`, meta });
      }
      const lines = [`${read.turns.length} chat turn${read.turns.length === 1 ? '' : 's'}${whose} finished since ${utc(from)}${after === undefined ? '' : ' after the ones read'}, oldest first (the turns of horde steps are left out):`, '', read.blocks.join('\n\n'), ''];
      const kept = keptIn(deps, [...new Set(read.turns.map((t) => t.session_id))]);
      if (kept.lines.length > 0) {
        lines.push('Facts already kept with remember in these sessions (do not keep them again):', ...kept.lines);
        if (kept.more > 0) lines.push(`… and ${kept.more} more`);
        lines.push('');
      }
      lines.push(read.leftOut === 0 || read.last === undefined
        ? 'That is all of them.'
        : `${read.leftOut} more turn${read.leftOut === 1 ? '' : 's'} not shown: call recent_turns again with since_hours ${hours}${agent === undefined ? '' : `, agent "${agent}"`} and after "${cursorText(read.last)}".`);
      return Promise.resolve({ content: lines.join('\n'), meta: { ...meta, ...(read.leftOut === 0 || read.last === undefined ? {} : { next: cursorText(read.last) }) } });
    },
  };
}
