/**
 * Watch triggers on real files: one firing per settled change (not per write), atomic saves,
 * floods bounded by the queue and reported, changes made while stopped, globs, single files.
 * Waits are bounded waits on the watcher's callbacks; the only timed pauses are a writer's
 * gaps between chunks, which are the scenario itself.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as pause } from 'node:timers/promises';
import type { KowalskiError } from '../../core/index.js';
import { startWatch } from '../../engine/triggers/watch.js';
import { DEBOUNCE, MapHashes, REAL_TIME, Recorder, dir, sha256, watchWith } from '../support/watch.js';
import { cleanups } from '../../testkit/cleanup.js';

void test('a file written in 50 chunks fires once, after it has settled, with the final content', async (t) => {
  const root = dir(t);
  const debounceMs = 400; // wide, so a busy machine's pause between chunks is not a settle
  const { rec } = await watchWith(t, { path: root, debounceMs });
  const file = path.join(root, 'statement.csv');
  let content = '';
  for (let i = 0; i < 50; i++) {
    const chunk = `row ${i},${'x'.repeat(200)}\n`;
    fs.appendFileSync(file, chunk);
    content += chunk;
    await pause(15); // the writer's gap between chunks, well below the debounce
  }
  const lastWrite = performance.now();
  const change = await rec.changeOf('statement.csv');
  assert.equal(change.hash, sha256(content));
  assert.equal(change.size, Buffer.byteLength(content));
  assert.equal(change.kind, 'added');
  assert.ok((rec.changes[0]?.at ?? 0) - lastWrite >= debounceMs - 20, 'fired only after the file stopped changing for the debounce');
  // Anything else it would fire comes before a file written afterwards.
  fs.writeFileSync(path.join(root, 'later.csv'), 'later');
  await rec.changeOf('later.csv');
  assert.deepEqual(rec.names(), ['statement.csv', 'later.csv']);
  assert.deepEqual(rec.errors, []);
});

void test('atomic saves (temp file renamed over the target, or backup-and-rewrite) fire once each, for the target only', async (t) => {
  const root = dir(t);
  const target = path.join(root, 'report.csv');
  fs.writeFileSync(target, 'v1');
  const hashes = new MapHashes();
  hashes.set(target, sha256('v1')); // fired before: unchanged at start, so silent
  const { rec } = await watchWith(t, { path: root }, hashes);

  // Editor style 1: write a temporary file, rename it over the target.
  fs.writeFileSync(path.join(root, 'report.csv.tmp'), 'v2');
  fs.renameSync(path.join(root, 'report.csv.tmp'), target);
  assert.equal((await rec.changeOf('report.csv')).hash, sha256('v2'));

  // Editor style 2 (vim): move the target to a backup, write a new file, delete the backup.
  fs.renameSync(target, `${target}~`);
  fs.writeFileSync(target, 'v3');
  fs.unlinkSync(`${target}~`);
  const second = await rec.changeOf('report.csv', 2);
  assert.equal(second.hash, sha256('v3'));
  assert.equal(second.kind, 'changed');

  // A scratch file that stays around never fires either.
  fs.writeFileSync(path.join(root, 'draft.tmp'), 'scratch');
  fs.writeFileSync(path.join(root, 'zz-after.csv'), 'after');
  await rec.changeOf('zz-after.csv');
  assert.deepEqual(rec.names(), ['report.csv', 'report.csv', 'zz-after.csv']);
  assert.equal(rec.changes[0]?.kind, 'changed');
  assert.equal(hashes.get(target), sha256('v3'));
});

void test('5,000 files created at once: deliveries are bounded by the queue and every drop is reported', async (t) => {
  const root = dir(t);
  const total = 5000;
  const maxPending = 100;
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const rec = new Recorder();
  const hashes = new MapHashes();
  let inFlight = 0;
  let maxInFlight = 0;
  const watcher = startWatch({
    ...REAL_TIME,
    path: root,
    debounceMs: 150,
    maxPending,
    hashes,
    // The caller takes the first change and is busy with it until the test lets go.
    onChange: async (change) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      rec.changes.push({ ...change, at: performance.now() });
      rec.note();
      if (rec.changes.length === 1) await held;
      inFlight--;
    },
    onOverflow: (info) => {
      rec.overflows.push(info);
      rec.note();
    },
    onError: (error) => {
      rec.errors.push(error);
      rec.note();
    },
  });
  cleanups(t)(() => watcher.close());
  await watcher.ready;

  // Like a checkout: 50 folders of 100 files each, written as fast as possible.
  const all = new Set<string>();
  for (let d = 0; d < 50; d++) {
    const folder = path.join(root, `pkg-${d}`);
    fs.mkdirSync(folder);
    for (let f = 0; f < 100; f++) {
      const file = path.join(folder, `file-${f}.txt`);
      fs.writeFileSync(file, `${d}/${f}`);
      all.add(file);
    }
  }

  // One change taken, the queue full, everything else dropped and reported.
  await rec.until(() => rec.dropped() === total - maxPending - 1, 'the overflow reports', 25_000);
  assert.equal(rec.changes.length, 1, 'nothing is delivered while the caller has not taken the previous change');
  release();
  await rec.until(() => rec.changes.length === maxPending + 1, 'the queued changes');
  assert.equal(maxInFlight, 1);

  const delivered = new Set(rec.changes.map((c) => c.path));
  assert.equal(delivered.size, rec.changes.length, 'each file delivered once');
  assert.equal(rec.changes.length + rec.dropped(), total, 'delivered + dropped = created');
  for (const o of rec.overflows) {
    assert.ok(o.examples.length > 0 && o.examples.length <= 10);
    for (const example of o.examples) assert.ok(all.has(example) && !delivered.has(example), `${example} is a dropped file`);
  }
  assert.ok(rec.overflows.length < 50, `drops are reported per burst, not per file (${rec.overflows.length} reports)`);
  // Delivered and dropped files alike are recorded: a restart does not bring them back.
  assert.equal(hashes.map.size, total);
  assert.deepEqual(rec.errors, []);
});

void test('changed while stopped fires once after start; unchanged does not; removed is forgotten', async (t) => {
  const root = dir(t);
  const file = (n: string): string => path.join(root, n);
  for (const n of ['a.csv', 'b.csv', 'c.csv']) fs.writeFileSync(file(n), `first ${n}`);
  const hashes = new MapHashes();

  const first = await watchWith(t, { path: root }, hashes);
  await first.rec.until(() => first.rec.changes.length === 3, 'the three files present at the first start');
  assert.deepEqual(first.rec.changes.map((c) => c.kind), ['added', 'added', 'added']);
  await first.watcher.close();

  // While stopped: a changes, c goes, d arrives; b stays as it was.
  fs.writeFileSync(file('a.csv'), 'second a');
  fs.unlinkSync(file('c.csv'));
  fs.writeFileSync(file('d.csv'), 'new d');

  const second = await watchWith(t, { path: root }, hashes);
  assert.equal(hashes.get(file('c.csv')), undefined, 'the removed file is forgotten by the time ready resolves');
  await second.rec.until(() => second.rec.changes.length === 2, 'the two files changed while stopped');
  fs.writeFileSync(file('e.csv'), 'after start');
  await second.rec.changeOf('e.csv');
  const got = second.rec.changes.map((c) => `${path.basename(c.path)}:${c.kind}`);
  assert.deepEqual(got.slice(0, 2).sort(), ['a.csv:changed', 'd.csv:added']);
  assert.deepEqual(got.slice(2), ['e.csv:added'], 'b.csv, unchanged, did not fire');
  assert.equal(second.rec.changes.find((c) => c.path === file('a.csv'))?.hash, sha256('second a'));
  assert.deepEqual([...hashes.map.keys()].map((p) => path.basename(p)).sort(), ['a.csv', 'b.csv', 'd.csv', 'e.csv']);
});

void test('globs pick *.csv at the top only and reports/**/*.csv at any depth; hidden, scratch and ignored paths never fire', async (t) => {
  const root = dir(t);
  const put = (rel: string, content = rel): void => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  };
  put('old.csv');
  put('old.txt');
  const { rec } = await watchWith(t, { path: root, globs: ['*.csv', 'reports/**/*.csv'], ignore: [path.join(root, 'data')] });
  await rec.changeOf('old.csv');

  for (const rel of [
    'top.csv', 'reports/r1.csv', 'reports/2024/q1/r2.csv', // match
    'top.txt', 'sub/deep.csv', 'reports/r.txt', '.hidden.csv', '~$top.csv', 'reports/.git/x.csv', // globs and scratch rules exclude
    'data/out.csv', 'data/reports/r.csv', // the engine's own output
  ]) put(rel);
  await rec.until(() => rec.changes.length === 4, 'the three matching files');
  put('zz.csv');
  await rec.changeOf('zz.csv');
  assert.deepEqual(rec.names().slice(1, 4).sort(), ['r1.csv', 'r2.csv', 'top.csv']);
  assert.deepEqual(rec.names().slice(4), ['zz.csv']);
  assert.deepEqual(rec.errors, []);
});

void test('a single-file path fires for that file only, through in-place writes and atomic saves', async (t) => {
  const root = dir(t);
  const target = path.join(root, 'watched.xlsx');
  fs.writeFileSync(target, 'one');
  const { rec } = await watchWith(t, { path: target });
  assert.equal((await rec.changeOf('watched.xlsx')).kind, 'added', 'present at start and never fired: fires');

  fs.writeFileSync(path.join(root, 'sibling.xlsx'), 'not watched');
  fs.writeFileSync(target, 'two');
  assert.equal((await rec.changeOf('watched.xlsx', 2)).hash, sha256('two'));
  fs.writeFileSync(`${target}.tmp`, 'three');
  fs.renameSync(`${target}.tmp`, target);
  const third = await rec.changeOf('watched.xlsx', 3);
  assert.equal(third.hash, sha256('three'));
  assert.equal(third.kind, 'changed');
  assert.deepEqual(rec.names(), ['watched.xlsx', 'watched.xlsx', 'watched.xlsx']);
});

void test('a path that does not exist yet is watched from its folder and fires when it appears', async (t) => {
  const root = dir(t);
  const { rec } = await watchWith(t, { path: path.join(root, 'inbox'), globs: ['*.csv'] });
  fs.writeFileSync(path.join(root, 'beside.csv'), 'not in the watched folder');
  fs.mkdirSync(path.join(root, 'inbox'));
  fs.writeFileSync(path.join(root, 'inbox', 'first.csv'), 'hello');
  fs.writeFileSync(path.join(root, 'inbox', 'first.txt'), 'not a csv');
  const change = await rec.changeOf('first.csv');
  assert.equal(change.path, path.join(root, 'inbox', 'first.csv'));
  fs.writeFileSync(path.join(root, 'inbox', 'second.csv'), 'hi');
  await rec.changeOf('second.csv');
  assert.deepEqual(rec.names(), ['first.csv', 'second.csv']);
});

void test('rewriting the same content does not fire, nor does content that comes back within the debounce', async (t) => {
  const root = dir(t);
  const file = path.join(root, 'a.csv');
  const { rec } = await watchWith(t, { path: root });
  fs.writeFileSync(file, 'A');
  await rec.changeOf('a.csv');

  fs.writeFileSync(file, 'A'); // same bytes, new mtime
  fs.writeFileSync(path.join(root, 's1.csv'), 's1');
  await rec.changeOf('s1.csv');

  fs.writeFileSync(file, 'B'); // and back before it settles
  fs.writeFileSync(file, 'A');
  fs.writeFileSync(path.join(root, 's2.csv'), 's2');
  await rec.changeOf('s2.csv');

  fs.writeFileSync(file, 'C');
  const last = await rec.changeOf('a.csv', 2);
  assert.equal(last.hash, sha256('C'));
  assert.equal(last.kind, 'changed');
  assert.deepEqual(rec.names(), ['a.csv', 's1.csv', 's2.csv', 'a.csv']);
});

void test('a caller that throws is reported and not recorded, and the watcher goes on; a path with no folder is reported', async (t) => {
  const root = dir(t);
  const rec = new Recorder();
  const hashes = new MapHashes();
  const watcher = startWatch({
    ...REAL_TIME,
    path: root,
    debounceMs: DEBOUNCE,
    hashes,
    onChange: (change) => {
      rec.changes.push({ ...change, at: performance.now() });
      rec.note();
      if (path.basename(change.path) === 'bad.csv') throw new Error('the run could not be started');
    },
    onOverflow: () => undefined,
    onError: (error) => {
      rec.errors.push(error);
      rec.note();
    },
  });
  cleanups(t)(() => watcher.close());
  await watcher.ready;
  fs.writeFileSync(path.join(root, 'bad.csv'), 'x');
  await rec.changeOf('bad.csv');
  fs.writeFileSync(path.join(root, 'good.csv'), 'y');
  await rec.changeOf('good.csv');
  assert.deepEqual(rec.errors.map((e) => e.message), ['the run could not be started']);
  assert.equal(hashes.get(path.join(root, 'bad.csv')), undefined, 'not taken: it fires again on the next start');
  assert.equal(hashes.get(path.join(root, 'good.csv')), sha256('y'));

  const lost = await watchWith(t, { path: path.join(root, 'no', 'such', 'folder') });
  assert.equal(lost.rec.errors.length, 1);
  assert.equal((lost.rec.errors[0] as KowalskiError).code, 'KW_ERR_TRIGGER_INVALID');
  assert.match(lost.rec.errors[0]?.message ?? '', /does not exist/);
});
