/**
 * A worker thread with its own connection that checkpoints the WAL in the background,
 * so checkpoints never run inside (or block) a commit on the engine's thread. It only
 * ever runs PASSIVE checkpoints, which take no lock a writer waits for: a RESTART or
 * TRUNCATE checkpoint here would hold the write lock against the engine's connection,
 * whose commit could then fail with SQLITE_BUSY (seen under load).
 *
 * Finishing the checkpoint, so that the WAL starts over, is the engine thread's job
 * (checkpointer.ts), between its own transactions. Once this thread reports a WAL longer
 * than `walPages`, it checkpoints no more until the engine says it is done: a
 * pass of this thread holds the locks the engine's checkpoint and the WAL's restart need,
 * and with a thread ticking every millisecond on a loaded machine they were held at
 * nearly every try (the WAL grew past 200 MB in the checkpointer test).
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { messageOf } from '../../core/index.js';

const { file, intervalMs, walPages } = workerData as { file: string; intervalMs: number; walPages: number };
const db = new Database(file);
db.pragma('busy_timeout = 100');
parentPort?.postMessage({ type: 'ready' });

/** Reported a long WAL: the engine's connection is finishing the checkpoint. */
let handedOver = false;
const timer = setInterval(() => {
  if (handedOver) return;
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    const log = row?.log ?? 0;
    const checkpointed = row?.checkpointed ?? 0;
    handedOver = log > walPages;
    parentPort?.postMessage({ type: 'checkpointed', log, checkpointed });
  } catch (err) {
    // Busy: another connection is checkpointing right now; the next tick checkpoints.
    if ((err as { code?: string }).code !== 'SQLITE_BUSY') parentPort?.postMessage({ type: 'error', message: messageOf(err) });
  }
}, intervalMs);

parentPort?.on('message', (m: { type: string }) => {
  if (m.type === 'finished') handedOver = false;
  if (m.type === 'stop') {
    clearInterval(timer);
    db.close();
    parentPort?.close();
  }
});
