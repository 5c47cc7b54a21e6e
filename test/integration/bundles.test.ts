/**
 * The bundle routes through buildApi + inject(): export download, upload → review (nothing
 * installed), install (origin imported), 409 on a taken id, replace, 422 on a hostile zip,
 * drop, and the zip body parser confined to its own route.
 */
import { AUTH } from '../support/token.js';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { zipSync } from 'fflate';
import { exportBundle } from '../../bundles/index.js';
import { testApi } from '../support/api.js';
import type { TestApi } from '../support/api.js';

type Reply = Awaited<ReturnType<TestApi['call']>> & { raw: Buffer };

/** inject() with a raw body (the zip) and its content type. */
async function send(api: TestApi, method: 'POST' | 'GET' | 'DELETE', url: string, payload?: Uint8Array | string, contentType = 'application/zip'): Promise<Reply> {
  const res = await api.app.inject({
    method, url,
    headers: { host: '127.0.0.1:8765', ...AUTH, ...(payload === undefined ? {} : { 'content-type': contentType }) },
    ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : Buffer.from(payload) }),
  });
  let json: any;
  try {
    json = JSON.parse(res.body);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, json, body: res.body, headers: res.headers, raw: res.rawPayload };
}

function listTree(dir: string, rel = ''): string[] {
  if (!fs.existsSync(path.join(dir, rel))) return [];
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((d) => {
    const r = rel === '' ? d.name : `${rel}/${d.name}`;
    return d.isDirectory() ? [`${r}/`, ...listTree(dir, r)] : [r];
  }).sort();
}

const snapshot = (api: TestApi): string[] => [...listTree(path.join(api.home, 'hordes')).map((p) => `hordes/${p}`), ...listTree(path.join(api.home, 'tmp')).map((p) => `tmp/${p}`)];

const ids = async (api: TestApi): Promise<[string, string][]> => (await api.call('GET', '/api/hordes')).json.hordes.map((h: any) => [h.id, h.origin]);

describe('GET /api/hordes/:id/bundle', () => {
  test('downloads the same bytes as the library, as an attachment named after the horde', async (t) => {
    const api = await testApi(t);
    const r = await send(api, 'GET', '/api/hordes/gate/bundle');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/zip');
    assert.equal(r.headers['content-disposition'], 'attachment; filename="gate.kwf.zip"');
    const lib = await exportBundle(path.join(api.home, 'hordes', 'gate'), 'gate', { knownKinds: new Set(api.engine.kinds.keys()) });
    assert.equal(Buffer.compare(r.raw, Buffer.from(lib)), 0);
    assert.equal(Buffer.compare(r.raw, (await send(api, 'GET', '/api/hordes/gate/bundle')).raw), 0, 'the same bytes every time');
    const builtin = await send(api, 'GET', '/api/hordes/project-check/bundle');
    assert.equal(builtin.status, 200);
  });

  test('an unknown horde is 404, an invalid one 422, a malformed id 400', async (t) => {
    const api = await testApi(t);
    const missing = await send(api, 'GET', '/api/hordes/nope/bundle');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error.code, 'KW_ERR_HORDE_NOT_FOUND');
    const broken = await send(api, 'GET', '/api/hordes/broken/bundle');
    assert.equal(broken.status, 422);
    assert.equal(broken.json.error.code, 'KW_ERR_HORDE_INVALID');
    assert.equal((await send(api, 'GET', '/api/hordes/..%2Fx/bundle')).status, 400);
  });
});

describe('POST /api/bundles → install', () => {
  test('upload gives a review and installs nothing; install puts the horde in the catalog as imported', async (t) => {
    const api = await testApi(t);
    const bundle = (await send(api, 'GET', '/api/hordes/gate/bundle')).raw;
    const before = await ids(api);
    const review = await send(api, 'POST', '/api/bundles', bundle);
    assert.equal(review.status, 201, review.body);
    assert.match(review.json.reviewId, /^[0-9a-f]{32}$/);
    assert.ok(review.json.expiresAt > Date.now());
    assert.equal(review.json.horde.id, 'gate');
    assert.deepEqual(review.json.horde.steps.map((s: any) => [s.name, s.kind]), [['first', 'noop'], ['check', 'verify'], ['last', 'noop']]);
    assert.deepEqual(review.json.commands, [`echo checked >> ${api.proof}`]);
    assert.deepEqual(review.json.existing, { hordeId: 'gate', origin: 'user' });
    assert.deepEqual(review.json.manifest.files.map((f: any) => f.path), ['agents/check.md', 'agents/first.md', 'agents/last.md', 'horde.md']);
    assert.deepEqual(await ids(api), before, 'reviewing installs nothing');

    const installed = await api.call('POST', `/api/bundles/${review.json.reviewId}/install`, { id: 'gate-copy' });
    assert.equal(installed.status, 201, installed.body);
    assert.deepEqual(installed.json, { hordeId: 'gate-copy' });
    const after = await ids(api);
    assert.equal(after.length, before.length + 1);
    assert.deepEqual(after.filter(([id]) => !before.some(([b]) => b === id)), [['gate-copy', 'imported']]);
    const detail = await api.call('GET', '/api/hordes/gate-copy');
    assert.equal(detail.json.origin, 'imported');
    assert.equal(detail.json.valid, true);
    assert.equal(fs.existsSync(api.proof), false, 'nothing in the bundle ran');
    // The review is used up.
    const again = await api.call('POST', `/api/bundles/${review.json.reviewId}/install`, { id: 'gate-3' });
    assert.equal(again.status, 404);
    assert.equal(again.json.error.code, 'KW_ERR_NOT_FOUND');
  });

  test('an id already taken is 409 (the review stays); replace swaps it in', async (t) => {
    const api = await testApi(t);
    const bundle = (await send(api, 'GET', '/api/hordes/quick/bundle')).raw;
    const { reviewId } = (await send(api, 'POST', '/api/bundles', bundle)).json;
    const taken = await api.call('POST', `/api/bundles/${reviewId}/install`, {});
    assert.equal(taken.status, 409);
    assert.equal(taken.json.error.code, 'KW_ERR_HORDE_EXISTS');
    assert.match(taken.json.error.message, /"quick" is already installed \(user, in .*\): choose another id, or replace it/);
    assert.equal((await api.call('GET', '/api/hordes/quick')).json.origin, 'user');
    const replaced = await api.call('POST', `/api/bundles/${reviewId}/install`, { replace: true });
    assert.equal(replaced.status, 201, replaced.body);
    assert.equal((await api.call('GET', '/api/hordes/quick')).json.origin, 'imported');
    assert.equal((await ids(api)).filter(([id]) => id === 'quick').length, 1);
  });

  test('a built-in id is 409 even with replace', async (t) => {
    const api = await testApi(t);
    const bundle = (await send(api, 'GET', '/api/hordes/project-check/bundle')).raw;
    const { reviewId } = (await send(api, 'POST', '/api/bundles', bundle)).json;
    const r = await api.call('POST', `/api/bundles/${reviewId}/install`, { replace: true });
    assert.equal(r.status, 409);
    assert.match(r.json.error.message, /built in and can never be replaced/);
  });

  test('a hostile zip is 422 naming the entry and the rule, and nothing is kept', async (t) => {
    const api = await testApi(t);
    fs.mkdirSync(path.join(api.home, 'tmp'), { recursive: true });
    const before = snapshot(api);
    const slip = zipSync({ 'horde.md': Buffer.from('---\nid = "x"\n---\n'), '../../evil.md': Buffer.from('pwned') });
    const r = await send(api, 'POST', '/api/bundles', slip);
    assert.equal(r.status, 422);
    assert.equal(r.json.error.code, 'KW_ERR_BUNDLE_INVALID');
    assert.match(r.json.error.message, /bundle entry "\.\.\/\.\.\/evil\.md": the name climbs out with a "\.\." segment \(zip-slip\)/);
    const link = zipSync({ 'horde.md': [Buffer.from('/etc/passwd'), { os: 3, attrs: (0o120777 << 16) >>> 0 }] });
    const linked = await send(api, 'POST', '/api/bundles', link);
    assert.equal(linked.status, 422);
    assert.match(linked.json.error.message, /"horde\.md": the entry is a symbolic link/);
    const garbage = await send(api, 'POST', '/api/bundles', 'not a zip at all');
    assert.equal(garbage.status, 422);
    assert.deepEqual(snapshot(api), before);
  });

  test('invalid horde content is 422 listing each problem with its file and line', async (t) => {
    const api = await testApi(t);
    const dir = path.join(api.home, 'hordes', 'quick');
    fs.writeFileSync(path.join(dir, 'agents', 'b.md'), '---\nname = "b"\nkind = "frobnicate"\n---\n');
    const exported = await send(api, 'GET', '/api/hordes/quick/bundle');
    assert.equal(exported.status, 422, 'the folder itself is invalid, so it cannot be exported: build the bundle by hand');
    const files: Record<string, Uint8Array> = {};
    for (const rel of ['horde.md', 'agents/a.md', 'agents/b.md']) files[rel] = fs.readFileSync(path.join(dir, rel));
    const manifest = {
      format: 1, hordeId: 'quick', tools: [], mcpServers: [], commands: [],
      files: Object.entries(files).map(([p, d]) => ({ path: p, bytes: d.length, sha256: createHash('sha256').update(d).digest('hex') })).sort((a, b) => (a.path < b.path ? -1 : 1)),
    };
    const r = await send(api, 'POST', '/api/bundles', zipSync({ ...files, 'kwf-manifest.json': Buffer.from(JSON.stringify(manifest)) }));
    assert.equal(r.status, 422);
    assert.match(r.json.error.message, /agents\/b\.md:3: .*frobnicate.*\[KW_ERR_STEP_KIND_UNKNOWN\]/);
  });

  test('DELETE drops a review (204); then it is 404', async (t) => {
    const api = await testApi(t);
    const bundle = (await send(api, 'GET', '/api/hordes/quick/bundle')).raw;
    const { reviewId } = (await send(api, 'POST', '/api/bundles', bundle)).json;
    assert.equal(listTree(path.join(api.home, 'tmp')).filter((p) => p.startsWith('bundle-') && p.endsWith('/') && p.split('/').length === 2).length, 1, 'staged under tmp/');
    const dropped = await send(api, 'DELETE', `/api/bundles/${reviewId}`);
    assert.equal(dropped.status, 204);
    assert.deepEqual(listTree(path.join(api.home, 'tmp')), [], 'its files are gone');
    assert.equal((await send(api, 'DELETE', `/api/bundles/${reviewId}`)).status, 404);
    const install = await api.call('POST', `/api/bundles/${reviewId}/install`, {});
    assert.equal(install.status, 404);
    assert.equal(install.json.error.code, 'KW_ERR_NOT_FOUND');
    assert.equal((await send(api, 'DELETE', '/api/bundles/not-a-review')).status, 400);
  });

  test('install bodies are checked: a bad id or an unknown field is 400', async (t) => {
    const api = await testApi(t);
    const { reviewId } = (await send(api, 'POST', '/api/bundles', (await send(api, 'GET', '/api/hordes/quick/bundle')).raw)).json;
    for (const body of [{ id: 'Not_Valid' }, { id: '../x' }, { replace: 'yes' }, { color: 'red' }]) {
      const r = await api.call('POST', `/api/bundles/${reviewId}/install`, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.error.code, 'KW_ERR_BAD_REQUEST');
    }
  });
});

describe('the zip body', () => {
  test('is accepted only as application/zip on POST /api/bundles, up to 20 MiB; every other route stays JSON-only', async (t) => {
    const api = await testApi(t);
    const json = await api.call('POST', '/api/bundles', { zip: 'no' });
    assert.equal(json.status, 415);
    assert.equal(json.json.error.code, 'KW_ERR_UNSUPPORTED_MEDIA');
    const tooBig = await send(api, 'POST', '/api/bundles', Buffer.alloc(20 * 1024 * 1024 + 1));
    assert.equal(tooBig.status, 413);
    assert.equal(tooBig.json.error.code, 'KW_ERR_BODY_TOO_LARGE');
    // Under the zip limit but over the 1 MiB one: refused by the reader, not by the body limit.
    const big = await send(api, 'POST', '/api/bundles', Buffer.alloc(2 * 1024 * 1024));
    assert.equal(big.status, 422);
    const elsewhere = await send(api, 'POST', '/api/hordes/quick/runs', Buffer.from('PK'));
    assert.equal(elsewhere.status, 415, 'no other route parses zips');
    const bigJson = await api.call('POST', '/api/hordes/quick/runs', { input: { x: 'y'.repeat(2 * 1024 * 1024) } });
    assert.equal(bigJson.status, 413, 'JSON routes keep their 1 MiB limit');
  });
});
