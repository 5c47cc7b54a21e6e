/**
 * createVault: the vault as the engine, the API, the CLI and the memory tools use it —
 * `<data>/vault/`, its notes (vault-notes.ts), its audited writes and their reverts
 * (note-writes.ts), its tools (vault-tools.ts). One operation at a time per note (a
 * per-path queue), so two appends to one note never interleave; notes apart go at once.
 * Shared by the nodes of a Postgres store (`<files>/vault/`, the audit in Postgres): the
 * note is also held across the nodes for the operation (NoteLocks).
 */
import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { KowalskiError } from '../../core/index.js';
import type { Tool } from '../../agents/index.js';
import type { Clock } from '../base/clock.js';
import type { CrashHook } from '../base/crash.js';
import { noteWriteQueries } from '../store/sql/note-writes.js';
import type { NoteWriteQueries, NoteWriteRow } from '../store/sql/note-writes.js';
import { readState } from './note-files.js';
import { scanNotes } from './note-scan.js';
import { NoteWrites, failure, toNoteWrite } from './note-writes.js';
import type { NoteInfo, NoteLocks, NoteWrite, SearchAnswer, SearchOptions, VaultIndex, VaultRecovery, WriteOrigin } from './types.js';
import { listNotes, readNote } from './vault-notes.js';
import { noteSegments, resolveNote } from './vault-paths.js';
import { createVaultTools } from './vault-tools.js';
import { diffOfWrite } from './write-diff.js';

/** `[vault] max_note_bytes` by default: 1 MiB. */
export const DEFAULT_MAX_NOTE_BYTES = 1024 * 1024;
/** Most writes one listing returns. */
export const MAX_WRITES_LISTED = 500;

/** The vault's audit in a store several nodes share (Postgres), and the notes held across them. */
export interface SharedVaultStore {
  queries: NoteWriteQueries;
  /** Runs a function in one transaction of that store. */
  transaction: (fn: () => void) => void;
  locks: NoteLocks;
}

export interface VaultOptions {
  /** The vault folder (`<data>/vault/`, or `<files>/vault/` shared by the nodes); made if missing. */
  root: string;
  /** The data folder's database: the audit (`note_writes`) unless `shared` is given. */
  db: Database.Database;
  /** The audit in the store the nodes share (Postgres), with the notes' locks across them; default: the audit in `db`, one process. */
  shared?: SharedVaultStore;
  clock: Clock;
  crash: CrashHook;
  /** Largest note a write may leave, and a read returns, bytes (default 1 MiB). */
  maxNoteBytes?: number;
  /** The search index (engine/vault/search/); without it search_notes scans the notes. */
  index?: VaultIndex;
}

export interface WriteFilter {
  path?: string;
  sessionId?: string;
  /** Default 100, at most MAX_WRITES_LISTED. */
  limit?: number;
  /** Only writes with an id below this (paging back). */
  before?: number;
}

export interface Vault {
  readonly root: string;
  readonly maxNoteBytes: number;
  /** The notes below a folder (default: all), by path. */
  list(under?: string): NoteInfo[];
  read(path: string): { note: NoteInfo; content: string };
  /** Whether the note exists (a path the vault refuses throws, as for `read`). */
  exists(path: string): Promise<boolean>;
  search(query: string, options?: SearchOptions): Promise<SearchAnswer>;
  /** A new note (KW_ERR_VAULT_EXISTS if there is one), audited; a write with `origin.callKey` made before is returned instead. */
  create(path: string, content: string, origin: WriteOrigin): Promise<NoteWrite>;
  /** Text at the end of a note (KW_ERR_VAULT_NOT_FOUND if none), on a new line if the note lacks a final one; audited, keyed like `create`. */
  append(path: string, content: string, origin: WriteOrigin): Promise<NoteWrite>;
  /** The audit, newest first. */
  writes(filter: WriteFilter): NoteWrite[];
  /** One write and the change it made as a unified diff; KW_ERR_VAULT_WRITE_NOT_FOUND. */
  write(id: number): Promise<{ write: NoteWrite; diff: string }>;
  /** Undo a write (VaultConflictError with a diff when the note changed since); resolves with the revert's own row. */
  revert(id: number, by: string): Promise<NoteWrite>;
  /** Settle the writes a crash left pending (at engine start). */
  recover(): Promise<VaultRecovery>;
  setIndex(index: VaultIndex): void;
  /** list_notes, read_note, search_notes, create_note, append_note. */
  tools(): Tool[];
}

export function createVault(options: VaultOptions): Vault {
  const root = options.root;
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  const maxNoteBytes = options.maxNoteBytes ?? DEFAULT_MAX_NOTE_BYTES;
  let index = options.index;
  const shared = options.shared;
  const queries = shared?.queries ?? noteWriteQueries(options.db);
  const notes = new NoteWrites({
    root, queries, clock: options.clock, crash: options.crash, maxNoteBytes,
    transaction: shared?.transaction ?? ((fn) => options.db.transaction(fn)()),
    onChanged: (rel) => index?.noteChanged(rel),
  });

  // Shared by several nodes: the note is held across them for the operation, and a write a dead node left pending on it is settled first.
  const held = <T>(rel: string, op: () => Promise<T>): (() => Promise<T>) => (shared === undefined ? op : async () => {
    const release = await shared.locks.hold(rel);
    try {
      await notes.settleOrphans(rel);
      return await op();
    } finally {
      release();
    }
  });

  // The per-path queue: each operation on a note starts when the one before it has ended.
  const tails = new Map<string, Promise<unknown>>();
  const queued = <T>(rel: string, unheld: () => Promise<T>): Promise<T> => {
    const op = held(rel, unheld);
    const run = (tails.get(rel) ?? Promise.resolve()).then(op, op);
    const tail = run.catch(() => undefined);
    tails.set(rel, tail);
    void tail.then(() => {
      if (tails.get(rel) === tail) tails.delete(rel);
    });
    return run;
  };

  const done = (row: NoteWriteRow): NoteWrite => {
    if (row.state === 'failed') throw failure(row);
    return toNoteWrite(row);
  };
  const keyed = async (origin: WriteOrigin, write: () => Promise<NoteWriteRow>): Promise<NoteWrite> => {
    const earlier = origin.callKey === null ? undefined : await notes.earlier(origin.callKey);
    return done(earlier ?? await write());
  };
  const requireRow = (id: number): NoteWriteRow => {
    const row = Number.isSafeInteger(id) ? queries.byId(id) : undefined;
    if (row === undefined) throw new KowalskiError('KW_ERR_VAULT_WRITE_NOT_FOUND', `there is no vault write ${id}; \`kowalski vault writes\` lists them`);
    return row;
  };

  const vault: Vault = {
    root,
    maxNoteBytes,
    list: (under) => listNotes(root, under),
    read: (path) => readNote(root, path, maxNoteBytes),
    exists: (path) => Promise.resolve(resolveNote(root, path).stat !== null),
    search: (query, opts) => (index === undefined ? Promise.resolve(scanNotes(root, maxNoteBytes, query, opts)) : index.search(query, opts)),
    create: async (path, content, origin) => queued(noteSegments(path).join('/'), () => keyed(origin, () => notes.create(path, content, origin))),
    append: async (path, content, origin) => queued(noteSegments(path).join('/'), () => keyed(origin, () => notes.append(path, content, origin))),
    writes: (filter) => queries.list({
      limit: Math.min(Math.max(1, filter.limit ?? 100), MAX_WRITES_LISTED),
      ...(filter.path === undefined ? {} : { path: noteSegments(filter.path).join('/') }),
      ...(filter.sessionId === undefined ? {} : { sessionId: filter.sessionId }),
      ...(filter.before === undefined ? {} : { before: filter.before }),
    }).map(toNoteWrite),
    async write(id) {
      const row = requireRow(id);
      let now: Buffer | null = null;
      try {
        now = (await readState(resolveNote(root, row.path).abs)).bytes;
      } catch {
        // The note's path is unreadable now (a link put in its way): the diff is shown without its context.
      }
      return { write: toNoteWrite(row), diff: diffOfWrite(row, now) };
    },
    revert: async (id, by) => {
      const target = requireRow(id);
      // Read again inside the queue: a revert of the same write queued just before has ended by then.
      return queued(target.path, async () => done(await notes.revert(requireRow(id), by)));
    },
    recover: () => notes.recover(shared?.locks),
    setIndex(next) {
      index = next;
    },
    tools: () => createVaultTools(vault),
  };
  return vault;
}
