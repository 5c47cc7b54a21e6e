/**
 * The memory tools chat agents call: `recall({query, limit})` searches earlier sessions
 * (episodic memory, recall.ts), `remember({fact})` keeps a fact as a note under the
 * vault's `memory/` (semantic memory, remember.ts). Both are safe to run again after a
 * crash: recall only reads, and remember's write is found again by the call's durable key.
 */
import { KowalskiError } from '../../core/index.js';
import type { Tool } from '../../agents/index.js';
import { MAX_RECALL_LIMIT } from './recall.js';
import type { RecallIndex } from './recall.js';
import { MAX_FACT_CHARS, checkedFact, rememberFact } from './remember.js';
import type { MemoryVault } from './remember.js';

export const RECALL_TOOL = 'recall';
export const REMEMBER_TOOL = 'remember';

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
      if (caller === undefined) throw new KowalskiError('KW_ERR_TOOL_FAILED', 'remember is for chat agents: a horde step keeps notes with write_file');
      const write = await rememberFact(vault, fact, { sessionId: caller.sessionId, agent: caller.agent, traceId: caller.traceId, callKey: caller.key, by: 'agent' }, now());
      return { content: `Remembered in ${write.path} (write ${write.writeId}).`, meta: { path: write.path, writeId: write.writeId } };
    },
  };
}
