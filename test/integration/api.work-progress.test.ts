/**
 * Long work's progress over a real websocket (`work` frames): `POST /api/vault/reindex` on
 * a vault of 150 notes embedded by the fake Ollama (three batches) and `POST
 * /api/plugins/rescan` on plugin folders and packages send every client their phases in
 * order, `done` never going back, and one last frame with `finished: true` and
 * `done === total`; a reindex whose embedding server fails still sends its finished frame,
 * with the failure's code; a client that connects mid-way is told how far it got. `POST /api/bundles` does the same for the check of an upload,
 * reported from its worker thread.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { buildApi } from '../../api/index.js';
import { createEngine } from '../../engine/index.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeScript } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { TestSocket, listen, testApi } from '../support/api.js';
import { installExample, installExamplePackage } from '../support/plugin-home.js';
import { AUTH, TEST_TOKEN } from '../support/token.js';
import { SAMPLE, sampleEntries } from '../support/bundles.js';
import { rawZip } from '../support/zip-writer.js';
import { testOwnCode } from '../../testkit/dist.js';

const NOTES = 150;

async function post(base: string, url: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${url}`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: '{}' });
  return { status: res.status, json: await res.json() };
}

/** A vault of NOTES notes with semantic search on against a fake Ollama answering `script`; the API listening, a client connected. */
async function reindexSetup(t: TestContext, script: FakeScript) {
  const server = await startFakeOllama(script);
  cleanups(t)(() => server.close());
  const home = tempDir(t, 'kw-work-');
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]\nmax_retries = 0\n[providers.ollama]\nhost = "${server.url}"\n[vault.semantic]\nenabled = true\n`);
  fs.mkdirSync(path.join(home, 'vault', 'notes'), { recursive: true });
  for (let i = 0; i < NOTES; i++) fs.writeFileSync(path.join(home, 'vault', 'notes', `n${String(i).padStart(3, '0')}.md`), `# Note ${i}\n\nThe ${i}th thing to remember.\n`);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  cleanups(t)(() => engine.close());
  const api = await buildApi(engine, { token: TEST_TOKEN, port: 0, onInternalError: (err) => t.diagnostic(`internal: ${String(err)}`) });
  cleanups(t)(() => api.app.close());
  const { base, wsUrl } = await listen(api);
  const ws = await TestSocket.open(t, wsUrl);
  await ws.next((f) => f.type === 'hello');
  return { base, ws, server };
}

/** The `work` frames of `op` up to and including its finished one, checked: one finished frame, last; phases in `phases`' order; `done` never going back within a phase. */
async function workFrames(ws: TestSocket, op: string, phases: string[]): Promise<any[]> {
  await ws.next((f) => f.type === 'work' && f.op === op && f.finished === true);
  const frames = ws.frames.filter((f) => f.type === 'work' && f.op === op);
  assert.deepEqual(frames.map((f) => f.finished), [...frames.slice(1).map(() => false), true], 'one finished frame, the last');
  const seen = frames.map((f) => f.phase).filter((p, i, all) => i === 0 || all[i - 1] !== p);
  assert.deepEqual(seen, phases, 'the phases, in order, each once');
  for (let i = 1; i < frames.length; i++) {
    if (frames[i].phase === frames[i - 1].phase) assert.ok(frames[i].done >= frames[i - 1].done, `done went back: ${JSON.stringify(frames.slice(i - 1, i + 1))}`);
  }
  return frames;
}

test('POST /api/vault/reindex sends every client work frames: notes read, then notes embedded of the total, then a finished frame', async (t) => {
  const { base, ws, server } = await reindexSetup(t, () => ({}));
  const other = await TestSocket.open(t, ws.ws.url);
  const answer = await post(base, '/api/vault/reindex');
  assert.deepEqual(answer, { status: 200, json: { notes: NOTES, chunks: NOTES } });
  assert.ok(server.requests.filter((r) => r.path === '/api/embed').length >= 3, 'three batches at least');

  const frames = await workFrames(ws, 'vault-reindex', ['notes', 'embedded']);
  assert.deepEqual(frames[0], { type: 'work', op: 'vault-reindex', phase: 'notes', done: 1, total: null, item: frames[0].item, finished: false });
  assert.ok(frames.filter((f) => f.phase === 'notes').every((f) => f.total === null), 'how many notes there are is not known while they are read');
  const embedded = frames.filter((f) => f.phase === 'embedded');
  assert.deepEqual(embedded[0], { type: 'work', op: 'vault-reindex', phase: 'embedded', done: 0, total: NOTES, finished: false });
  assert.ok(embedded.every((f) => f.total === NOTES));
  const last = frames[frames.length - 1];
  assert.deepEqual(last, { type: 'work', op: 'vault-reindex', phase: 'embedded', done: NOTES, total: NOTES, finished: true });
  // Every client hears them, not only the one that asked (here, neither did: the request was HTTP).
  await other.next((f) => f.type === 'work' && f.finished === true);
});

test('a reindex that fails still sends its finished frame, with the failure\'s code', async (t) => {
  const { base, ws } = await reindexSetup(t, (_body, i) => (i === 1 ? { status: 500, error: 'out of memory' } : {}));
  const answer = await post(base, '/api/vault/reindex');
  assert.equal(answer.status, 502);
  const frames = await workFrames(ws, 'vault-reindex', ['notes', 'embedded']);
  const last = frames[frames.length - 1];
  assert.equal(last.finished, true);
  assert.equal(last.error, answer.json.error.code);
  assert.equal(last.total, NOTES);
  assert.ok(last.done < NOTES, `stopped short: ${last.done}`);
});

test('a client that connects while a reindex waits on its embedding server is told how far it got, then hears the rest', { timeout: 60_000 }, async (t) => {
  // The reindex's second batch (64 notes a batch, requests of 32 texts) waits for `release` (nothing else
  // embeds: the background embedding starts only with a server's `vaultSearch.start()`).
  let requests = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => { release = resolve; });
  cleanups(t)(() => release());
  const { base, ws } = await reindexSetup(t, (body: any) => {
    if (!Array.isArray(body.input) || body.input.length < 2) return {};
    requests++;
    return requests === 3 ? { heldUntil: released } : {};
  });
  const answer = post(base, '/api/vault/reindex');
  const mid = await ws.next((f) => f.type === 'work' && f.op === 'vault-reindex' && f.phase === 'embedded' && f.done === 64);
  assert.deepEqual(mid, { type: 'work', op: 'vault-reindex', phase: 'embedded', done: 64, total: NOTES, finished: false });

  const late = await TestSocket.open(t, ws.ws.url);
  await late.next((f) => f.type === 'hello');
  assert.deepEqual(await late.next((f) => f.type === 'work'), mid, 'the work under way, as far as it got');
  release();
  assert.deepEqual((await answer).json, { notes: NOTES, chunks: NOTES });
  assert.deepEqual(await late.next((f) => f.type === 'work' && f.finished === true), { type: 'work', op: 'vault-reindex', phase: 'embedded', done: NOTES, total: NOTES, finished: true });
  // Once it ended, a new client hears nothing of it.
  const after = await TestSocket.open(t, ws.ws.url);
  await after.next((f) => f.type === 'hello');
  const health = await fetch(`${base}/api/health`, { headers: AUTH }); // a round trip after the hello, for a frame to have come
  assert.equal(health.status, 200);
  assert.deepEqual(after.frames.filter((f) => f.type === 'work'), []);
});

test('POST /api/plugins/rescan sends work frames: packages checked, then folders, then a finished frame', async (t) => {
  const api = await testApi(t, { port: 0 });
  const { base, wsUrl } = await listen(api);
  const readDir = tempDir(t, 'kw-work-read-');
  installExamplePackage(api.home, readDir, 'kowalski-plugin-greet');
  for (const folder of ['one', 'two', 'three']) installExample(api.home, readDir, folder);
  const ws = await TestSocket.open(t, wsUrl);
  await ws.next((f) => f.type === 'hello');

  const answer = await post(base, '/api/plugins/rescan');
  assert.equal(answer.status, 200);
  const frames = await workFrames(ws, 'plugins-rescan', ['packages', 'folders']);
  assert.deepEqual(frames.filter((f) => f.phase === 'packages').map((f) => [f.done, f.total]), [[0, 1], [1, 1]]);
  const folders = frames.filter((f) => f.phase === 'folders');
  assert.deepEqual(folders[0], { type: 'work', op: 'plugins-rescan', phase: 'folders', done: 0, total: 3, finished: false });
  assert.deepEqual(frames[frames.length - 1], { type: 'work', op: 'plugins-rescan', phase: 'folders', done: 3, total: 3, finished: true });
});

test('POST /api/bundles sends work frames while the upload is checked in its thread: entries inflated, files staged, the horde checked; a refused bundle finishes with its code', async (t) => {
  const api = await testApi(t, { port: 0 });
  const { base, wsUrl } = await listen(api);
  const ws = await TestSocket.open(t, wsUrl);
  await ws.next((f) => f.type === 'hello');
  const PROMPTS = 40;
  const files: Record<string, string> = { ...SAMPLE };
  for (let i = 0; i < PROMPTS; i++) files[`prompts/p${String(i).padStart(2, '0')}.md`] = `Prompt ${i}.\n`;
  const upload = async (bytes: Buffer) => {
    const res = await fetch(`${base}/api/bundles`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/zip' }, body: bytes });
    return { status: res.status, json: await res.json() as any };
  };

  const answer = await upload(rawZip(sampleEntries(files)));
  assert.equal(answer.status, 201, JSON.stringify(answer.json));
  const frames = await workFrames(ws, 'bundle-import', ['entries', 'files', 'horde']);
  const FILES = Object.keys(files).length;
  const of = (phase: string) => frames.filter((f) => f.phase === phase && !f.finished).map((f) => [f.done, f.total]);
  assert.deepEqual(of('entries').at(0), [0, FILES + 1], 'every entry, the manifest with them');
  assert.deepEqual(of('entries').at(-1), [FILES + 1, FILES + 1]);
  assert.deepEqual(of('files').at(0), [0, FILES]);
  assert.deepEqual(of('files').at(-1), [FILES, FILES]);
  assert.deepEqual(of('horde'), [[0, 1], [1, 1]]);
  assert.deepEqual(frames.at(-1), { type: 'work', op: 'bundle-import', phase: 'horde', done: 1, total: 1, finished: true });

  // The horde inside is invalid: refused at the last phase, whose frame says so.
  ws.frames.length = 0;
  const broken = { ...files, 'horde.md': SAMPLE['horde.md']!.replace('pipeline = ["ask", "check"]', 'pipeline = ["ask", "nobody"]') };
  const refused = await upload(rawZip(sampleEntries(broken)));
  assert.equal(refused.status, 422);
  assert.equal(refused.json.error.code, 'KW_ERR_BUNDLE_INVALID');
  const failed = await workFrames(ws, 'bundle-import', ['entries', 'files', 'horde']);
  assert.deepEqual(failed.at(-1), { type: 'work', op: 'bundle-import', phase: 'horde', done: 0, total: 1, finished: true, error: 'KW_ERR_BUNDLE_INVALID' });
});
