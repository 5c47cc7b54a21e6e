/**
 * A worker thread with its own connection that checkpoints the WAL in the background,
 * so checkpoints never run inside (or block) a commit on the engine's thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, intervalMs, truncatePages } = workerData as { file: string; intervalMs: number; truncatePages: number };
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
    if (row !== undefined && row.log > truncatePages && row.checkpointed === row.log) db.pragma('wal_checkpoint(TRUNCATE)');
    parentPort?.postMessage({ type: 'checkpointed', log: row?.log ?? 0, checkpointed: row?.checkpointed ?? 0 });
  } catch (err) {
    parentPort?.postMessage({ type: 'error', message: (err as Error).message });
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
