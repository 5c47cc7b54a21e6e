/** Starts and stops the background WAL checkpointer (checkpoint.worker.ts). */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
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
}

/** Resolves once the thread has its own connection open. */
export async function startCheckpointer(file: string, options: CheckpointerOptions = {}): Promise<Checkpointer> {
  const worker = new Worker(workerEntry(import.meta.url, 'checkpoint.worker'), {
    workerData: { file, intervalMs: options.intervalMs ?? 1000, truncatePages: options.truncatePages ?? 4096 },
  });
  const ready = new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (m: { type: string; message?: string }) => {
      if (m.type === 'ready') resolve();
      if (m.type === 'error') options.onError?.(m.message ?? 'checkpoint failed');
    });
  });
  await ready;
  worker.on('error', (err) => options.onError?.(err.message));
  worker.unref();
  return {
    async stop() {
      const exited = once(worker, 'exit');
      worker.ref(); // keep the process alive until the thread has closed its connection
      worker.postMessage({ type: 'stop' });
      await exited;
    },
  };
}
