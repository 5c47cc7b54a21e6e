/**
 * Memory given back after large bodies. A bundle upload (up to 20 MiB), a burst of 1 MiB
 * JSON bodies or uploads cut mid-way leave their buffers and strings behind as garbage, and
 * V8 frees it only at its next full collection — which a quiet server may not reach for a
 * long time, so its memory stays near the peak (`npm run bench -- memory`). When the
 * process has `gc` (bin/kowalski starts Node with --expose-gc), one full collection is run
 * once no request with a body of `minBytes` or more has been under way for `quietMs`, and
 * likewise after `soon()` (the websocket hub calls it when a client that stopped reading is
 * gone, with what waited in its socket). Without `gc`, nothing is done.
 */
import type { FastifyInstance } from 'fastify';

/** Quiet time after the last large body before the collection, ms. */
export const RELIEF_QUIET_MS = 2_000;
/** A body this large (bytes, by its Content-Length; any chunked body) asks for a collection. */
export const RELIEF_MIN_BYTES = 256 * 1024;

export interface MemoryReliefOptions {
  /** Default: the process's `gc`, when Node was started with --expose-gc. */
  gc?: () => void;
  quietMs?: number;
  minBytes?: number;
}

export interface MemoryRelief {
  /** Full collections run so far. */
  readonly collections: number;
  /** Large buffers were just let go: a collection once it has been quiet for `quietMs`. */
  soon(): void;
}

export function installMemoryRelief(app: FastifyInstance, options: MemoryReliefOptions = {}): MemoryRelief {
  const gc = options.gc ?? (globalThis as { gc?: () => void }).gc;
  const quietMs = options.quietMs ?? RELIEF_QUIET_MS;
  const minBytes = options.minBytes ?? RELIEF_MIN_BYTES;
  let collections = 0;
  let timer: NodeJS.Timeout | undefined;
  /** Large requests not yet ended: no collection while one is taking its body. */
  let open = 0;
  const collectLater = (): void => {
    clearTimeout(timer);
    if (open > 0 || gc === undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      collections += 1;
      gc();
    }, quietMs);
    timer.unref();
  };
  if (gc !== undefined) {
    app.addHook('onRequest', async (req, reply) => {
      const length = Number(req.headers['content-length'] ?? 0);
      if (length < minBytes && req.headers['transfer-encoding'] === undefined) return;
      open += 1;
      clearTimeout(timer);
      // Answered, failed or cut off: the socket's response closes once either way.
      reply.raw.once('close', () => {
        open -= 1;
        collectLater();
      });
    });
    app.addHook('onClose', async () => clearTimeout(timer));
  }
  return {
    get collections() {
      return collections;
    },
    soon: collectLater,
  };
}
