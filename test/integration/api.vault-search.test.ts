/**
 * The vault's search over HTTP and from the CLI: `GET /api/vault/search`, `POST
 * /api/vault/reindex`, `GET /api/vault/status` through the real Fastify app (inject) on a
 * real engine, embedding with the fake Ollama's scripted vectors; bad queries are 400s
 * with a code; a reindex whose embedding server is down is a 502 naming it. Then `kowalski
 * vault search` and `reindex` as real processes, embedded and through a running
 * `kowalski serve` (which watches the vault), answering the same JSON as the API.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { buildApi } from '../../api/index.js';
import { createEngine } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import { cli, outputOf, startCli, stdoutJson } from '../../testkit/cli.js';
import type { RunningCli } from '../../testkit/cli.js';
import { conceptVectors } from '../../testkit/fake-embeddings.js';
import { refusedUrl, startFakeOllama } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { AUTH, TEST_TOKEN, writeTestToken } from '../support/token.js';
import { testOwnCode } from '../../testkit/dist.js';

const CONCEPTS = conceptVectors({ cats: ['feline', 'kitten', 'purrs'], dogs: ['canine', 'puppy', 'barks'], money: ['bill', 'invoice', 'pay'] });

function writeNote(home: string, rel: string, text: string): void {
  const file = path.join(home, 'vault', rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function writeNotes(home: string): void {
  writeNote(home, 'pets/cat.md', '# Mira\n\nOur kitten purrs on the sofa.\n');
  writeNote(home, 'pets/dog.md', '# Rex\n\nThe puppy barks at the mailman.\n');
  writeNote(home, 'home/bills.md', '# Bills\n\nPay the electricity invoice on Friday.\n');
}

function semanticConfig(home: string, host: string): void {
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]\nmax_retries = 0\n[providers.ollama]\nhost = "${host}"\n[vault.semantic]\nenabled = true\n`);
}

async function apiOn(t: TestContext, engine: Engine) {
  const { app } = await buildApi(engine, { token: TEST_TOKEN, port: 8765, onInternalError: (err) => t.diagnostic(`internal: ${String(err)}`) });
  cleanups(t)(() => app.close());
  return async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const res = await app.inject({ method, url, headers: { host: '127.0.0.1:8765', ...AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
    return { status: res.statusCode, json: JSON.parse(res.body) as any };
  };
}

test('GET /api/vault/search answers keyword and hybrid SearchAnswers; reindex and status; bad queries are 400s, a down embedding server a 502', async (t) => {
  const server = await startFakeOllama(() => ({}), { embed: CONCEPTS });
  cleanups(t)(() => server.close());
  const home = tempDir(t, 'kw-vault-api-');
  semanticConfig(home, server.url);
  writeNotes(home);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  cleanups(t)(() => engine.close());
  const call = await apiOn(t, engine);

  const keyword = await call('GET', '/api/vault/search?q=puppy');
  assert.equal(keyword.status, 200);
  assert.deepEqual(keyword.json, {
    query: 'puppy', mode: 'keyword',
    hits: [{ path: 'pets/dog.md', title: 'Rex', snippet: '# Rex The [puppy] barks at the mailman.', score: keyword.json.hits[0].score, found: ['keyword'] }],
  });

  assert.deepEqual((await call('POST', '/api/vault/reindex', {})).json, { notes: 3, chunks: 3 });
  const status = await call('GET', '/api/vault/status');
  assert.equal(status.json.notes, 3);
  assert.equal(status.json.semantic.enabled, true);
  assert.equal(status.json.semantic.chunks, 3);
  assert.equal(status.json.semantic.dimension, 4);

  const hybrid = await call('GET', '/api/vault/search?q=feline&semantic=true&limit=2');
  assert.equal(hybrid.status, 200);
  assert.equal(hybrid.json.mode, 'hybrid');
  assert.equal(hybrid.json.hits.length, 2);
  assert.equal(hybrid.json.hits[0].path, 'pets/cat.md');
  assert.deepEqual(hybrid.json.hits[0].found, ['semantic']);
  const under = await call('GET', '/api/vault/search?q=invoice&under=home');
  assert.deepEqual(under.json.hits.map((h: any) => h.path), ['home/bills.md']);

  for (const [url, field] of [
    ['/api/vault/search', 'q'],
    ['/api/vault/search?q=', 'q'],
    ['/api/vault/search?q=x&semantic=yes', 'semantic'],
    ['/api/vault/search?q=x&limit=0', 'limit'],
    ['/api/vault/search?q=x&limit=101', 'limit'],
    ['/api/vault/search?q=x&extra=1', 'extra'],
    [`/api/vault/search?q=${'x'.repeat(1001)}`, 'q'],
  ] as const) {
    const bad = await call('GET', url);
    assert.equal(bad.status, 400, url);
    assert.equal(bad.json.error.code, 'KW_ERR_BAD_REQUEST', url);
    assert.match(bad.json.error.message, new RegExp(field), url);
  }
  const escape = await call('GET', '/api/vault/search?q=x&under=../etc');
  assert.deepEqual([escape.status, escape.json.error.code], [400, 'KW_ERR_VAULT_PATH']);

  // The embedding server goes away: a search still answers (keyword, with a note); a reindex fails as a 502 naming why.
  fs.writeFileSync(path.join(home, 'config.toml'), fs.readFileSync(path.join(home, 'config.toml'), 'utf8').replace(server.url, await refusedUrl()));
  engine.reloadConfig();
  const fallback = await call('GET', '/api/vault/search?q=kitten&semantic=true');
  assert.equal(fallback.status, 200);
  assert.equal(fallback.json.mode, 'keyword');
  assert.deepEqual(fallback.json.hits.map((h: any) => h.path), ['pets/cat.md']);
  assert.match(fallback.json.note, /KW_ERR_MODEL_UNREACHABLE/);
  const failed = await call('POST', '/api/vault/reindex', {});
  assert.deepEqual([failed.status, failed.json.error.code], [502, 'KW_ERR_MODEL_UNREACHABLE']);
});

test('kowalski vault search and reindex: embedded and through a running server, the same JSON; text output; usage errors', async (t) => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'kw-vault-cli-')));
  const servers: RunningCli[] = [];
  cleanups(t)(async () => {
    for (const server of servers) {
      if (server.child.exitCode !== null) continue;
      server.child.kill('SIGTERM');
      await server.exited;
    }
    fs.rmSync(root, { recursive: true, force: true });
  });
  const home = path.join(root, 'home');
  writeNotes(home);

  const embedded = await cli(home, ['vault', 'search', 'puppy', '--json']);
  assert.equal(embedded.code, 0, outputOf(embedded));
  const answer = stdoutJson(embedded);
  assert.deepEqual((answer.hits as any[]).map((h) => h.path), ['pets/dog.md']);

  const text = await cli(home, ['vault', 'search', 'puppy']);
  assert.equal(text.code, 0, outputOf(text));
  assert.equal(text.stdout, '1. Rex — pets/dog.md  [keyword]\n   # Rex The [puppy] barks at the mailman.\n');
  const semanticOff = await cli(home, ['vault', 'search', 'puppy', '--semantic']);
  assert.match(semanticOff.stderr, /^note: semantic search is off \(switch it on in Setup\): keyword results only$/m);
  const none = await cli(home, ['vault', 'search', 'zeppelin']);
  assert.equal(none.stdout, 'no notes found\n');
  const usage = await cli(home, ['vault', 'search', 'x', '--limit', 'lots']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--limit takes a whole number from 1 to 100.*\[KW_ERR_USAGE\]/);
  const reindexed = await cli(home, ['vault', 'reindex']);
  assert.equal(reindexed.stdout, 'reindexed 3 note(s)\n', outputOf(reindexed));

  writeTestToken(home);
  const server = startCli(home, ['serve', '--no-open', '--port', '0'], { limitMs: 120_000 });
  servers.push(server);
  const serving = /^kowalski serving .* at (http:\/\/127\.0\.0\.1:\d+\/)/;
  const url = serving.exec(await server.stderrLine(serving))![1]!;
  const remote = await cli(home, ['vault', 'search', 'puppy', '--json']);
  assert.equal(remote.code, 0, outputOf(remote));
  assert.deepEqual(stdoutJson(remote), answer, 'the server answers as the embedded engine did');
  const status = await (await fetch(new URL('api/vault/status', url), { headers: AUTH })).json() as { notes: number; watching: boolean };
  assert.deepEqual([status.notes, status.watching], [3, true], 'kowalski serve watches the vault');
  assert.deepEqual(stdoutJson(await cli(home, ['vault', 'reindex', '--json'])), { notes: 3, chunks: 0 });
});
