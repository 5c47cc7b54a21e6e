/**
 * Starts and stops the background WAL checkpointer (checkpoint.worker.ts), and keeps the
 * WAL from growing without bound, in two ways.
 *
 * - **Started over (the usual way).** Under steady commits the thread's checkpoint never
 *   quite catches up (the engine commits while it copies), so SQLite never starts the WAL
 *   over by itself. Once the thread reports the WAL copied up to where its pass began and
 *   longer than `walPages`, the engine's own connection, between two of its transactions,
 *   copies the few frames committed since (a PASSIVE checkpoint, waiting for no one). The
 *   WAL is then wholly in the database, the engine's next commit writes it from its start,
 *   and `journal_size_limit` cuts the file back to `walPages`. That costs the copy of a few
 *   frames: 0.4–6 ms measured in W1, where truncating the WAL cost 13–80 ms.
 * - **Truncated (the guard).** The restart needs the WAL's read marks free at that commit,
 *   and the thread's reports need its checkpoints to get through: a writer committing
 *   nearly all the time on a loaded machine starved both (the WAL passed 200 MB in the
 *   checkpointer test). So the engine's thread also looks at the WAL file's size at each
 *   interval and, past 4 × `walPages`, truncates it itself between two transactions
 *   (`wal_checkpoint(TRUNCATE)`).
 *
 * The thread starts only once the WAL is long enough to be worth copying (a quarter of
 * `walPages`, ≈ 4 MiB by default).
 */
import { once } from 'node:events';
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';
import { systemClock } from '../base/clock.js';
import type { Clock } from '../base/clock.js';
import { workerOf } from '../base/modules.js';
import type { ModuleToRun } from '../base/modules.js';
import { every, systemTimers } from '../base/timers.js';
import type { Timers } from '../base/timers.js';
import { messageOf } from '../../core/index.js';

export interface Checkpointer {
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  /** How often to checkpoint, in ms (default 1000). */
  intervalMs?: number;
  /** Past this many pages the WAL is started over, and its file cut back to this size (default 4096 ≈ 16 MiB). */
  walPages?: number;
  onError?(message: string): void;
  /** Each time the WAL was left wholly checkpointed, to be started over by the next commit. */
  onRestarted?(): void;
  /** Each time the WAL file had grown past 4 × `walPages` regardless, and was truncated. */
  onTruncated?(): void;
  /** The engine's clock and timers, for the look at the WAL's size (default: the real ones). */
  clock?: Clock;
  timers?: Timers;
  /** checkpoint.worker as the engine's own code has it (default: the module beside this one). */
  module?: ModuleToRun | undefined;
}

/** Past this many bytes, the WAL file is truncated by the engine's thread: 4 × `walPages`. */
export function truncatedPastBytes(walPages: number, pageSize: number): number {
  return 4 * walPages * pageSize;
}

interface Report {
  type: 'ready' | 'checkpointed' | 'error';
  message?: string;
  log?: number;
  checkpointed?: number;
}

/** The thread starts once the WAL passes a quarter of `walPages`: before, there is nothing worth copying. */
export function threadPastBytes(walPages: number, pageSize: number): number {
  return (walPages * pageSize) / 4;
}

/**
 * `db` is the engine's (the only writing) connection to `file`. The thread is started
 * once the WAL passes `threadPastBytes` (looked at each interval): an engine that commits
 * little — a CLI command, a short session — never starts one (a thread's start costs more
 * CPU than such an engine's whole work).
 */
export async function startCheckpointer(db: Database, file: string, options: CheckpointerOptions = {}): Promise<Checkpointer> {
  const intervalMs = options.intervalMs ?? 1000;
  const walPages = options.walPages ?? 4096;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  db.pragma(`journal_size_limit = ${walPages * pageSize}`);
  let stopped = false;
  let thread: Promise<Worker | undefined> | undefined;
  const startThread = async (): Promise<Worker | undefined> => {
    const { entry, options: threadOptions } = workerOf(import.meta.url, 'checkpoint.worker', options.module);
    const worker = new Worker(entry, { ...threadOptions, workerData: { file, intervalMs, walPages } });
    try {
      await new Promise<void>((resolve, reject) => {
        worker.once('error', reject);
        worker.on('message', (m: Report) => {
          if (m.type === 'ready') resolve();
          if (m.type === 'error') options.onError?.(m.message ?? 'checkpoint failed');
          if (m.type !== 'checkpointed' || stopped || (m.log ?? 0) <= walPages) return;
          // The thread waits for 'finished' before its next pass: it holds no lock meanwhile.
          if (m.checkpointed === m.log && checkpointBetweenTransactions(db, 'PASSIVE', options.onError)) options.onRestarted?.();
          worker.postMessage({ type: 'finished' });
        });
      });
    } catch (err) {
      options.onError?.(`the checkpoint thread did not start: ${messageOf(err)}`);
      return undefined;
    }
    worker.on('error', (err) => options.onError?.(err.message));
    worker.unref();
    return worker;
  };
  const clock = options.clock ?? systemClock;
  const timers = options.timers ?? systemTimers(clock);
  const guard = every(timers, clock, () => intervalMs, () => {
    const bytes = walBytes(file);
    if (thread === undefined && bytes > threadPastBytes(walPages, pageSize)) thread = startThread();
    if (bytes > truncatedPastBytes(walPages, pageSize) && checkpointBetweenTransactions(db, 'TRUNCATE', options.onError)) options.onTruncated?.();
  });
  return {
    async stop() {
      stopped = true;
      guard.stop();
      const worker = await thread;
      if (worker === undefined) return;
      const exited = once(worker, 'exit');
      worker.ref(); // keep the process alive until the thread has closed its connection
      worker.postMessage({ type: 'stop' });
      await exited;
    },
  };
}

function walBytes(file: string): number {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0; // no WAL file (yet)
  }
}

/**
 * A checkpoint on the writing connection, between its transactions: nothing is committed
 * meanwhile, so it copies the whole WAL, unless a reader in another process (`kowalski
 * history`, a backup) still needs old frames or the thread is checkpointing right now; it
 * is then simply tried again later. It must not wait for either: the busy timeout is 0
 * for it. True when the WAL was left wholly copied.
 */
function checkpointBetweenTransactions(db: Database, mode: 'PASSIVE' | 'TRUNCATE', onError?: (message: string) => void): boolean {
  if (!db.open || db.inTransaction) return false;
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    const [row] = db.pragma(`wal_checkpoint(${mode})`) as { busy: number; log: number; checkpointed: number }[];
    return row !== undefined && row.busy === 0 && row.checkpointed === row.log;
  } catch (err) {
    if ((err as { code?: string }).code !== 'SQLITE_BUSY') onError?.(messageOf(err));
    return false;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}
