/**
 * Semantic memory: a fact worth keeping is a note under the vault's `memory/` folder,
 * written through the vault's audited writes (so it shows in `kowalski vault writes` and
 * can be reverted like any agent write) and found by its search. One note per fact:
 * `memory/<yyyy-mm-dd>-<slug>.md`, a `# ` title line and the fact; the same slug the same
 * day is appended to the note instead.
 */
import { KowalskiError } from '../../core/index.js';
import type { NoteWrite, SearchAnswer, SearchOptions, WriteOrigin } from '../vault/types.js';

/** What the memory tiers need of the vault (engine/vault/vault-service.ts and its index give it). */
export interface MemoryVault {
  /** Create a note (KW_ERR_* when it exists, or the path is refused). Idempotent by `origin.callKey`. */
  create(path: string, content: string, origin: WriteOrigin): Promise<NoteWrite>;
  /** Append to a note. Idempotent by `origin.callKey`. */
  append(path: string, content: string, origin: WriteOrigin): Promise<NoteWrite>;
  search(query: string, options?: SearchOptions): Promise<SearchAnswer>;
  /** Whether a note exists (path relative to the vault). */
  exists(path: string): Promise<boolean>;
  /** A note's text (KW_ERR_VAULT_* when it is gone or refused). */
  read(path: string): { content: string };
}

/** The vault folder memories are kept in. */
export const MEMORY_FOLDER = 'memory/';
/** Longest fact taken, in characters. */
export const MAX_FACT_CHARS = 2000;
/** Longest slug of a note's name, in characters. */
const MAX_SLUG_CHARS = 48;
/** Longest title line, in characters. */
const MAX_TITLE_CHARS = 80;

/** The fact, trimmed; KW_ERR_TOOL_ARGS when empty or too long. */
export function checkedFact(fact: unknown): string {
  const text = typeof fact === 'string' ? fact.trim() : '';
  if (text === '') throw new KowalskiError('KW_ERR_TOOL_ARGS', 'remember needs "fact": one sentence worth keeping, e.g. "The user prefers metric units"');
  if (text.length > MAX_FACT_CHARS) throw new KowalskiError('KW_ERR_TOOL_ARGS', `the fact has ${text.length} characters; at most ${MAX_FACT_CHARS} are kept: say it shorter`);
  return text;
}

/** `memory/<yyyy-mm-dd>-<slug>.md` for a fact kept at `at` (UTC date; the slug: the fact's first words, ASCII). */
export function memoryPath(fact: string, at: number): string {
  const words = fact.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().match(/[a-z0-9]+/g) ?? [];
  let slug = '';
  for (const w of words) {
    const next = slug === '' ? w : `${slug}-${w}`;
    if (next.length > MAX_SLUG_CHARS) break;
    slug = next;
  }
  if (slug === '') slug = 'fact';
  return `${MEMORY_FOLDER}${new Date(at).toISOString().slice(0, 10)}-${slug}.md`;
}

function titleOf(fact: string): string {
  const line = fact.split('\n')[0]!.trim();
  return line.length <= MAX_TITLE_CHARS ? line : `${line.slice(0, MAX_TITLE_CHARS - 1)}…`;
}

/** Keep a fact: a new note, or appended to the day's note of the same slug. */
export async function rememberFact(vault: MemoryVault, fact: string, origin: WriteOrigin, at: number): Promise<NoteWrite> {
  const path = memoryPath(fact, at);
  if (await vault.exists(path)) return vault.append(path, `\n${fact}\n`, origin);
  return vault.create(path, `# ${titleOf(fact)}\n\n${fact}\n`, origin);
}

/** The fact a write of `rememberFact` kept (the inverse of its note text), or undefined for any other write: not under `memory/`, not done, reverted. */
export function factOfWrite(w: NoteWrite): string | undefined {
  if (!w.path.startsWith(MEMORY_FOLDER) || w.state !== 'done' || w.revertedBy !== null) return undefined;
  if (w.op === 'append') return w.content.trim() || undefined;
  if (w.op !== 'create') return undefined;
  const body = /^# [^\n]*\n\n([\s\S]*)$/.exec(w.content)?.[1]?.trim();
  return body === undefined || body === '' ? undefined : body;
}
