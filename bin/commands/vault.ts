/**
 * `vault ls [under]`, `vault show <path>`, `vault writes [--path] [--session] [--limit]`
 * and `vault revert <write-id>`: the notes and the audit of every write kowalski made to
 * them. Through the server that owns the data directory, else on an embedded engine (which
 * settles writes a crash left pending when it opens). Revert exits 0 done, 1 refused as a
 * conflict (the diff printed), 2 bad input.
 */
import { KowalskiError } from '../../core/index.js';
import { VaultConflictError } from '../../engine/index.js';
import type { NoteInfo, NoteWrite, WriteFilter } from '../../engine/index.js';
import { openEngine } from './backend.js';
import { EXIT, dataDir } from './common.js';
import { findServer } from './remote.js';

interface NoteView { note: NoteInfo; content: string; writes: NoteWrite[] }

interface VaultAccess {
  list(under: string): Promise<NoteInfo[]>;
  show(path: string): Promise<NoteView>;
  writes(filter: WriteFilter): Promise<NoteWrite[]>;
  revert(id: number): Promise<NoteWrite>;
}

async function withVault<T>(fn: (access: VaultAccess) => Promise<T>): Promise<T> {
  const dir = dataDir();
  const lookup = await findServer(dir);
  if (lookup.kind === 'server') {
    const { api } = lookup;
    return fn({
      list: async (under) => (await api.request<{ notes: NoteInfo[] }>('GET', `api/vault/notes?${new URLSearchParams(under === '' ? {} : { under }).toString()}`)).notes,
      show: (path) => api.request('GET', `api/vault/note?${new URLSearchParams({ path }).toString()}`),
      async writes(filter) {
        const query = new URLSearchParams();
        if (filter.path !== undefined) query.set('path', filter.path);
        if (filter.sessionId !== undefined) query.set('session', filter.sessionId);
        if (filter.limit !== undefined) query.set('limit', String(filter.limit));
        return (await api.request<{ writes: NoteWrite[] }>('GET', `api/writes?${query.toString()}`)).writes;
      },
      revert: async (id) => (await api.request<{ write: NoteWrite }>('POST', `api/writes/${id}/revert`, { by: 'cli' })).write,
    });
  }
  const engine = await openEngine(dir, lookup);
  try {
    const v = engine.vault;
    return await fn({
      list: async (under) => v.list(under),
      show: async (path) => {
        const { note, content } = v.read(path);
        return { note, content, writes: v.writes({ path: note.path, limit: 50 }) };
      },
      writes: async (filter) => v.writes(filter),
      revert: (id) => v.revert(id, 'cli'),
    });
  } finally {
    await engine.close();
  }
}

const when = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');

function writeLine(w: NoteWrite): string {
  const who = w.by === 'agent' ? `${w.agent ?? '?'} in ${w.sessionId ?? '?'} (trace ${w.traceId ?? '?'})` : w.by;
  const undo = w.reverts === null ? '' : ` undoes ${w.reverts}`;
  const undone = w.revertedBy === null ? '' : ` (reverted by ${w.revertedBy})`;
  const error = w.error === null ? '' : `\n      ! ${w.error.message} [${w.error.code}]`;
  return `${String(w.writeId).padStart(5)}  ${when(w.at)}  ${w.op.padEnd(6)} ${w.state.padEnd(7)} ${w.path}  ${w.bytesBefore} → ${w.bytesAfter} bytes  ${who}${undo}${undone}${error}`;
}

export async function vaultLsCommand(under: string | undefined, opts: { json?: boolean }): Promise<number> {
  const notes = await withVault((v) => v.list(under ?? ''));
  if (opts.json === true) process.stdout.write(`${JSON.stringify({ notes })}\n`);
  else if (notes.length === 0) process.stdout.write(`no notes${under === undefined ? ' in the vault' : ` under ${under}`}\n`);
  else process.stdout.write(`${notes.map((n) => `${n.path}  ${n.title}  (${n.size_bytes} bytes, ${when(n.modified_at)})`).join('\n')}\n`);
  return EXIT.ok;
}

export async function vaultShowCommand(path: string, opts: { json?: boolean }): Promise<number> {
  const view = await withVault((v) => v.show(path));
  if (opts.json === true) process.stdout.write(`${JSON.stringify(view)}\n`);
  else process.stdout.write(view.content.endsWith('\n') || view.content === '' ? view.content : `${view.content}\n`);
  return EXIT.ok;
}

export async function vaultWritesCommand(opts: { path?: string; session?: string; limit?: string; json?: boolean }): Promise<number> {
  const limit = opts.limit === undefined ? undefined : Number(opts.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new KowalskiError('KW_ERR_USAGE', `--limit takes a whole number ≥ 1, not ${JSON.stringify(opts.limit)}`);
  const writes = await withVault((v) => v.writes({
    ...(opts.path === undefined ? {} : { path: opts.path }),
    ...(opts.session === undefined ? {} : { sessionId: opts.session }),
    ...(limit === undefined ? {} : { limit }),
  }));
  if (opts.json === true) process.stdout.write(`${JSON.stringify({ writes })}\n`);
  else if (writes.length === 0) process.stdout.write('no vault writes yet\n');
  else process.stdout.write(`${writes.map(writeLine).join('\n')}\n`);
  return EXIT.ok;
}

export async function vaultRevertCommand(idArg: string, opts: { json?: boolean }): Promise<number> {
  if (!/^[1-9][0-9]{0,15}$/.test(idArg)) throw new KowalskiError('KW_ERR_USAGE', `name the write by its id (a number; \`kowalski vault writes\` lists them), not ${JSON.stringify(idArg)}`);
  try {
    const write = await withVault((v) => v.revert(Number(idArg)));
    if (opts.json === true) process.stdout.write(`${JSON.stringify({ write })}\n`);
    else process.stdout.write(`reverted write ${idArg}: ${write.path} ${write.sha256After === null ? 'removed' : `cut back to ${write.bytesAfter} bytes`} (write ${write.writeId})\n`);
    return EXIT.ok;
  } catch (err) {
    if (!(err instanceof VaultConflictError)) throw err;
    if (opts.json === true) process.stdout.write(`${JSON.stringify({ error: { code: err.code, message: err.message, diff: err.diff } })}\n`);
    else {
      process.stderr.write(`kowalski: ${err.message} [${err.code}]\n`);
      process.stdout.write(err.diff);
    }
    return EXIT.failed;
  }
}
