/**
 * search_notes without the index (engine/vault/search/, when it is not wired): a plain
 * scan of every note for the query's words, case-insensitive, in the same answer shape.
 * Bounded like a listing (at most MAX_LISTED notes, each at most the note size limit).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SearchAnswer, SearchHit, SearchOptions } from './types.js';
import { listNotes } from './vault-notes.js';

/** Characters of text on each side of the first match in a snippet. */
const AROUND = 80;

function snippetOf(text: string, at: number, word: string): string {
  const from = Math.max(0, at - AROUND);
  const to = Math.min(text.length, at + word.length + AROUND);
  const flat = (s: string): string => s.replace(/\s+/g, ' ');
  return `${from > 0 ? '…' : ''}${flat(text.slice(from, at))}[${text.slice(at, at + word.length)}]${flat(text.slice(at + word.length, to))}${to < text.length ? '…' : ''}`;
}

function count(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n += 1;
  return n;
}

export function scanNotes(root: string, maxNoteBytes: number, query: string, options: SearchOptions = {}): SearchAnswer {
  const words = [...new Set(query.toLowerCase().split(/\s+/).filter((w) => w !== ''))];
  const hits: SearchHit[] = [];
  for (const info of words.length === 0 ? [] : listNotes(root, options.under ?? '')) {
    if (info.size_bytes > maxNoteBytes) continue;
    let text: string;
    try {
      text = fs.readFileSync(path.join(root, ...info.path.split('/')), 'utf8');
    } catch {
      continue; // removed meanwhile
    }
    const lower = text.toLowerCase();
    const title = info.title.toLowerCase();
    const score = words.reduce((sum, w) => sum + count(lower, w) + 3 * count(title, w), 0);
    if (score === 0) continue;
    const first = words.map((w) => ({ w, at: lower.indexOf(w) })).filter((m) => m.at !== -1).sort((a, b) => a.at - b.at)[0];
    hits.push({ path: info.path, title: info.title, snippet: first === undefined ? info.preview : snippetOf(text, first.at, first.w), score, found: ['keyword'] });
  }
  hits.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
  return { query, mode: 'keyword', hits: hits.slice(0, options.limit ?? 10), note: 'a plain scan of the notes (the search index is not running)' };
}
