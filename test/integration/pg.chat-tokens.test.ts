/**
 * A turn's tokens on their way to the other nodes (`kw_chat_tokens`, engine/store/pg/chat-tokens.ts),
 * through a real Postgres and a real listener: text that grows when JSON-escaped (quotes, line
 * breaks, control characters) and long pieces are cut so that every notification stays under
 * Postgres's 8000-byte limit — a payload over it would fail the commit the tokens are flushed
 * in — and the listener puts the text back together exactly, in order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { systemClock } from '../../engine/base/clock.js';
import { CHANNELS } from '../../engine/store/pg/channels.js';
import { heardTokens, PgChatTokens } from '../../engine/store/pg/chat-tokens.js';
import { migratePg } from '../../engine/store/pg/migrate.js';
import { PgSession } from '../../engine/store/pg/session.js';
import { openSyncPg } from '../../engine/store/pg/sync-pg.js';
import { systemTimers } from '../../engine/base/timers.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testSyncPgModule } from '../../testkit/dist.js';
import { freshPostgresUrl } from '../../testkit/pg-store.js';
import { waitFor } from '../../testkit/wait.js';

test('tokens that grow when escaped, and long ones, go in notifications under 8000 bytes and come back whole, in order', async (t) => {
  const url = await freshPostgresUrl();
  const sync = openSyncPg(url, { module: testSyncPgModule() });
  cleanups(t)(() => sync.close());
  migratePg(sync, url);
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  cleanups(t)(() => listener.end());
  const payloads: string[] = [];
  listener.on('notification', (n) => void (n.channel === CHANNELS.chatTokens && payloads.push(n.payload ?? '')));
  await listener.query(`LISTEN ${CHANNELS.chatTokens}`);

  const session = new PgSession(sync);
  const errors: unknown[] = [];
  const tokens = new PgChatTokens({ session, nodeId: 'node-aaaa', clock: systemClock, timers: systemTimers(systemClock), onError: (err) => errors.push(err) });
  cleanups(t)(() => tokens.close());
  // 300 pieces of code-like text (quotes and line breaks double when escaped), a run of control characters (six bytes each), an emoji, and one long piece.
  const pieces = [
    ...Array.from({ length: 300 }, (_, i) => `"${i}": "\\n",\n`),
    '\u0001'.repeat(1500), '🦭 ', 'x'.repeat(5000),
  ];
  // The first half gathered and flushed in a transaction (as before a chat commit), the rest by the timer.
  session.transaction(() => {
    for (const text of pieces.slice(0, 150)) tokens.add({ sessionId: 'c1', turn: 1, node: 'r', agent: 'helper', text });
    tokens.flush('c1');
  })();
  for (const text of pieces.slice(150)) tokens.add({ sessionId: 'c1', turn: 1, node: 'r', agent: 'helper', text });
  const want = pieces.join('');
  await waitFor(() => payloads.flatMap((p) => heardTokens(p, 'node-bbbb')).map((x) => x.text).join('') === want, 'every token heard');

  assert.deepEqual(errors, []);
  assert.ok(payloads.length > 3, `several notifications (${payloads.length})`);
  for (const p of payloads) assert.ok(Buffer.byteLength(p) < 8000, `a payload of ${Buffer.byteLength(p)} bytes`);
  const heard = payloads.flatMap((p) => heardTokens(p, 'node-bbbb'));
  assert.deepEqual([...new Set(heard.map((x) => `${x.sessionId} ${x.turn} ${x.node} ${x.agent}`))], ['c1 1 r helper']);
  assert.deepEqual(payloads.flatMap((p) => heardTokens(p, 'node-aaaa')), [], "a node's own notifications are not its tokens");
});
