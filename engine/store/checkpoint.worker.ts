/**
 * A worker thread with its own connection that checkpoints the WAL in the background,
 * so checkpoints never run inside (or block) a commit on the engine's thread. It only
 * ever runs PASSIVE checkpoints, which take no lock a writer waits for: a RESTART or
 * TRUNCATE checkpoint here would hold the write lock against the engine's connection,
 * whose commit could then fail with SQLITE_BUSY (seen under load). Finishing the
 * checkpoint, so that the WAL starts over, is the engine thread's job (checkpointer.ts),
 * between its own transactions: the fewer frames this thread leaves it, the shorter that
 * pause, so a tick checkpoints again while a pass found frames committed during the last.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = new Database(file);
db.pragma('busy_timeout = 100');
parentPort?.postMessage({ type: 'ready' });

/** Passes per tick at most (each ends with a sync of the database file). */
const PASSES = 4;
let busy = false;
const timer = setInterval(() => {
  if (busy) return;
  busy = true;
  try {
    // PASSIVE never waits for readers or writers; the WAL restarts from the start once fully checkpointed.
    let row: { busy: number; log: number; checkpointed: number } | undefined;
    for (let pass = 0, before = -1; pass < PASSES && row?.log !== before; pass++) {
      before = row?.log ?? -1;
      [row] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
      if (row === undefined || row.checkpointed < row.log) break; // a reader holds frames back: the next tick
    }
    parentPort?.postMessage({ type: 'checkpointed', log: row?.log ?? 0, checkpointed: row?.checkpointed ?? 0 });
  } catch (err) {
    // Busy: the engine thread is finishing a checkpoint right now; the next tick checkpoints.
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
