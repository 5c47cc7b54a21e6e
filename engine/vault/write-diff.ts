/**
 * Unified diffs of the vault's writes (the `diff` package): what one write changed, and —
 * when a revert is refused — how the note differs now from what the write left. The audit
 * keeps what a write added, not the whole note, so the text around an append is the
 * note's own start as it is now (exact while nobody has edited the note since).
 */
import { createTwoFilesPatch } from 'diff';
import type { NoteWriteRow } from '../store/sql/note-writes.js';

/** Beyond this many edits a diff is not computed (two large, unrelated texts); a note says so instead. */
const MAX_EDIT_LENGTH = 20_000;

/** A unified diff of `left` → `right` of one file (a note, or a reviewed artifact). */
export function unified(path: string, left: string, right: string, leftLabel: string, rightLabel: string): string {
  const patch = createTwoFilesPatch(`a/${path}`, `b/${path}`, left, right, leftLabel, rightLabel, { context: 3, maxEditLength: MAX_EDIT_LENGTH });
  return patch ?? `--- a/${path}\t${leftLabel}\n+++ b/${path}\t${rightLabel}\n(too different to show as a diff: ${Buffer.byteLength(left)} bytes against ${Buffer.byteLength(right)})\n`;
}

/** The first `bytes` of the note now (empty when it is shorter or gone). */
function startOf(now: Buffer | null, bytes: number): string {
  return now === null || now.length < bytes ? '' : now.subarray(0, bytes).toString('utf8');
}

/** The note's text as the write left it (what a revert expects to find). */
export function leftBy(row: Pick<NoteWriteRow, 'op' | 'content' | 'bytes_before'>, now: Buffer | null): string {
  return row.op === 'create' ? row.content : startOf(now, row.bytes_before) + row.content;
}

/** What the write changed: before → after. */
export function diffOfWrite(row: NoteWriteRow, now: Buffer | null): string {
  const labels = [`before write ${row.write_id}`, `after write ${row.write_id}`] as const;
  switch (row.op) {
    case 'create':
      return unified(row.path, '', row.content, ...labels);
    case 'append': {
      const start = startOf(now, row.bytes_before);
      return unified(row.path, start, start + row.content, ...labels);
    }
    case 'revert': {
      // Undoing a create removed the whole note; undoing an append cut the note back to bytes_after.
      const start = row.sha256_after === null ? '' : startOf(now, row.bytes_after);
      return unified(row.path, start + row.content, start, ...labels);
    }
    default: {
      const never: never = row.op;
      throw new Error(`unknown write op ${String(never)}`);
    }
  }
}

/** A refused revert: the note as write `row` left it against the note now. */
export function conflictDiff(row: NoteWriteRow, now: Buffer | null): string {
  return unified(row.path, leftBy(row, now), now === null ? '' : now.toString('utf8'),
    `as write ${row.write_id} left it`, now === null ? 'now (the note is gone)' : 'now');
}
