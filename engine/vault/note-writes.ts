/**
 * The vault's audited, durable writes. Every change kowalski makes to a note is one step
 * of three: the intent is committed (`note_writes` row, `pending`, with the sizes and
 * hashes before and after), the note is written atomically (note-files.ts), the result is
 * committed (`done`). After a crash in between, `settle` looks at the note: as the write
 * intended → done; as it was before → the write is made now → done; anything else → the
 * row is `failed` with KW_ERR_VAULT_WRITE_INTERRUPTED and what was found, and the note is
 * left alone. So no write is ever half-done or unrecorded.
 *
 * A revert is a write like the others (op `revert`): it undoes an append only while the
 * note still ends with that text at that size, a create only while the note is exactly
 * what was written; otherwise it is refused with a diff (VaultConflictError).
 */
import { KowalskiError, isErrorCode, toPlainError } from '../../core/index.js';
import type { Clock } from '../base/clock.js';
import type { CrashHook } from '../base/crash.js';
import type { NoteWriteQueries, NoteWriteRow } from '../store/sql/note-writes.js';
import { putNote, readState, sha256, sweepTempNotes } from './note-files.js';
import type { NoteState } from './note-files.js';
import type { NoteLocks, NoteWrite, VaultRecovery, WriteOrigin } from './types.js';
import { resolveNote } from './vault-paths.js';
import { conflictDiff } from './write-diff.js';

/** A revert refused because the note changed since the write: `diff` shows how (as the write left it → now). */
export class VaultConflictError extends KowalskiError {
  constructor(message: string, readonly diff: string) {
    super('KW_ERR_VAULT_CONFLICT', message);
  }
}

export interface NoteWritesDeps {
  root: string;
  queries: NoteWriteQueries;
  /** Runs a function in one transaction (the database's). */
  transaction: (fn: () => void) => void;
  clock: Clock;
  crash: CrashHook;
  maxNoteBytes: number;
  /** Told of every note kowalski changed (the search index). */
  onChanged: (rel: string) => void;
}

export function toNoteWrite(r: NoteWriteRow): NoteWrite {
  return {
    writeId: r.write_id, at: r.at, op: r.op, path: r.path, bytesBefore: r.bytes_before, bytesAfter: r.bytes_after, content: r.content,
    sha256Before: r.sha256_before, sha256After: r.sha256_after, sessionId: r.session_id, agent: r.agent, traceId: r.trace_id, by: r.by,
    state: r.state, error: r.error === null ? null : JSON.parse(r.error) as NoteWrite['error'], reverts: r.reverts, revertedBy: r.reverted_by,
  };
}

/** The note a row intends, from the note as it was before (which the row's hash vouches for). */
function intended(row: Pick<NoteWriteRow, 'op' | 'content' | 'bytes_after' | 'sha256_after'>, before: Buffer | null): Buffer | null {
  const old = before ?? Buffer.alloc(0);
  switch (row.op) {
    case 'create':
      return Buffer.from(row.content, 'utf8');
    case 'append':
      return Buffer.concat([old, Buffer.from(row.content, 'utf8')]);
    case 'revert':
      // Undoing a create removes the note; undoing an append cuts it back.
      return row.sha256_after === null ? null : old.subarray(0, row.bytes_after);
    default: {
      const never: never = row.op;
      throw new Error(`unknown write op ${String(never)}`);
    }
  }
}

/** A failed row as the error it records. */
export function failure(row: NoteWriteRow): KowalskiError {
  const error = JSON.parse(row.error ?? '{}') as { code?: unknown; message?: unknown };
  return new KowalskiError(isErrorCode(error.code) ? error.code : 'KW_ERR_VAULT_WRITE_INTERRUPTED', String(error.message ?? `write ${row.write_id} failed`));
}

/** In a vault folder shared by several nodes, a temp file younger than this may be a live node's write in flight, ms. */
const SHARED_TEMP_AGE_MS = 60_000;

const describe = (s: NoteState): string => (s.bytes === null || s.sha256 === null ? 'no note' : `${s.bytes.length} bytes, sha256 ${s.sha256.slice(0, 12)}…`);

export class NoteWrites {
  constructor(private readonly deps: NoteWritesDeps) {}

  private tooLarge(rel: string, bytes: number): KowalskiError {
    return new KowalskiError('KW_ERR_VAULT_TOO_LARGE', `${JSON.stringify(rel)} would be ${bytes} bytes, over the vault's limit of ${this.deps.maxNoteBytes} ([vault] max_note_bytes); write a shorter text or start another note`);
  }

  /** The row of a call already made (the same tool call again after a crash): settled first if it was left pending. */
  async earlier(callKey: string): Promise<NoteWriteRow | undefined> {
    const row = this.deps.queries.byCallKey(callKey);
    if (row?.state !== 'pending') return row;
    await this.settle(row);
    return this.deps.queries.byId(row.write_id);
  }

  /** A new note; KW_ERR_VAULT_EXISTS when there is one. */
  async create(path: string, content: string, origin: WriteOrigin): Promise<NoteWriteRow> {
    const note = resolveNote(this.deps.root, path);
    if (note.stat !== null) throw new KowalskiError('KW_ERR_VAULT_EXISTS', `the note ${JSON.stringify(note.rel)} exists already; append_note adds to it, or choose another name`);
    const bytes = Buffer.from(content, 'utf8');
    if (bytes.length > this.deps.maxNoteBytes) throw this.tooLarge(note.rel, bytes.length);
    return this.durable({ op: 'create', rel: note.rel, before: { bytes: null, sha256: null }, after: bytes, content, origin, reverts: null });
  }

  /** Text added at the end of an existing note, after a newline when the note does not end with one. */
  async append(path: string, content: string, origin: WriteOrigin): Promise<NoteWriteRow> {
    const note = resolveNote(this.deps.root, path);
    if (note.stat === null) throw new KowalskiError('KW_ERR_VAULT_NOT_FOUND', `there is no note ${JSON.stringify(note.rel)}; create_note makes a new one`);
    const before = await readState(note.abs);
    const old = before.bytes ?? Buffer.alloc(0);
    const added = old.length > 0 && old[old.length - 1] !== 0x0a ? `\n${content}` : content;
    const size = old.length + Buffer.byteLength(added, 'utf8');
    if (size > this.deps.maxNoteBytes) throw this.tooLarge(note.rel, size);
    return this.durable({ op: 'append', rel: note.rel, before, after: Buffer.concat([old, Buffer.from(added, 'utf8')]), content: added, origin, reverts: null });
  }

  /** Undo a done write (see the top of this file); the revert's own row is returned. */
  async revert(target: NoteWriteRow, by: string): Promise<NoteWriteRow> {
    const refuse = (why: string): KowalskiError => new KowalskiError('KW_ERR_VAULT_NOT_REVERTIBLE', `write ${target.write_id} (${target.op} of ${target.path}) ${why}`);
    if (target.op === 'revert') throw refuse('is a revert itself; to bring the text back, write it again');
    if (target.reverted_by !== null) throw refuse(`was reverted already, by write ${target.reverted_by}`);
    if (target.state !== 'done') throw refuse(`never completed (it is ${target.state})`);
    const note = resolveNote(this.deps.root, target.path);
    const now = note.stat === null ? { bytes: null, sha256: null } : await readState(note.abs);
    const intact = target.op === 'create'
      ? now.sha256 === target.sha256_after
      : now.bytes !== null && now.bytes.length === target.bytes_after && now.bytes.subarray(target.bytes_before).equals(Buffer.from(target.content, 'utf8'));
    if (!intact) {
      const what = target.op === 'create' ? 'is no longer exactly what it created' : 'no longer ends with what it appended at that size';
      throw new VaultConflictError(`cannot revert write ${target.write_id}: ${target.path} ${what} (it is ${describe(now)} now); the diff shows the note as the write left it against the note now`, conflictDiff(target, now.bytes));
    }
    return this.durable({
      op: 'revert', rel: note.rel, before: now, content: target.content, reverts: target.write_id,
      after: target.op === 'create' ? null : now.bytes!.subarray(0, target.bytes_before),
      origin: { sessionId: null, agent: null, traceId: null, callKey: null, by },
    });
  }

  /**
   * The three steps: intent committed, note written, result committed. When the file write
   * fails, the row is settled from what the note holds then: done, or failed and thrown.
   */
  private async durable(w: { op: NoteWriteRow['op']; rel: string; before: NoteState; after: Buffer | null; content: string; origin: WriteOrigin; reverts: number | null }): Promise<NoteWriteRow> {
    const id = this.deps.queries.insertIntent({
      at: this.deps.clock.now(), op: w.op, path: w.rel, content: w.content,
      bytes_before: w.before.bytes?.length ?? 0, bytes_after: w.after?.length ?? 0,
      sha256_before: w.before.sha256, sha256_after: w.after === null ? null : sha256(w.after),
      session_id: w.origin.sessionId, agent: w.origin.agent, trace_id: w.origin.traceId, call_key: w.origin.callKey, by: w.origin.by, reverts: w.reverts,
    });
    this.deps.crash('vault-after-intent');
    try {
      await putNote(this.deps.root, w.rel, w.after);
    } catch (err) {
      const row = this.deps.queries.byId(id)!;
      if (await this.settle(row, err) === 'failed') throw failure(this.deps.queries.byId(id)!);
      return this.deps.queries.byId(id)!;
    }
    this.deps.crash('vault-after-file');
    this.finish(this.deps.queries.byId(id)!);
    this.deps.onChanged(w.rel);
    return this.deps.queries.byId(id)!;
  }

  private finish(row: NoteWriteRow): void {
    this.deps.transaction(() => {
      this.deps.queries.markDone(row.write_id, this.deps.clock.now());
      if (row.reverts !== null) this.deps.queries.setRevertedBy(row.reverts, row.write_id);
    });
  }

  private fail(row: NoteWriteRow, error: { code: string; message: string }): void {
    this.deps.queries.markFailed(row.write_id, this.deps.clock.now(), JSON.stringify(error));
  }

  /**
   * A pending row, from the note as it is now. `cause` is the error that cut the write in
   * this process (the note is then not written again); without one (a crash), a note still
   * as it was before gets the write now.
   */
  private async settle(row: NoteWriteRow, cause?: unknown): Promise<'done' | 'failed'> {
    let now: NoteState;
    try {
      now = await readState(resolveNote(this.deps.root, row.path).abs);
    } catch (err) {
      this.fail(row, { code: 'KW_ERR_VAULT_WRITE_INTERRUPTED', message: `write ${row.write_id} (${row.op} of ${row.path}) was interrupted and the note cannot be read now: ${toPlainError(err).message}` });
      return 'failed';
    }
    if (now.sha256 === row.sha256_after) {
      this.finish(row);
      this.deps.onChanged(row.path);
      return 'done';
    }
    if (now.sha256 === row.sha256_before) {
      if (cause !== undefined) {
        const plain = toPlainError(cause);
        this.fail(row, { code: plain.code, message: `write ${row.write_id} (${row.op} of ${row.path}) failed and changed nothing: ${plain.message}` });
        return 'failed';
      }
      try {
        await putNote(this.deps.root, row.path, intended(row, now.bytes));
      } catch (err) {
        return this.settle(row, err);
      }
      this.finish(row);
      this.deps.onChanged(row.path);
      return 'done';
    }
    this.fail(row, {
      code: 'KW_ERR_VAULT_WRITE_INTERRUPTED',
      message: `write ${row.write_id} (${row.op} of ${row.path}) was interrupted, and the note is now neither as before it (${row.sha256_before === null ? 'no note' : `${row.bytes_before} bytes`}) nor as after it (${row.sha256_after === null ? 'no note' : `${row.bytes_after} bytes`}): it holds ${describe(now)}. Nothing was changed; look at the note.`,
    });
    return 'failed';
  }

  /**
   * Settle every write left pending by a crash (at engine start, before chat turns go on), then remove the temp files killed writes left.
   * `locks` (a vault shared by several nodes): a write whose note another node holds is that node's, in flight, and is left to it,
   * and only temp files older than SHARED_TEMP_AGE_MS are removed.
   */
  async recover(locks?: NoteLocks): Promise<VaultRecovery> {
    const out = { completed: 0, failed: 0, swept: 0 };
    for (const row of this.deps.queries.pending()) {
      const release = locks === undefined ? () => undefined : locks.tryHold(row.path);
      if (release === undefined) continue;
      try {
        // Read again under the note's lock: its writer may have settled it since the list was read.
        const now = this.deps.queries.byId(row.write_id)!;
        if (now.state !== 'pending') continue;
        if (await this.settle(now) === 'done') out.completed += 1;
        else out.failed += 1;
      } finally {
        release();
      }
    }
    // Other nodes may be writing the shared folder now: only temp files older than any write in flight go.
    out.swept = await sweepTempNotes(this.deps.root, locks === undefined ? undefined : this.deps.clock.now() - SHARED_TEMP_AGE_MS);
    return out;
  }

  /** Settle the writes of `rel` left pending by a node that died (a vault shared by several nodes; called holding the note's lock, so none is in flight). */
  async settleOrphans(rel: string): Promise<void> {
    for (const row of this.deps.queries.pending()) {
      if (row.path === rel) await this.settle(row);
    }
  }
}
