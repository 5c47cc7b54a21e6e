/** BundleStaging: a reviewed bundle kept under a review id until it is installed, dropped or expires — and its files with it. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { BundleStaging, exportBundle, reviewBundle } from '../../bundles/index.js';
import type { StagedBundle } from '../../bundles/index.js';
import { KowalskiError } from '../../core/index.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';

async function setup(t: TestContext): Promise<{ dataDir: string; stage: () => Promise<StagedBundle> }> {
  const root = tempDir(t, 'kw-staging-');
  const src = path.join(root, 'quick');
  fs.mkdirSync(path.join(src, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(src, 'horde.md'), '---\nid = "quick"\npipeline = ["a"]\n---\n');
  fs.writeFileSync(path.join(src, 'agents', 'a.md'), '---\nname = "a"\nkind = "verify"\nverify_command = "true"\n---\n');
  const bytes = await exportBundle(src, 'quick');
  const dataDir = path.join(root, 'data');
  return { dataDir, stage: () => reviewBundle(bytes, { dataDir }) };
}

function notFound(err: unknown): boolean {
  return err instanceof KowalskiError && err.code === 'KW_ERR_NOT_FOUND';
}

describe('BundleStaging', () => {
  test('install uses the staged files, then forgets the review and removes them', async (t) => {
    const s = await setup(t);
    const staging = new BundleStaging();
    cleanups(t)(() => staging.close());
    const staged = await s.stage();
    const { reviewId, expiresAt } = await staging.add(staged);
    assert.match(reviewId, /^[0-9a-f]{32}$/);
    assert.ok(expiresAt > Date.now() + 9 * 60_000 && expiresAt <= Date.now() + 10 * 60_000);
    const installed = await staging.install(reviewId);
    assert.equal(installed.hordeId, 'quick');
    assert.ok(fs.existsSync(path.join(s.dataDir, 'hordes', 'quick', 'horde.md')));
    assert.equal(fs.existsSync(staged.dir), false, 'the staged files are removed after the install');
    await assert.rejects(staging.install(reviewId), notFound);
  });

  test('a failed install (id taken) keeps the review for another try under another id', async (t) => {
    const s = await setup(t);
    const staging = new BundleStaging();
    cleanups(t)(() => staging.close());
    await staging.install((await staging.add(await s.stage())).reviewId);
    const second = await staging.add(await s.stage());
    await assert.rejects(staging.install(second.reviewId), (err) => err instanceof KowalskiError && err.code === 'KW_ERR_HORDE_EXISTS');
    assert.equal(staging.size, 1);
    assert.equal((await staging.install(second.reviewId, { id: 'quick-2' })).hordeId, 'quick-2');
    assert.equal(staging.size, 0);
  });

  test('drop removes the staged files; an unknown review is KW_ERR_NOT_FOUND', async (t) => {
    const s = await setup(t);
    const staging = new BundleStaging();
    const staged = await s.stage();
    const { reviewId } = await staging.add(staged);
    await staging.drop(reviewId);
    assert.equal(fs.existsSync(staged.dir), false);
    await assert.rejects(staging.drop(reviewId), notFound);
    await assert.rejects(staging.install('0'.repeat(32)), notFound);
  });

  test('a review past its expiry is gone (its files too), even before its timer fires', async (t) => {
    const s = await setup(t);
    let now = 1_000_000;
    const staging = new BundleStaging({ now: () => now });
    cleanups(t)(() => staging.close());
    const staged = await s.stage();
    const { reviewId, expiresAt } = await staging.add(staged);
    assert.equal(expiresAt, 1_000_000 + 600_000);
    now = expiresAt;
    await assert.rejects(staging.install(reviewId), (err) => notFound(err) && /expired/.test((err as Error).message));
    assert.equal(fs.existsSync(path.join(s.dataDir, 'hordes', 'quick')), false, 'nothing installed');
    assert.equal(fs.existsSync(staged.dir), false);
  });

  test('the expiry timer removes the staged files by itself', async (t) => {
    const s = await setup(t);
    const staging = new BundleStaging({ ttlMs: 20 });
    cleanups(t)(() => staging.close());
    const staged = await s.stage();
    await staging.add(staged);
    // A bounded wait on the timer's effect (at most 5 s), not a fixed sleep.
    const deadline = Date.now() + 5000;
    while (fs.existsSync(staged.dir) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.equal(fs.existsSync(staged.dir), false);
    assert.equal(staging.size, 0);
  });

  test('bounded: past maxStaged reviews the oldest is dropped; close drops the rest', async (t) => {
    const s = await setup(t);
    const staging = new BundleStaging({ maxStaged: 2 });
    const staged = [await s.stage(), await s.stage(), await s.stage()];
    const ids = [];
    for (const st of staged) ids.push((await staging.add(st)).reviewId);
    assert.equal(staging.size, 2);
    assert.equal(fs.existsSync(staged[0]!.dir), false);
    await assert.rejects(staging.drop(ids[0]!), notFound);
    await staging.close();
    assert.equal(staging.size, 0);
    assert.deepEqual(staged.map((st) => fs.existsSync(st.dir)), [false, false, false]);
  });
});
