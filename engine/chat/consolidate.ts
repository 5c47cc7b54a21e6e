/**
 * `kowalski memory consolidate`: the turns finished recently (episodic memory) turned into
 * durable facts (semantic memory). One model call (the default model, traced) reads the
 * turns and answers a JSON list of facts; each is kept as `remember` keeps one, its origin
 * `consolidate` with that call's trace. The turns are those of chat sessions, not of horde
 * steps (recent-turns.ts); they are bounded: the newest are left out past the bound and the
 * answer says so.
 */
import { KowalskiError } from '../../core/index.js';
import type { NoteWrite } from '../vault/types.js';
import type { TraceStore } from '../store/traces.js';
import type { RecallIndex } from './recall.js';
import { readRecentTurns } from './recent-turns.js';
import { MAX_FACT_CHARS, checkedFact, rememberFact } from './remember.js';
import type { MemoryVault } from './remember.js';
import { tracedCall } from './traced-call.js';
import type { ChatModel } from './turn-run.js';

export interface ConsolidateOptions {
  /** Turns finished at or after this instant, ms since epoch. */
  since: number;
  /** Only this agent's turns (default: every agent's). */
  agent?: string;
}

export interface ConsolidateResult {
  /** Turns read. */
  turns: number;
  /** Turns left out past the bound (read them with a later `since`). */
  leftOut: number;
  /** The trace of the model call (null when there was nothing to read). */
  traceId: number | null;
  facts: Array<{ fact: string; path: string; writeId: number }>;
}

export interface ConsolidateDeps {
  recall: Pick<RecallIndex, 'since' | 'countSince'>;
  vault: MemoryVault;
  traces: TraceStore;
  /** The default model; throws KW_ERR_NO_MODEL when none is set. */
  model(): Promise<ChatModel>;
  now(): number;
}

/** The most turns one consolidation reads. */
export const MAX_CONSOLIDATE_TURNS = 200;
/** The most characters of turns given to the model. */
const MAX_CONSOLIDATE_CHARS = 60_000;
/** The most facts kept from one answer. */
const MAX_FACTS = 50;

export const CONSOLIDATE_PROMPT = [
  'You read conversations between a user and their assistants and pick out durable facts worth remembering in later conversations:',
  'the user\'s preferences, names, standing decisions, projects, constraints. Leave out passing details, questions and anything said only once in jest.',
  'Each fact is one self-contained sentence ("The user prefers metric units.").',
  'Answer with a JSON array of strings only, e.g. ["The user prefers metric units."]; answer [] when there is nothing durable.',
].join(' ');

/** The facts of the model's answer: a JSON array of strings (a ```json fence around it is taken); else KW_ERR_MEMORY_CONSOLIDATE. */
export function factsOf(answer: string): string[] {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(answer);
  const text = (fenced?.[1] ?? answer).trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || !parsed.every((f) => typeof f === 'string')) {
    throw new KowalskiError('KW_ERR_MEMORY_CONSOLIDATE', `the model did not answer a JSON list of facts (it said ${JSON.stringify(answer.slice(0, 200))}); nothing was written`);
  }
  return [...new Set(parsed.map((f) => f.trim()).filter((f) => f !== '' && f.length <= MAX_FACT_CHARS))].slice(0, MAX_FACTS);
}

export async function consolidate(deps: ConsolidateDeps, options: ConsolidateOptions): Promise<ConsolidateResult> {
  const read = readRecentTurns(deps.recall, { at: options.since, ...(options.agent === undefined ? {} : { agent: options.agent }) },
    { maxTurns: MAX_CONSOLIDATE_TURNS, maxChars: MAX_CONSOLIDATE_CHARS });
  const blocks = read.blocks;
  if (blocks.length === 0) return { turns: 0, leftOut: 0, traceId: null, facts: [] };
  const vault = deps.vault;
  const m = await deps.model();
  const answer = await tracedCall(m, [{ role: 'system', content: CONSOLIDATE_PROMPT }, { role: 'user', content: blocks.join('\n\n') }], deps.now);
  const traceId = deps.traces.insert({ runId: 'consolidate', step: 'consolidate', attempt: 1, agent: 'consolidate' }, answer.trace);
  if (answer.response === undefined) throw answer.error;
  const facts: ConsolidateResult['facts'] = [];
  for (const [i, raw] of factsOf(answer.response.content).entries()) {
    const fact = checkedFact(raw);
    const write: NoteWrite = await rememberFact(vault, fact, { sessionId: null, agent: 'consolidate', traceId, callKey: `consolidate:${traceId}:${i}`, by: 'consolidate' }, deps.now());
    facts.push({ fact, path: write.path, writeId: write.writeId });
  }
  return { turns: blocks.length, leftOut: read.leftOut, traceId, facts };
}
