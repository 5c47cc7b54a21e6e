/**
 * The vault's audit trail on Postgres (`note_writes`, migration 8): the same functions as
 * ../../sql/note-writes.ts, so every node's writes are audited in one place and a revert
 * works from any node. `by` is quoted: a reserved word in Postgres.
 */
import type { NoteWriteFilter, NoteWriteQueries, NoteWriteRow, NoteWriteStep } from '../../sql/note-writes.js';
import { numbered, whereOf } from '../../where.js';
import type { PgSession } from '../session.js';

export function pgNoteWriteQueries(s: PgSession): NoteWriteQueries {
  const list = (f: NoteWriteFilter): NoteWriteRow[] => {
    const where = whereOf([
      f.path === undefined ? undefined : ['path = ?', f.path],
      f.sessionId === undefined ? undefined : ['session_id = ?', f.sessionId],
      f.before === undefined ? undefined : ['write_id < ?', f.before],
    ]);
    return s.all<NoteWriteRow>(numbered(`SELECT * FROM note_writes ${where.sql} ORDER BY write_id DESC LIMIT ?`), [...where.params, f.limit]);
  };
  return {
    insertIntent: (w) => s.get<{ write_id: number }>(
      `INSERT INTO note_writes (at, op, path, bytes_before, bytes_after, content, sha256_before, sha256_after, session_id, agent, trace_id, call_key, "by", state, reverts)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'pending', $14) RETURNING write_id`,
      [w.at, w.op, w.path, w.bytes_before, w.bytes_after, w.content, w.sha256_before, w.sha256_after, w.session_id, w.agent, w.trace_id, w.call_key, w.by, w.reverts])!.write_id,
    markDone: (id, finishedAt) => s.write("UPDATE note_writes SET state = 'done', finished_at = $1 WHERE write_id = $2 AND state = 'pending'", [finishedAt, id]),
    markFailed: (id, finishedAt, error) => s.write(
      "UPDATE note_writes SET state = 'failed', finished_at = $1, error = $2 WHERE write_id = $3 AND state = 'pending'", [finishedAt, error, id]),
    setRevertedBy: (id, revertId) => s.write('UPDATE note_writes SET reverted_by = $1 WHERE write_id = $2', [revertId, id]),
    byId: (id) => s.get<NoteWriteRow>('SELECT * FROM note_writes WHERE write_id = $1', [id]),
    byCallKey: (key) => s.get<NoteWriteRow>('SELECT * FROM note_writes WHERE call_key = $1', [key]),
    pending: () => s.all<NoteWriteRow>("SELECT * FROM note_writes WHERE state = 'pending' ORDER BY write_id"),
    list,
    since: (after, limit) => s.all<NoteWriteStep>('SELECT write_id, path, state FROM note_writes WHERE write_id > $1 ORDER BY write_id LIMIT $2', [after, limit]),
    newest: () => s.get<{ id: number | null }>('SELECT max(write_id) AS id FROM note_writes')?.id ?? 0,
  };
}
