/**
 * An edit-and-approve of a review, killed with SIGKILL after its events are committed and
 * before the file is replaced (`review-before-edit-applied`), and after the review step put
 * the file in place but before its result is committed (`before-result-commit`). The next
 * start finishes the edit: the file is the edited one, the step after the review read it,
 * and the log holds the edit once.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { sha256Of } from '../../steps/index.js';
import { tempDir } from '../../testkit/tmp.js';
import { testEngine, writeHorde } from '../support/engine.js';
import { childStoreEnv, leasesLapsed, postgresUrlOf } from '../../testkit/pg-store.js';
import { nodeArgsFor } from '../../testkit/dist.js';

const CHILD = nodeArgsFor('testkit/crash/review-child.ts');

for (const point of ['review-before-edit-applied:1', 'before-result-commit:1']) {
  test(`an edit killed at ${point} is finished at the next start`, async (t) => {
    const dir = tempDir(t);
    const home = path.join(dir, 'home');
    const folder = writeHorde(path.join(dir, 'h'), 'id = "rev"\npipeline = ["write", "check", "use"]', {
      write: 'kind = "draft"\noutput = "draft.md"', check: 'kind = "review"', use: 'kind = "draft"\ncontext_paths = ["@artifact@"]',
    });
    const first = await testEngine(t, {}, home);
    const id = await first.startRun((await first.resolveHorde(folder)).horde, {});
    assert.equal(await first.waitForRun(id), 'awaiting_input');
    const view = first.review(id);
    const workdir = first.getRun(id).workdir;
    await first.close();

    const edited = `${view.content!}edited before the crash\n`;
    const contentFile = path.join(dir, 'edited.md');
    fs.writeFileSync(contentFile, edited);
    const child = spawnSync(process.execPath, [...CHILD, home, id, view.hash, contentFile], {
      env: { ...process.env, ...await childStoreEnv(home), KOWALSKI_CRASH_AT: point, NODE_TEST_CONTEXT: '' }, encoding: 'utf8', timeout: 60_000,
    });
    assert.equal(child.signal, 'SIGKILL', `the child was not killed at ${point}: ${child.stdout}${child.stderr}`);
    const file = fs.readFileSync(path.join(workdir, 'draft.md'), 'utf8');
    if (point.startsWith('review-before')) assert.equal(file, view.content, 'killed before the file was replaced');
    else assert.equal(file, edited, 'killed after the file was replaced');

    // On Postgres the killed child's lease on the run lapses first (by the database's clock); then the restart takes it back.
    const url = postgresUrlOf(path.resolve(home));
    if (url !== undefined) await leasesLapsed(url);
    const second = await testEngine(t, {}, home);
    const summary = await second.recover();
    assert.deepEqual(summary.resumed, [id]);
    assert.equal(await second.waitForRun(id), 'succeeded');
    assert.equal(fs.readFileSync(path.join(workdir, 'draft.md'), 'utf8'), edited);
    assert.equal(fs.readFileSync(path.join(workdir, 'use.md'), 'utf8'), `read:\n${edited}`);
    const events = second.events(id).map((s) => s.event);
    assert.equal(events.filter((e) => e.type === 'artifact.edited').length, 1);
    assert.equal(events.filter((e) => e.type === 'step.interrupted' && e.step === 'check').length, 1);
    const granted = events.find((e) => e.type === 'approval.granted');
    assert.ok(granted?.type === 'approval.granted' && granted.hash === sha256Of(edited));
    assert.equal(fs.existsSync(path.join(home, 'runs', id, 'reviews', 'check', sha256Of(edited))), false, 'the staged edit was moved into place');
  });
}
