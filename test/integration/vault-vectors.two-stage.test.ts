/**
 * The vector store's two-stage search (engine/vault/search/vectors.ts) on real
 * `vectors.sqlite` files: the hamming KNN over sign bits then exact cosine over the
 * candidates gives what an exact search gives, follows replaced and removed notes, and a
 * store of the first layout (float vectors in a vec0 table) is converted at open without
 * embedding anything again.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { VectorStore } from '../../engine/vault/search/vectors.js';
import type { EmbeddedChunk } from '../../engine/vault/search/vectors.js';
import { tempDir } from '../../testkit/tmp.js';
import { seededRandom } from '../../testkit/random.js';
import { cleanups } from '../../testkit/cleanup.js';

const MODEL = 'test:vectors';

function unit(v: number[]): number[] {
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/** Near `centre`: `noise` times a random direction added, then normalised. */
function around(random: () => number, centre: readonly number[], noise: number): number[] {
  return unit(centre.map((x) => x + (random() - 0.5) * noise));
}

function cosineDistance(a: readonly number[], b: readonly number[]): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return 1 - dot / Math.sqrt(na * nb);
}

interface Stored { path: string; heading: string; vector: number[] }

/** `notes` notes of `perNote` chunks; each chunk near one of `clusters` random centres. */
function fill(store: VectorStore, random: () => number, dim: number, notes: number, perNote: number, clusters: number): Stored[] {
  const centres = Array.from({ length: clusters }, () => unit(Array.from({ length: dim }, () => random() - 0.5)));
  const all: Stored[] = [];
  for (let n = 0; n < notes; n++) {
    const chunks: EmbeddedChunk[] = Array.from({ length: perNote }, (_, c) => ({ heading: `Part ${c}`, text: `part ${c} of note ${n}`, vector: around(random, centres[Math.floor(random() * clusters)]!, 0.15) }));
    store.putNote(MODEL, `notes/${n}.md`, `sha-${n}`, chunks);
    for (const c of chunks) all.push({ path: `notes/${n}.md`, heading: c.heading, vector: c.vector });
  }
  return all;
}

function exact(all: readonly Stored[], query: readonly number[], k: number): Array<{ path: string; heading: string; distance: number }> {
  return all.map((s) => ({ path: s.path, heading: s.heading, distance: cosineDistance(s.vector, query) }))
    .sort((a, b) => a.distance - b.distance)
    .slice(0, k);
}

function key(h: { path: string; heading: string }): string {
  return `${h.path}#${h.heading}`;
}

test('on a small set the two-stage search equals exact search: same chunks, same order, the cosine distances', (t) => {
  const store = VectorStore.open(path.join(tempDir(t), 'vectors.sqlite'));
  cleanups(t)(() => store.close());
  store.reset(MODEL);
  const random = seededRandom(3);
  const all = fill(store, random, 48, 24, 5, 6); // 120 chunks: every one is a candidate for k = 20
  for (let q = 0; q < 10; q++) {
    const query = unit(Array.from({ length: 48 }, () => random() - 0.5));
    const got = store.nearest(query, 20);
    const want = exact(all, query, 20);
    assert.deepEqual(got.map(key), want.map(key), `query ${q}`);
    got.forEach((h, i) => assert.ok(Math.abs(h.distance - want[i]!.distance) < 1e-5, `${h.distance} vs ${want[i]!.distance}`));
    assert.match(got[0]!.text, /^part \d of note \d+$/);
  }
});

test('over 4,000 chunks the note that means the query comes first, and the top 10 of the 50 nearest are the exact top 10 (recall ≥ 0.95)', (t) => {
  const store = VectorStore.open(path.join(tempDir(t), 'vectors.sqlite'));
  cleanups(t)(() => store.close());
  store.reset(MODEL);
  const random = seededRandom(5);
  const dim = 256;
  const all = fill(store, random, dim, 400, 10, 40);
  const meaning = unit(Array.from({ length: dim }, () => random() - 0.5));
  const target = { heading: 'Late payments', text: 'what the query means', vector: around(random, meaning, 0.02) };
  store.putNote(MODEL, 'finance/late.md', 'sha-late', [target]);
  all.push({ path: 'finance/late.md', heading: target.heading, vector: target.vector });

  const first = store.nearest(around(random, meaning, 0.02), 10)[0]!;
  assert.deepEqual([first.path, first.heading, first.text], ['finance/late.md', 'Late payments', 'what the query means']);
  assert.ok(first.distance < 0.05, String(first.distance));

  let found = 0;
  for (let q = 0; q < 20; q++) {
    const query = around(random, all[Math.floor(random() * all.length)]!.vector, 0.15);
    const got = new Set(store.nearest(query, 50).slice(0, 10).map(key)); // k = 50: what a search for 10 notes asks for
    found += exact(all, query, 10).filter((h) => got.has(key(h))).length;
  }
  assert.ok(found / 200 >= 0.95, `recall@10 ${found / 200}`);
});

test('a replaced note answers with its new chunks only, a removed one not at all (vec0: delete, then insert)', (t) => {
  const store = VectorStore.open(path.join(tempDir(t), 'vectors.sqlite'));
  cleanups(t)(() => store.close());
  store.reset(MODEL);
  const north = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  const east = [0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
  store.putNote(MODEL, 'a.md', '1', [{ heading: 'Old', text: 'old', vector: north }]);
  store.putNote(MODEL, 'b.md', '1', [{ heading: 'B', text: 'b', vector: east }]);
  store.putNote(MODEL, 'a.md', '2', [{ heading: 'New', text: 'new', vector: east }, { heading: 'New 2', text: 'new 2', vector: east }]);
  assert.deepEqual(store.nearest(north, 10).map((h) => h.heading).sort(), ['B', 'New', 'New 2']);
  assert.equal(store.chunkCount(), 3);
  store.removeNote('a.md');
  assert.deepEqual(store.nearest(north, 10).map((h) => h.path), ['b.md']);
  assert.deepEqual([...store.embeddedNotes()], [['b.md', '1']]);
});

test('a store of the first layout (float vectors in vec_chunks) is converted at open: same pin, same notes, nothing to embed again', (t) => {
  const file = path.join(tempDir(t), 'vectors.sqlite');
  const random = seededRandom(9);
  const all: Stored[] = [];
  const old = new Database(file);
  sqliteVec.load(old);
  old.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE notes (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL);
    CREATE TABLE chunks (id INTEGER PRIMARY KEY, path TEXT NOT NULL, heading TEXT NOT NULL, text TEXT NOT NULL);
    CREATE VIRTUAL TABLE vec_chunks USING vec0 (embedding float[12] distance_metric=cosine);
    INSERT INTO meta VALUES ('model', '${MODEL}'), ('dimension', '12');`);
  for (let n = 0; n < 30; n++) {
    const vector = unit(Array.from({ length: 12 }, () => random() - 0.5));
    const id = old.prepare('INSERT INTO chunks (path, heading, text) VALUES (?, ?, ?)').run(`n${n}.md`, 'H', `text ${n}`).lastInsertRowid;
    old.prepare('INSERT INTO vec_chunks (rowid, embedding) VALUES (?, ?)').run(BigInt(id), new Float32Array(vector));
    old.prepare('INSERT INTO notes (path, sha256) VALUES (?, ?)').run(`n${n}.md`, `s${n}`);
    all.push({ path: `n${n}.md`, heading: 'H', vector });
  }
  old.close();

  const store = VectorStore.open(file);
  cleanups(t)(() => store.close());
  assert.deepEqual(store.pin(), { model: MODEL, dimension: 12 });
  assert.equal(store.embeddedNotes().size, 30);
  assert.equal(store.chunkCount(), 30);
  const query = unit(Array.from({ length: 12 }, () => random() - 0.5));
  assert.deepEqual(store.nearest(query, 8).map(key), exact(all, query, 8).map(key));
  store.putNote(MODEL, 'n0.md', 's0b', [{ heading: 'H', text: 'again', vector: query }]);
  assert.equal(store.nearest(query, 1)[0]!.text, 'again');
});
