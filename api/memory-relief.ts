/**
 * Memory given back after large bodies. A bundle upload (up to 20 MiB), a burst of 1 MiB
 * JSON bodies or uploads cut mid-way leave their buffers and strings behind as garbage, and
 * V8 frees it only at its next full collection — which a quiet server may not reach for a
 * long time, so its memory stays near the peak (`npm run bench -- memory`). When the
 * process has `gc` (bin/kowalski starts Node with --expose-gc), one full collection is run
 * once no request with a body of `minBytes` or more has been under way for `quietMs`, and
 * likewise after `soon()` (the websocket hub calls it when a client that stopped reading is
 * gone, with what waited in its socket). And work that comes with no large body (a chat turn
 * of 400 tool calls writes 15 MiB of log) leaves garbage too: every `watchMs` the RSS is
 * read, and once it is `growth` × what it was after the last collection, one runs — so a
 * live set that grows is collected once per `growth`, not over and over. Without `gc`,
 * nothing is done.
 */
import type { FastifyInstance } from 'fastify';

/** Quiet time after the last large body before the collection, ms. */
export const RELIEF_QUIET_MS = 2_000;
/** A body this large (bytes, by its Content-Length; any chunked body) asks for a collection. */
export const RELIEF_MIN_BYTES = 256 * 1024;
/** How often the RSS is read, ms. */
export const RELIEF_WATCH_MS = 5_000;
/** RSS this many times what it was after the last collection asks for one. */
export const RELIEF_GROWTH = 1.25;

export interface MemoryReliefOptions {
  /** Default: the process's `gc`, when Node was started with --expose-gc. */
  gc?: () => void;
  quietMs?: number;
  minBytes?: number;
  /** Default RELIEF_WATCH_MS; 0: the RSS is not watched. */
  watchMs?: number;
  /** Default RELIEF_GROWTH. */
  growth?: number;
  /** The process's resident set, bytes (default `process.memoryUsage.rss`). */
  rss?: () => number;
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
  const watchMs = options.watchMs ?? RELIEF_WATCH_MS;
  const growth = options.growth ?? RELIEF_GROWTH;
  const rss = options.rss ?? process.memoryUsage.rss;
  let collections = 0;
  let timer: NodeJS.Timeout | undefined;
  /** Large requests not yet ended: no collection while one is taking its body. */
  let open = 0;
  /** The RSS after the last collection (at start: when installed). */
  let floor = rss();
  const collect = (): void => {
    collections += 1;
    gc!();
    floor = rss();
  };
  const collectLater = (): void => {
    clearTimeout(timer);
    if (open > 0 || gc === undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      collect();
    }, quietMs);
    timer.unref();
  };
  if (gc !== undefined && watchMs > 0) {
    const watch = setInterval(() => {
      if (open === 0 && timer === undefined && rss() >= growth * floor) collect();
    }, watchMs);
    watch.unref();
    app.addHook('onClose', async () => clearInterval(watch));
  }
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
