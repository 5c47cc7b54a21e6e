/**
 * Semantic search over the vault through a real engine, its vectors in a real
 * `<data>/vectors.sqlite` (sqlite-vec), embedded by the real `ollama` client against the
 * fake Ollama's `/api/embed`, whose vectors the test scripts by concept: the note that
 * means what the query means ranks first even without a shared word; the vectors follow
 * a watched edit; a changed embedding model is refused until a reindex; with the
 * embedding server down, keyword results come back with a note, and the notes left
 * pending are embedded at the next change.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { createEngine } from '../../engine/index.js';
import type { SearchAnswer } from '../../engine/index.js';
import { conceptVectors } from '../../testkit/fake-embeddings.js';
import { refusedUrl, startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { engineOn, indexed, writeNote } from '../support/vault.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testOwnCode } from '../../testkit/dist.js';

const CONCEPTS = conceptVectors({
  cats: ['feline', 'kitten', 'purrs', 'cat', 'whiskers'],
  dogs: ['canine', 'puppy', 'barks', 'dog'],
  money: ['bill', 'pay', 'invoice', 'electricity'],
});

function writeConfig(home: string, host: string, model = 'ollama:nomic-embed-text'): void {
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]\nmax_retries = 0\ntimeout_secs = 5\n[providers.ollama]\nhost = "${host}"\n[vault.semantic]\nenabled = true\nmodel = "${model}"\n`);
}

function writePets(home: string): void {
  writeNote(home, 'pets/cat.md', '# Pets\n\n## Mira\n\nOur kitten purrs on the sofa.\n');
  writeNote(home, 'pets/dog.md', '# Walks\n\nThe puppy barks at the mailman.\n');
  writeNote(home, 'home/bills.md', '# Bills\n\nPay the electricity bill on Friday.\n');
}

async function fakeOllama(t: TestContext): Promise<FakeModelServer> {
  const server = await startFakeOllama(() => ({}), { embed: CONCEPTS });
  cleanups(t)(() => server.close());
  return server;
}

const paths = (answer: SearchAnswer): string[] => answer.hits.map((h) => h.path);
const embedModels = (server: FakeModelServer): string[] => server.requests.filter((r) => r.path === '/api/embed').map((r) => String(r.body.model));

test('semantic search ranks the note that means the query first, merged with keyword hits; the vectors follow an edit', async (t) => {
  const server = await fakeOllama(t);
  const home = tempDir(t, 'kw-vault-');
  writeConfig(home, server.url);
  writePets(home);
  const engine = await engineOn(t, home);
  assert.deepEqual(embedModels(server), [], 'nothing is embedded before the server starts the background work');
  await engine.vaultSearch.start();
  await engine.vaultSearch.idle();
  const status = engine.vaultSearch.status().semantic;
  assert.deepEqual(
    { enabled: status.enabled, model: status.model, vectorsModel: status.vectorsModel, dimension: status.dimension, chunks: status.chunks, pending: status.pending, reindexNeeded: status.reindexNeeded, lastError: status.lastError },
    { enabled: true, model: 'ollama:nomic-embed-text', vectorsModel: 'ollama:nomic-embed-text', dimension: 4, chunks: 3, pending: 0, reindexNeeded: false, lastError: null },
  );
  assert.ok(fs.existsSync(path.join(home, 'vectors.sqlite')));

  // No note has the word "feline": keyword search finds nothing, semantic search finds the cat.
  assert.deepEqual(paths(await engine.vaultSearch.search('feline')), []);
  const feline = await engine.vaultSearch.search('feline', { semantic: true });
  assert.equal(feline.mode, 'hybrid');
  assert.equal(feline.note, undefined);
  assert.equal(feline.hits[0]!.path, 'pets/cat.md');
  assert.deepEqual(feline.hits[0]!.found, ['semantic']);
  assert.equal(feline.hits[0]!.heading, 'Pets > Mira', 'the heading path of the chunk that matched');
  assert.equal(feline.hits[0]!.title, 'Pets');
  assert.match(feline.hits[0]!.snippet, /kitten purrs/);
  // The agents' search_notes asks with `auto`: semantic hits while it is on.
  assert.match((await engine.vault.tools().find((tool) => tool.spec.name === 'search_notes')!.call({ query: 'feline' }, { signal: AbortSignal.timeout(5000) })).content, /pets\/cat\.md/);

  // Found by both sides: fused first, and marked so.
  const puppy = await engine.vaultSearch.search('puppy', { semantic: true });
  assert.equal(puppy.hits[0]!.path, 'pets/dog.md');
  assert.deepEqual(puppy.hits[0]!.found, ['keyword', 'semantic']);
  assert.match(puppy.hits[0]!.snippet, /\[puppy\]/, 'the keyword snippet, with its marks');
  assert.deepEqual(paths(await engine.vaultSearch.search('canine', { semantic: true, under: 'home/' })).includes('pets/dog.md'), false, 'the folder filter holds for semantic hits');

  // The cat note is rewritten about money while the server runs: its vectors follow.
  const next = indexed(engine, 'pets/cat.md');
  writeNote(home, 'pets/cat.md', '# Pets\n\nRemember to pay the invoice for the vet.\n');
  await next;
  await engine.vaultSearch.idle();
  const again = await engine.vaultSearch.search('feline', { semantic: true });
  assert.notEqual(again.hits[0]?.path, 'pets/cat.md');
  const money = await engine.vaultSearch.search('invoice', { semantic: true });
  assert.deepEqual(paths(money).slice(0, 2).sort(), ['home/bills.md', 'pets/cat.md']);
});

test('a different embedding model is refused (keyword results, a note naming kowalski vault reindex) until the reindex', async (t) => {
  const server = await fakeOllama(t);
  const home = tempDir(t, 'kw-vault-');
  writeConfig(home, server.url);
  writePets(home);
  const first = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  await first.vaultSearch.start();
  await first.vaultSearch.idle();
  assert.equal(first.vaultSearch.status().semantic.chunks, 3);
  await first.close();

  writeConfig(home, server.url, 'ollama:mxbai-embed-large');
  const engine = await engineOn(t, home);
  await engine.vaultSearch.start();
  await engine.vaultSearch.idle();
  const status = engine.vaultSearch.status().semantic;
  assert.equal(status.reindexNeeded, true);
  assert.equal(status.vectorsModel, 'ollama:nomic-embed-text');
  assert.equal(status.model, 'ollama:mxbai-embed-large');
  assert.equal(embedModels(server).includes('mxbai-embed-large'), false, 'nothing was embedded with the new model before the reindex');

  const refused = await engine.vaultSearch.search('kitten', { semantic: true });
  assert.equal(refused.mode, 'keyword');
  assert.deepEqual(paths(refused), ['pets/cat.md'], 'the keyword results still come back');
  assert.match(refused.note ?? '', /KW_ERR_VAULT_REINDEX_NEEDED/);
  assert.match(refused.note ?? '', /kowalski vault reindex/);

  assert.deepEqual(await engine.vaultSearch.reindex(), { notes: 3, chunks: 3 });
  assert.equal(engine.vaultSearch.status().semantic.vectorsModel, 'ollama:mxbai-embed-large');
  const after = await engine.vaultSearch.search('feline', { semantic: true });
  assert.equal(after.mode, 'hybrid');
  assert.equal(after.hits[0]!.path, 'pets/cat.md');

  // The same refusal when config.toml changes while the engine runs (Setup, then a reload).
  writeConfig(home, server.url, 'ollama:nomic-embed-text');
  engine.reloadConfig();
  assert.equal(engine.vaultSearch.status().semantic.reindexNeeded, true);
  assert.match((await engine.vaultSearch.search('feline', { semantic: true })).note ?? '', /KW_ERR_VAULT_REINDEX_NEEDED/);
});

test('with the embedding server down: keyword results with a note, the failure in the status, and the pending notes embedded at the next change', async (t) => {
  const home = tempDir(t, 'kw-vault-');
  writeConfig(home, await refusedUrl());
  writePets(home);
  const engine = await engineOn(t, home);
  await engine.vaultSearch.start();
  await engine.vaultSearch.idle();
  const down = engine.vaultSearch.status().semantic;
  assert.equal(down.lastError?.code, 'KW_ERR_MODEL_UNREACHABLE');
  assert.equal(down.pending, 3);
  assert.equal(engine.vaultSearch.status().notes, 3, 'keyword indexing did not wait for the embeddings');

  const answer = await engine.vaultSearch.search('kitten', { semantic: true });
  assert.equal(answer.mode, 'keyword');
  assert.deepEqual(paths(answer), ['pets/cat.md']);
  assert.match(answer.note ?? '', /semantic search failed \(KW_ERR_MODEL_UNREACHABLE/);
  assert.match(answer.note ?? '', /keyword results only/);

  // The server comes up (Setup points at it); the next change embeds what was left.
  const server = await fakeOllama(t);
  writeConfig(home, server.url);
  engine.reloadConfig();
  const next = indexed(engine, 'pets/new.md');
  writeNote(home, 'pets/new.md', '# Whiskers\n\nA cat came by.\n');
  await next;
  await engine.vaultSearch.idle();
  const up = engine.vaultSearch.status().semantic;
  assert.deepEqual({ pending: up.pending, chunks: up.chunks, lastError: up.lastError }, { pending: 0, chunks: 4, lastError: null });
  const feline = await engine.vaultSearch.search('feline', { semantic: true });
  assert.equal(feline.mode, 'hybrid');
  assert.deepEqual(paths(feline).slice(0, 2).sort(), ['pets/cat.md', 'pets/new.md']);
});
