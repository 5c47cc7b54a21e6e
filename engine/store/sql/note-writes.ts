/**
 * The vault's audit trail (`note_writes`, migration 6): one typed function per query,
 * positional parameters, typed rows. A write's row is inserted `pending` before the
 * note changes and settled `done` (or `failed`) after; see engine/vault/note-writes.ts.
 */
import type { Database } from 'better-sqlite3';
import type { WriteOp, WriteState } from '../../vault/types.js';
import { listByShape, whereOf } from '../where.js';

/** A row of `note_writes` as stored. */
export interface NoteWriteRow {
  write_id: number;
  at: number;
  finished_at: number | null;
  op: WriteOp;
  path: string;
  bytes_before: number;
  bytes_after: number;
  content: string;
  sha256_before: string | null;
  sha256_after: string | null;
  session_id: string | null;
  agent: string | null;
  trace_id: number | null;
  call_key: string | null;
  by: string;
  state: WriteState;
  /** JSON `{code, message}`. */
  error: string | null;
  reverts: number | null;
  reverted_by: number | null;
}

/** What a write intends, committed before the note is touched. */
export type NoteWriteIntent = Omit<NoteWriteRow, 'write_id' | 'finished_at' | 'state' | 'error' | 'reverted_by'>;

/** A write as a node following the audit sees it (engine/vault/search/write-follower.ts). */
export interface NoteWriteStep {
  write_id: number;
  path: string;
  state: WriteState;
}

export interface NoteWriteFilter {
  path?: string;
  sessionId?: string;
  /** Only writes with an id below this (paging backwards from the newest). */
  before?: number;
  limit: number;
}

export function noteWriteQueries(db: Database) {
  const insert = db.prepare<[at: number, op: WriteOp, path: string, bytesBefore: number, bytesAfter: number, content: string, shaBefore: string | null,
    shaAfter: string | null, sessionId: string | null, agent: string | null, traceId: number | null, callKey: string | null, by: string, reverts: number | null]>(
    `INSERT INTO note_writes (at, op, path, bytes_before, bytes_after, content, sha256_before, sha256_after, session_id, agent, trace_id, call_key, by, state, reverts)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)`);
  const done = db.prepare<[finishedAt: number, id: number]>("UPDATE note_writes SET state = 'done', finished_at = ? WHERE write_id = ? AND state = 'pending'");
  const failed = db.prepare<[finishedAt: number, error: string, id: number]>("UPDATE note_writes SET state = 'failed', finished_at = ?, error = ? WHERE write_id = ? AND state = 'pending'");
  const revertedBy = db.prepare<[revertId: number, id: number]>('UPDATE note_writes SET reverted_by = ? WHERE write_id = ?');
  const byId = db.prepare<[id: number], NoteWriteRow>('SELECT * FROM note_writes WHERE write_id = ?');
  const byCallKey = db.prepare<[key: string], NoteWriteRow>('SELECT * FROM note_writes WHERE call_key = ?');
  const pending = db.prepare<[], NoteWriteRow>("SELECT * FROM note_writes WHERE state = 'pending' ORDER BY write_id");
  const since = db.prepare<[after: number, limit: number], NoteWriteStep>('SELECT write_id, path, state FROM note_writes WHERE write_id > ? ORDER BY write_id LIMIT ?');
  const newest = db.prepare<[], { id: number | null }>('SELECT max(write_id) AS id FROM note_writes');
  // One statement per filter shape (prepared at its first use), so each can use its index.
  const listOf = listByShape<NoteWriteRow>(db, (where) => `SELECT * FROM note_writes ${where} ORDER BY write_id DESC LIMIT ?`);
  const list = (f: NoteWriteFilter): NoteWriteRow[] => {
    const where = whereOf([
      f.path === undefined ? undefined : ['path = ?', f.path],
      f.sessionId === undefined ? undefined : ['session_id = ?', f.sessionId],
      f.before === undefined ? undefined : ['write_id < ?', f.before],
    ]);
    return listOf(where, f.limit);
  };
  return {
    /** The intent, `pending`; returns its write id. */
    insertIntent: (w: NoteWriteIntent): number => Number(insert.run(w.at, w.op, w.path, w.bytes_before, w.bytes_after, w.content, w.sha256_before, w.sha256_after,
      w.session_id, w.agent, w.trace_id, w.call_key, w.by, w.reverts).lastInsertRowid),
    /** The note holds what the write intended. */
    markDone: (id: number, finishedAt: number): void => void done.run(finishedAt, id),
    /** The write could not be completed; `error` is JSON `{code, message}`. */
    markFailed: (id: number, finishedAt: number, error: string): void => void failed.run(finishedAt, error, id),
    /** `id` was undone by the revert `revertId`. */
    setRevertedBy: (id: number, revertId: number): void => void revertedBy.run(revertId, id),
    byId: (id: number): NoteWriteRow | undefined => byId.get(id),
    byCallKey: (key: string): NoteWriteRow | undefined => byCallKey.get(key),
    /** Writes whose outcome was not recorded (the engine stopped in between), oldest first. */
    pending: (): NoteWriteRow[] => pending.all(),
    /** Newest first. */
    list,
    /** The writes after `after`, oldest first, at most `limit`. */
    since: (after: number, limit: number): NoteWriteStep[] => since.all(after, limit),
    /** The newest write's id (0: none yet). */
    newest: (): number => newest.get()?.id ?? 0,
  };
}

export type NoteWriteQueries = ReturnType<typeof noteWriteQueries>;
