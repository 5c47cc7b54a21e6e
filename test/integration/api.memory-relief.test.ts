/**
 * Memory given back after large bodies (api/memory-relief.ts), over real HTTP: a request
 * with a large body is followed, once the server is quiet, by one full collection; small
 * requests ask for none; none runs while a large body is still arriving, and an upload cut
 * mid-body still gets its collection; an RSS that grew by the watch's ratio since the last
 * collection asks for one, once. `gc` is a counter here (the real one needs
 * --expose-gc, which bin/kowalski gives; the memory bench measures what it frees).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { test } from 'node:test';
import { waitFor } from '../../testkit/wait.js';
import { listen, testApi } from '../support/api.js';
import { AUTH } from '../support/token.js';

const QUIET_MS = 100;

test('one full collection once large bodies stop coming; none for small ones, none while a large body is still arriving, one after an upload is cut', async (t) => {
  let collections = 0;
  const api = await testApi(t, { port: 0, memoryRelief: { gc: () => void (collections += 1), quietMs: QUIET_MS, minBytes: 256 * 1024, watchMs: 0 } });
  const { base, port } = await listen(api);
  const post = async (bytes: number) => {
    const res = await fetch(`${base}/api/hordes/nosuch/runs`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ input: { x: 'x'.repeat(bytes) } }) });
    await res.arrayBuffer();
    return res.status;
  };

  for (let i = 0; i < 5; i++) assert.equal(await post(1000), 404);
  assert.equal(await post(300 * 1024), 400, 'a large body, answered (an input that large is refused)');
  await waitFor(() => collections === 1, 'the collection after the large body');
  // Small requests after it, and a quiet spell four times the wait: nothing more.
  for (let i = 0; i < 5; i++) assert.equal(await post(1000), 404);
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS * 4));
  assert.equal(collections, 1, 'small bodies ask for no collection');

  // A large upload that stops half-way: no collection while it is open…
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const length = 1024 * 1024;
  socket.write(`POST /api/bundles HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: ${AUTH.authorization}\r\ncontent-type: application/zip\r\ncontent-length: ${length}\r\n\r\n`);
  socket.write(Buffer.alloc(length / 2));
  assert.equal(await post(300 * 1024), 400, 'another large body ends meanwhile');
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS * 4));
  assert.equal(collections, 1, 'none while a large body is still arriving');
  // …and one once it is cut.
  socket.destroy();
  await waitFor(() => collections === 2, 'the collection after the cut upload');
});

test('an RSS grown to 1.25× what it was after the last collection asks for one; the same RSS again does not, a further 1.25× does', async (t) => {
  let collections = 0;
  let rss = 100;
  const api = await testApi(t, { port: 0, memoryRelief: { gc: () => void (collections += 1), watchMs: 20, growth: 1.25, rss: () => rss } });
  await listen(api);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(collections, 0, 'no growth, no collection');
  rss = 130;
  await waitFor(() => collections === 1, 'the collection after the RSS grew');
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(collections, 1, 'the RSS it left is the new floor: no collection over and over');
  rss = 170;
  await waitFor(() => collections === 2, 'the collection after it grew again');
});
