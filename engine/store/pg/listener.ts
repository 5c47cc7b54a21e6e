/**
 * The wake-ups of a Postgres store: one plain (async) connection on the engine's thread
 * that `LISTEN`s on the store's channels, so a node hears at once what another node did
 * (committed events, released leases, a request for it, an answer to its request) instead
 * of finding it at its next poll. A notification carries only a hint (a node id, a
 * request id); what it announces is read from the tables, so a notification lost while
 * the connection was down costs only latency: the callers poll slowly while `listening`
 * and fast while not, and look again each time the connection comes back.
 *
 * The connection is reopened when it drops, after 250 ms, doubling up to 5 s. The driver
 * is loaded by the first connection: a process on SQLite never loads it.
 */
import type pg from 'pg';
import type { Clock } from '../../base/clock.js';
import type { Timers } from '../../base/timers.js';
import { CHANNELS } from './channels.js';
import type { Channel } from './channels.js';

export interface PgListenerOptions {
  url: string;
  applicationName: string;
  clock: Clock;
  timers: Timers;
  /** A notification on one of the channels. */
  onNotify(channel: Channel, payload: string): void;
  /** The first wait before reopening a dropped connection, ms (default 250; it doubles up to 5 s while reopening fails). */
  retryMs?: number;
  /** The connection came up (true: look again, notifications may have been missed) or went down (false: poll fast). */
  onState(listening: boolean): void;
}

export interface PgListener {
  /** True while the connection is up and listening. */
  readonly listening: boolean;
  close(): Promise<void>;
}

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;
const channels = new Set<string>(Object.values(CHANNELS));

export function startPgListener(options: PgListenerOptions): PgListener {
  let client: pg.Client | undefined;
  let listening = false;
  let closed = false;
  const firstRetryMs = options.retryMs ?? FIRST_RETRY_MS;
  let retryMs = firstRetryMs;
  let cancelRetry: (() => void) | undefined;

  const down = (c: pg.Client): void => {
    if (client !== c) return;
    client = undefined;
    c.removeAllListeners('notification');
    c.end().catch(() => undefined);
    if (listening) {
      listening = false;
      options.onState(false);
    }
    if (closed) return;
    cancelRetry = options.timers.at(options.clock.now() + retryMs, () => {
      cancelRetry = undefined;
      connect();
    });
    retryMs = Math.min(Math.max(MAX_RETRY_MS, firstRetryMs), retryMs * 2);
  };

  let driver: Promise<typeof pg> | undefined;
  const connect = (): void => {
    if (closed) return;
    driver ??= import('pg').then((m) => m.default);
    void driver.then(open);
  };

  const open = (pgDriver: typeof pg): void => {
    if (closed) return;
    const c = new pgDriver.Client({ connectionString: options.url, application_name: options.applicationName, keepAlive: true, connectionTimeoutMillis: 5_000 });
    client = c;
    c.on('error', () => down(c));
    c.on('end', () => down(c));
    c.on('notification', (n) => {
      if (channels.has(n.channel)) options.onNotify(n.channel as Channel, n.payload ?? '');
    });
    void (async () => {
      await c.connect();
      await c.query([...channels].map((ch) => `LISTEN ${ch};`).join(' '));
    })().then(() => {
      if (client !== c || closed) return;
      listening = true;
      retryMs = firstRetryMs;
      options.onState(true);
    }, () => down(c));
  };

  connect();

  return {
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      cancelRetry?.();
      const c = client;
      client = undefined;
      listening = false;
      if (c !== undefined) {
        c.removeAllListeners();
        c.on('error', () => undefined);
        await c.end().catch(() => undefined);
      }
    },
  };
}
