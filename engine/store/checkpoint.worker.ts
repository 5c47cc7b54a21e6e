/**
 * A worker thread with its own connection that checkpoints the WAL in the background,
 * so checkpoints never run inside (or block) a commit on the engine's thread. It only
 * ever runs PASSIVE checkpoints, which take no lock a writer waits for: a RESTART or
 * TRUNCATE checkpoint here would hold the write lock against the engine's connection,
 * whose commit could then fail with SQLITE_BUSY (seen under load). Truncating the WAL is
 * the engine thread's job (checkpointer.ts), between its own transactions.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = new Database(file);
db.pragma('busy_timeout = 100');
parentPort?.postMessage({ type: 'ready' });

let busy = false;
const timer = setInterval(() => {
  if (busy) return;
  busy = true;
  try {
    // PASSIVE never waits for readers or writers; the WAL restarts from the start once fully checkpointed.
    const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    parentPort?.postMessage({ type: 'checkpointed', log: row?.log ?? 0, checkpointed: row?.checkpointed ?? 0 });
  } catch (err) {
    // Busy: the engine thread is truncating the WAL right now; the next tick checkpoints.
    if ((err as { code?: string }).code !== 'SQLITE_BUSY') parentPort?.postMessage({ type: 'error', message: (err as Error).message });
  } finally {
    busy = false;
  }
}, intervalMs);

parentPort?.on('message', (m: { type: string }) => {
  if (m.type === 'stop') {
    clearInterval(timer);
    db.close();
    parentPort?.close();
  }
});
