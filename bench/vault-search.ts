/**
 * The vault's search (`vault-search`): indexing 10,000 notes with the real rescan (walk,
 * read, sha256, FTS5 insert) against a floor of the same texts inserted bare into an FTS5
 * table; keyword search over them (`VaultSearch.search`: quoting, bm25 with the title
 * weighted, snippet) against a bare `MATCH … ORDER BY rank LIMIT 10`; and the vector side
 * over 100,000 chunks (`VectorStore.nearest`: hamming KNN over sign bits, then exact
 * cosine over the candidates) against the bare float32 vec0 KNN (brute force, exact), with
 * the recall@10 of the store's answer against that exact one, on clustered vectors (like
 * real embeddings) and on uniform random ones (the worst case). Notes and vectors are made
 * from a seeded generator, so every run searches the same data.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { createVaultSearch, openDatabase } from '../engine/index.js';
import { systemClock } from '../engine/base/clock.js';
import { systemTimers } from '../engine/base/timers.js';
import { VectorStore } from '../engine/vault/search/vectors.js';
import { removeDir, tempDir } from './setup.js';
import { now } from './stats.js';
import { seededRandom } from '../testkit/random.js';

export const VAULT_NOTES = 10_000;
export const VECTOR_CHUNKS = 100_000;
/** nomic-embed-text's dimension, the default model's. */
export const VECTOR_DIMENSION = 768;
const QUERIES = 200;
const WORDS_PER_NOTE = 200;
const K = 50;

export interface VaultSearchSample {
  indexMs: number;
  indexFloorMs: number;
  ftsP50: number;
  ftsFloorP50: number;
  /** Hits per query, on average (the queries are not all misses). */
  ftsHits: number;
  /** Clustered vectors (like real embeddings). */
  vectorP50: number;
  vectorFloorP50: number;
  vectorRecall10: number;
  vectorBuildMs: number;
  /** Uniform random vectors (binary quantization's worst case). */
  vectorRandomP50: number;
  vectorRandomFloorP50: number;
  vectorRandomRecall10: number;
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ten', 'ra', 'vo', 'shi', 'den', 'po', 'lu', 'mar', 'zen', 'qi', 'bel', 'tor', 'an'];

/** 5,000 words, the first ones used far more often than the last (a Zipf-like draw). */
function vocabulary(): string[] {
  const random = seededRandom(7);
  const words = new Set<string>();
  while (words.size < 5000) {
    const n = 2 + Math.floor(random() * 3);
    words.add(Array.from({ length: n }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join(''));
  }
  return [...words];
}

function draw(random: () => number, words: readonly string[]): string {
  return words[Math.floor(words.length * random() ** 3)]!;
}

function notes(): Array<{ rel: string; text: string }> {
  const words = vocabulary();
  const random = seededRandom(11);
  return Array.from({ length: VAULT_NOTES }, (_, i) => {
    const title = `${draw(random, words)} ${draw(random, words)}`;
    const body = Array.from({ length: WORDS_PER_NOTE }, () => draw(random, words)).join(' ');
    return { rel: `folder-${i % 50}/note-${i}.md`, text: `# ${title}\n\n## Part one\n\n${body.slice(0, body.length / 2)}\n\n## Part two\n\n${body.slice(body.length / 2)}\n` };
  });
}

function p50(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timedEach(count: number, fn: (i: number) => unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = now();
    await fn(i);
    out.push(now() - started);
  }
  return out;
}

function unitVector(random: () => number): Float32Array {
  const v = new Float32Array(VECTOR_DIMENSION);
  let norm = 0;
  for (let i = 0; i < v.length; i++) {
    v[i] = random() - 0.5;
    norm += v[i]! * v[i]!;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

async function keywordSide(dir: string, sample: Partial<VaultSearchSample>): Promise<void> {
  const all = notes();
  const root = path.join(dir, 'vault');
  for (const n of all) {
    fs.mkdirSync(path.dirname(path.join(root, n.rel)), { recursive: true });
    fs.writeFileSync(path.join(root, n.rel), n.text);
  }
  // Floor: the same texts inserted bare into an FTS5 table of the same shape, one transaction.
  const bare = new Database(path.join(dir, 'floor.sqlite'));
  bare.pragma('journal_mode = WAL');
  bare.exec("CREATE VIRTUAL TABLE f USING fts5 (path UNINDEXED, title, body, tokenize = 'unicode61 remove_diacritics 2')");
  let started = now();
  const insert = bare.prepare('INSERT INTO f (path, title, body) VALUES (?, ?, ?)');
  bare.transaction(() => {
    for (const n of all) insert.run(n.rel, n.text.slice(2, n.text.indexOf('\n')), n.text);
  })();
  sample.indexFloorMs = now() - started;

  const db = openDatabase(path.join(dir, 'kowalski.sqlite'), { synchronous: 'normal' });
  const search = createVaultSearch({
    db, root, vectorsFile: path.join(dir, 'vectors.sqlite'), clock: systemClock, timers: systemTimers(systemClock),
    semantic: null, providers: () => { throw new Error('no providers in this bench'); },
  });
  started = now();
  const result = search.rescan();
  sample.indexMs = now() - started;
  if (result.indexed !== VAULT_NOTES) throw new Error(`indexed ${result.indexed} of ${VAULT_NOTES} notes`);

  // Queries: two words each, drawn like the notes' words (so most have hits).
  const words = vocabulary();
  const random = seededRandom(23);
  const queries = Array.from({ length: QUERIES }, () => `${draw(random, words)} ${draw(random, words)}`);
  let hits = 0;
  for (const q of queries.slice(0, 20)) await search.search(q); // warm-up
  const times = await timedEach(QUERIES, async (i) => {
    hits += (await search.search(queries[i]!)).hits.length;
  });
  sample.ftsP50 = p50(times);
  sample.ftsHits = hits / QUERIES;
  const bareSearch = bare.prepare('SELECT path FROM f WHERE f MATCH ? ORDER BY rank LIMIT 10');
  const quoted = queries.map((q) => q.split(' ').map((w) => `"${w}"`).join(' '));
  for (const q of quoted.slice(0, 20)) bareSearch.all(q);
  sample.ftsFloorP50 = p50(await timedEach(QUERIES, (i) => bareSearch.all(quoted[i]!)));
  await search.close();
  db.close();
  bare.close();
}

/** One data set of the vector side: how its vectors and queries are drawn. */
interface VectorData {
  name: string;
  chunk(random: () => number): Float32Array;
  query(random: () => number): Float32Array;
}

/** Uniform random directions: no chunk is near another or a query (binary quantization's worst case). */
const RANDOM: VectorData = { name: 'random', chunk: unitVector, query: unitVector };

/** Gaussian noise, by the Box–Muller transform. */
function gauss(random: () => number): number {
  return Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
}

/**
 * Like real embeddings: 300 topics (random centres), each vector a centre plus Gaussian
 * noise (σ 0.03 a dimension: cosine ≈ 0.77 to its centre), queries drawn the same way.
 */
function clustered(): VectorData {
  const centres = Array.from({ length: 300 }, (_, i) => unitVector(seededRandom(1000 + i)));
  const near = (random: () => number): Float32Array => {
    const centre = centres[Math.floor(random() * centres.length)]!;
    const v = new Float32Array(VECTOR_DIMENSION);
    let norm = 0;
    for (let i = 0; i < v.length; i++) {
      v[i] = centre[i]! + gauss(random) * 0.03;
      norm += v[i]! * v[i]!;
    }
    norm = Math.sqrt(norm);
    for (let i = 0; i < v.length; i++) v[i]! /= norm;
    return v;
  };
  return { name: 'clustered', chunk: near, query: near };
}

interface VectorResult {
  p50: number;
  floorP50: number;
  /** Of the exact 10 nearest chunks, the share in the top 10 of the store's answer. */
  recall10: number;
  buildMs: number;
}

/**
 * 100,000 chunks of `data` through `VectorStore.putNote`; `nearest(q, 50)` timed; then the
 * same vectors copied into a float32 vec0 table (cosine) through another connection: its
 * bare KNN is the floor (the brute-force scan the store used before) and the exact answer
 * the recall is measured against.
 */
function vectorRun(dir: string, data: VectorData): VectorResult {
  const file = path.join(dir, `vectors-${data.name}.sqlite`);
  const store = VectorStore.open(file);
  store.reset(`bench:${data.name}`);
  const random = seededRandom(31);
  const perNote = 10;
  const started = now();
  for (let n = 0; n < VECTOR_CHUNKS / perNote; n++) {
    const chunks = Array.from({ length: perNote }, (_, c) => ({ heading: `Part ${c}`, text: `chunk ${c} of note ${n}`, vector: [...data.chunk(random)] }));
    store.putNote(`bench:${data.name}`, `note-${n}.md`, String(n), chunks);
  }
  const buildMs = now() - started;
  const queries = Array.from({ length: 50 }, () => [...data.query(random)]);
  for (const q of queries.slice(0, 5)) store.nearest(q, K);
  const times: number[] = [];
  const answers: string[][] = [];
  for (const q of queries) {
    const t0 = now();
    const hits = store.nearest(q, K);
    times.push(now() - t0);
    answers.push(hits.slice(0, 10).map((h) => h.text));
  }
  store.close();

  const bare = new Database(file);
  bare.pragma('mmap_size = 1073741824');
  sqliteVec.load(bare);
  bare.exec(`CREATE VIRTUAL TABLE floor_vec USING vec0 (embedding float[${VECTOR_DIMENSION}] distance_metric=cosine);
    INSERT INTO floor_vec (rowid, embedding) SELECT id, vector FROM chunk_vectors;`);
  const knn = bare.prepare('SELECT rowid, distance FROM floor_vec WHERE embedding MATCH ? AND k = ?');
  const floats = queries.map((q) => new Float32Array(q));
  for (const q of floats.slice(0, 5)) knn.all(q, K);
  const floor: number[] = [];
  for (const q of floats) {
    const t0 = now();
    knn.all(q, K);
    floor.push(now() - t0);
  }
  const exact = bare.prepare<[Float32Array], { text: string }>('SELECT c.text AS text FROM (SELECT rowid, distance FROM floor_vec WHERE embedding MATCH ? AND k = 10) v JOIN chunks c ON c.id = v.rowid ORDER BY v.distance');
  let found = 0;
  floats.forEach((q, i) => {
    const got = new Set(answers[i]);
    found += exact.all(q).filter((r) => got.has(r.text)).length;
  });
  bare.close();
  return { p50: p50(times), floorP50: p50(floor), recall10: found / (10 * queries.length), buildMs };
}

function vectorSide(dir: string, sample: Partial<VaultSearchSample>): void {
  const real = vectorRun(dir, clustered());
  sample.vectorP50 = real.p50;
  sample.vectorFloorP50 = real.floorP50;
  sample.vectorRecall10 = real.recall10;
  sample.vectorBuildMs = real.buildMs;
  const worst = vectorRun(dir, RANDOM);
  sample.vectorRandomP50 = worst.p50;
  sample.vectorRandomFloorP50 = worst.floorP50;
  sample.vectorRandomRecall10 = worst.recall10;
}

export async function vaultSearchOnce(): Promise<VaultSearchSample> {
  const dir = tempDir('vault-search');
  try {
    const sample: Partial<VaultSearchSample> = {};
    await keywordSide(dir, sample);
    vectorSide(dir, sample);
    return sample as VaultSearchSample;
  } finally {
    removeDir(dir);
  }
}
