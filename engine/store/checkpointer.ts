/**
 * Starts and stops the background WAL checkpointer (checkpoint.worker.ts), and keeps the
 * WAL file from growing without bound: once the thread reports the WAL fully copied into
 * the database and longer than `truncatePages`, the engine's own connection truncates it,
 * on the engine's thread between two transactions and without waiting for anyone.
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
  /** Above this many WAL pages, a fully checkpointed WAL is truncated (default 4096 ≈ 16 MiB). */
  truncatePages?: number;
  onError?(message: string): void;
  /** Each WAL truncation that happened (the checkpointer test counts them). */
  onTruncated?(): void;
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
  const truncatePages = options.truncatePages ?? 4096;
  const worker = new Worker(workerEntry(import.meta.url, 'checkpoint.worker'), {
    workerData: { file, intervalMs: options.intervalMs ?? 1000 },
  });
  let stopped = false;
  const ready = new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (m: Report) => {
      if (m.type === 'ready') resolve();
      if (m.type === 'error') options.onError?.(m.message ?? 'checkpoint failed');
      if (m.type === 'checkpointed' && !stopped && (m.log ?? 0) > truncatePages && m.checkpointed === m.log) {
        if (truncateWal(db, options.onError)) options.onTruncated?.();
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
 * `wal_checkpoint(TRUNCATE)` on the writing connection, which no other writer can be
 * holding up. It must not wait for a reader (another process's `kowalski history`, a
 * backup): the busy timeout is 0 for it, and a busy WAL is truncated at a later report.
 */
function truncateWal(db: Database, onError?: (message: string) => void): boolean {
  if (!db.open || db.inTransaction) return false;
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    const [row] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    return row?.busy === 0;
  } catch (err) {
    if ((err as { code?: string }).code !== 'SQLITE_BUSY') onError?.((err as Error).message);
    return false;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}
