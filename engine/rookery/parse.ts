/**
 * `parseDraft`: a draft out of text — a JSON object, a TOML document (top-level horde keys,
 * `[[steps]]` or the 1.x `[[penguins]]`, `[[edges]]`, `[[triggers]]`), or the last fenced
 * ```json / ```toml block of an assistant's prose that reads as a draft (or, with no such
 * block, a JSON object written in the prose without a fence). Normalised.
 */
import { parse as parseToml } from 'smol-toml';
import { toPlainError } from '../../core/index.js';
import { toPlain } from '../horde/index.js';
import { MAX_DRAFT_CHARS, MAX_DRAFT_EDGES, MAX_DRAFT_STEPS, MAX_DRAFT_TRIGGERS } from './limits.js';
import { asRecord } from './names.js';
import { normalizeDraft } from './normalize.js';
import type { HordeDraft } from './types.js';

export type ParsedDraft = { ok: true; draft: HordeDraft } | { ok: false; error: string };

type Attempt = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** Read a draft from text. Never throws: what is wrong is in `error`. */
export function parseDraft(text: string): ParsedDraft {
  if (text.length > MAX_DRAFT_CHARS) {
    return { ok: false, error: `the text is ${text.length} characters; a draft is read from at most ${MAX_DRAFT_CHARS} [KW_ERR_DRAFT_TOO_LARGE]` };
  }
  const tables = countTableHeaders(text);
  if (tables > MAX_TABLE_HEADERS) {
    return { ok: false, error: `the text has ${tables} TOML table headers ([[steps]], [[edges]], …); a draft has at most ${MAX_TABLE_HEADERS} [KW_ERR_DRAFT_TOO_LARGE]` };
  }
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, error: 'the text is empty: give a draft as JSON, as TOML, or in a ```json / ```toml block' };
  const tries: Attempt[] = [];
  const whole = readBlock(trimmed, trimmed.startsWith('{') ? 'json' : 'toml');
  tries.push(whole);
  if (!whole.ok) {
    for (const block of fencedBlocks(trimmed).reverse()) {
      const attempt = readBlock(block.body, block.lang);
      if (attempt.ok) return normalized(attempt.value);
      tries.push(attempt);
    }
    // A JSON object in prose without a fence: from the first { to the last }.
    const open = trimmed.indexOf('{');
    const close = trimmed.lastIndexOf('}');
    if (open > 0 && close > open) {
      const attempt = readBlock(trimmed.slice(open, close + 1), 'json');
      if (attempt.ok) return normalized(attempt.value);
    }
  }
  if (whole.ok) return normalized(whole.value);
  const reasons = tries.map((t) => (t.ok ? '' : t.error)).filter((e) => e !== '');
  return { ok: false, error: `no draft found in the text: ${reasons.slice(0, 3).join('; ')}` };
}

/** A draft's tables at most: its steps, pipeline entries, edges and triggers, each with its inputs (a few a step). */
const MAX_TABLE_HEADERS = (MAX_DRAFT_STEPS * 2 + MAX_DRAFT_EDGES + MAX_DRAFT_TRIGGERS) * 4;

/** `[[…]]` and `[…]` headers at the start of a line: counted before a TOML parser reads the text. */
function countTableHeaders(text: string): number {
  let n = 0;
  for (const _ of text.matchAll(/^[ \t]*\[/gm)) n += 1;
  return n;
}

/** The normalised draft, or what bounds it is over. */
function normalized(value: Record<string, unknown>): ParsedDraft {
  try {
    return { ok: true, draft: normalizeDraft(value) };
  } catch (err) {
    const plain = toPlainError(err);
    return { ok: false, error: `${plain.message} [${plain.code}]` };
  }
}

/** Fenced blocks in order: their language (`json`, `toml`, or guessed from the first character) and text. */
function fencedBlocks(text: string): { lang: 'json' | 'toml'; body: string }[] {
  const out: { lang: 'json' | 'toml'; body: string }[] = [];
  const fence = /^(`{3,}|~{3,})[ \t]*([\w-]*)[^\n]*\n([\s\S]*?)^\1[ \t]*$/gm;
  for (const m of text.matchAll(fence)) {
    const body = (m[3] ?? '').trim();
    const lang = (m[2] ?? '').toLowerCase();
    if (body === '') continue;
    out.push({ lang: lang === 'json' || (lang !== 'toml' && body.startsWith('{')) ? 'json' : 'toml', body });
  }
  return out;
}

function readBlock(body: string, lang: 'json' | 'toml'): Attempt {
  let value: unknown;
  try {
    value = lang === 'json' ? JSON.parse(body) : toPlain(parseToml(body));
  } catch (err) {
    return { ok: false, error: `${lang === 'json' ? 'JSON' : 'TOML'} does not parse (${(toPlainError(err).message.split('\n')[0] ?? '').slice(0, 200)})` };
  }
  const table = asRecord(value);
  if (table === undefined) return { ok: false, error: `the ${lang === 'json' ? 'JSON' : 'TOML'} is not an object` };
  if (!isDraftLike(table)) return { ok: false, error: 'the object has no steps (steps, penguins or pipeline)' };
  return { ok: true, value: table };
}

function isDraftLike(table: Record<string, unknown>): boolean {
  return ['steps', 'penguins', 'pipeline'].some((key) => Array.isArray(table[key]) && (table[key] as unknown[]).length > 0);
}
