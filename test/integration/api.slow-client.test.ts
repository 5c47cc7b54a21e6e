/**
 * Websocket clients the server must not hold on to: one that never reads (a raw socket that
 * did the handshake by hand, then stopped reading) is dropped once the bytes waiting for it
 * pass the cap, its socket is destroyed within the grace whether or not it answers the
 * close handshake, and the server never queued more than the cap and one frame for it;
 * past the client limit, a new websocket is refused in our shape.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { TestSocket, listen, testApi } from '../support/api.js';
import { writeHorde } from '../support/engine.js';
import { cleanups } from '../../testkit/cleanup.js';
import { AUTH, TEST_TOKEN } from '../support/token.js';

const CAP = 1024 * 1024;
const DESCRIPTION = 200_000; // each run.created frame carries the horde's snapshot: ~200 kB

/** Server frames are unmasked: text frames only until the test stops reading. */
function readFrames(buf: Buffer): { frames: { opcode: number; payload: Buffer }[]; rest: Buffer } {
  const frames: { opcode: number; payload: Buffer }[] = [];
  let at = 0;
  for (;;) {
    if (buf.length - at < 2) break;
    const opcode = buf[at]! & 0x0f;
    let len = buf[at + 1]! & 0x7f;
    let head = 2;
    if (len === 126) {
      if (buf.length - at < 4) break;
      len = buf.readUInt16BE(at + 2);
      head = 4;
    } else if (len === 127) {
      if (buf.length - at < 10) break;
      len = Number(buf.readBigUInt64BE(at + 2));
      head = 10;
    }
    if (buf.length - at < head + len) break;
    frames.push({ opcode, payload: buf.subarray(at + head, at + head + len) });
    at += head + len;
  }
  return { frames, rest: buf.subarray(at) };
}

/** A client text frame (masked, as RFC 6455 requires). */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = crypto.randomBytes(4);
  const head = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([head, mask, Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!))]);
}

/** Handshake by hand, subscribe to every run, read until `synced`: then the caller stops reading. */
async function rawSubscriber(port: number): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(`GET /api/ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${crypto.randomBytes(16).toString('base64')}\r\nSec-WebSocket-Protocol: kowalski\r\n\r\n`);
  let buf: Buffer = Buffer.alloc(0);
  let upgraded = false;
  const seen: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk]);
      if (!upgraded) {
        const end = buf.indexOf('\r\n\r\n');
        if (end === -1) return;
        if (!buf.subarray(0, end).toString().startsWith('HTTP/1.1 101 ')) return reject(new Error(buf.toString()));
        upgraded = true;
        buf = buf.subarray(end + 4);
        socket.write(textFrame(JSON.stringify({ type: 'subscribe' })));
      }
      const { frames, rest } = readFrames(buf);
      buf = rest;
      for (const f of frames) seen.push(JSON.parse(f.payload.toString()).type);
      if (!seen.includes('synced')) return;
      socket.off('data', onData);
      socket.pause(); // nothing reads it from here on
      resolve();
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
  assert.deepEqual(seen, ['hello', 'synced']);
  return socket;
}

test('a client that never reads is dropped at the cap and its socket destroyed within the grace; the server held at most the cap and a frame for it', async (t) => {
  const api = await testApi(t, { port: 0, wsMaxBuffered: CAP });
  writeHorde(path.join(api.home, 'hordes', 'wide'), `id = "wide"\npipeline = ["a"]\ndescription = "${'w'.repeat(DESCRIPTION)}"`, { a: 'kind = "noop"' });
  const { base, port, wsUrl } = await listen(api);
  const startRun = async (): Promise<string> => {
    const res = await fetch(`${base}/api/hordes/wide/runs`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: '{"input":{}}' });
    assert.equal(res.status, 201);
    return ((await res.json()) as { runId: string }).runId;
  };
  let serverSide: net.Socket | undefined;
  api.app.server.once('connection', (s: net.Socket) => (serverSide = s));
  const slow = await rawSubscriber(port);
  cleanups(t)(() => slow.destroy());
  assert.ok(serverSide !== undefined);
  const closedAt = once(serverSide, 'close').then(() => Date.now());
  const fast = await TestSocket.open(t, wsUrl);
  fast.send({ type: 'subscribe' });
  await fast.next((f) => f.type === 'synced');
  assert.equal(api.hub.clients, 2);

  // Each run sends every subscriber ~200 kB; the kernel's buffers absorb the first MiBs, then bytes wait in the server.
  let maxWaiting = 0;
  let runs = 0;
  let lastRun = '';
  for (; runs < 300 && api.hub.clients === 2; runs++) {
    lastRun = await startRun();
    maxWaiting = Math.max(maxWaiting, serverSide.writableLength);
  }
  const droppedAt = Date.now();
  assert.equal(api.hub.clients, 1, `dropped after ${runs} runs`);
  assert.equal(serverSide.destroyed, false, 'it left the hub at the cap, before its socket was cut off');
  t.diagnostic(`dropped after ${runs} runs (~${Math.round((runs * DESCRIPTION) / 1024 / 1024)} MiB sent to it); at most ${Math.round(maxWaiting / 1024)} KiB waited in the server`);
  assert.ok(maxWaiting <= CAP + 2 * DESCRIPTION, `the server queued ${maxWaiting} bytes for a client capped at ${CAP}`);

  // Nothing more is queued for it, and its socket is destroyed after the grace (2 s) though it never answers the close.
  const waitingThen = serverSide.writableLength;
  await startRun();
  assert.ok(serverSide.writableLength <= waitingThen + 64, 'no event frame was queued after the drop (only the close frame)');
  const closed = await Promise.race([closedAt, new Promise<number>((resolve) => setTimeout(() => resolve(-1), 10_000).unref())]);
  assert.notEqual(closed, -1, 'the server destroyed the socket within 10 s');
  assert.ok(closed - droppedAt < 5000, `destroyed ${closed - droppedAt} ms after the drop`);
  assert.equal(serverSide.destroyed, true);
  assert.equal(serverSide.writableLength, 0, 'what waited for it is released');

  // The client that reads got everything.
  await fast.next((f) => f.type === 'event' && f.runId === lastRun && f.seq === 1);
});

test('past the client limit a new websocket is refused with 503 KW_ERR_SERVER_BUSY; a place that frees is taken again', async (t) => {
  const api = await testApi(t, { port: 0, wsMaxClients: 2 });
  const { wsUrl } = await listen(api);
  const a = await TestSocket.open(t, wsUrl);
  await TestSocket.open(t, wsUrl);
  await a.next((f) => f.type === 'hello');
  await assert.rejects(TestSocket.open(t, wsUrl), (err: any) => err.status === 503 && JSON.parse(err.body).error.code === 'KW_ERR_SERVER_BUSY');
  a.ws.close();
  await a.closed;
  // The server sees the close a moment later: a bounded wait for its count.
  for (let i = 0; i < 250 && api.hub.clients > 1; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  const c = await TestSocket.open(t, wsUrl);
  assert.equal((await c.next((f) => f.type === 'hello')).type, 'hello');
});
