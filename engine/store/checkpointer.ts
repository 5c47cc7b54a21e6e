/**
 * Starts and stops the background WAL checkpointer (checkpoint.worker.ts), and keeps the
 * WAL from growing without bound. Under steady commits the thread's checkpoint never
 * quite catches up (the engine commits while it copies), so SQLite never starts the WAL
 * over. Once the thread reports the WAL copied up to where its pass began and longer than
 * `walPages`, the engine's own connection, between two of its transactions, copies the
 * few frames committed since (a PASSIVE checkpoint, waiting for no one): the WAL is then
 * wholly in the database, and the engine's next commit writes it again from its start.
 * `journal_size_limit` cuts the file back to `walPages` at that restart.
 *
 * Not `wal_checkpoint(TRUNCATE)` on the engine's thread, as before: cutting a WAL of tens
 * of MiB to nothing and syncing it stopped the engine for 25–80 ms each time (measured in
 * W1 at NORMAL), where this costs the copy of a few frames.
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';
import { workerEntry } from '../modules.js';

export interface Checkpointer {
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  /** How often to checkpoint, in ms (default 1000). */
  intervalMs?: number;
  /** Past this many pages the WAL is started over, and its file cut back to this size (default 4096 ≈ 16 MiB). */
  walPages?: number;
  onError?(message: string): void;
  /** Each time the WAL was left wholly checkpointed, to be started over by the next commit (the checkpointer test counts them). */
  onRestarted?(): void;
}

interface Report {
  type: 'ready' | 'checkpointed' | 'error';
  message?: string;
  log?: number;
  checkpointed?: number;
}

/**
 * `db` is the engine's (the only writing) connection to `file`. Resolves once the thread
 * has its own connection open.
 */
export async function startCheckpointer(db: Database, file: string, options: CheckpointerOptions = {}): Promise<Checkpointer> {
  const walPages = options.walPages ?? 4096;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  db.pragma(`journal_size_limit = ${walPages * pageSize}`);
  const worker = new Worker(workerEntry(import.meta.url, 'checkpoint.worker'), {
    workerData: { file, intervalMs: options.intervalMs ?? 1000 },
  });
  let stopped = false;
  const ready = new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (m: Report) => {
      if (m.type === 'ready') resolve();
      if (m.type === 'error') options.onError?.(m.message ?? 'checkpoint failed');
      if (m.type === 'checkpointed' && !stopped && (m.log ?? 0) > walPages && m.checkpointed === m.log) {
        if (finishCheckpoint(db, options.onError)) options.onRestarted?.();
      }
    });
  });
  await ready;
  worker.on('error', (err) => options.onError?.(err.message));
  worker.unref();
  return {
    async stop() {
      stopped = true;
      const exited = once(worker, 'exit');
      worker.ref(); // keep the process alive until the thread has closed its connection
      worker.postMessage({ type: 'stop' });
      await exited;
    },
  };
}

/**
 * `wal_checkpoint(PASSIVE)` on the writing connection, between its transactions: nothing
 * is committed meanwhile, so it copies the whole WAL, unless a reader in another process
 * (`kowalski history`, a backup) still needs old frames; then it is simply tried again at
 * a later report. It must not wait for that reader: the busy timeout is 0 for it.
 */
function finishCheckpoint(db: Database, onError?: (message: string) => void): boolean {
  if (!db.open || db.inTransaction) return false;
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    return row !== undefined && row.busy === 0 && row.checkpointed === row.log;
  } catch (err) {
    if ((err as { code?: string }).code !== 'SQLITE_BUSY') onError?.((err as Error).message);
    return false;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}
