/** `review` steps through a real engine: park on the previous artifact, approve, deny, edit and approve, stale views refused, load errors. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { Engine } from '../../engine/index.js';
import { loadHorde } from '../../engine/index.js';
import { sha256Of } from '../../steps/index.js';
import { tempDir } from '../../testkit/tmp.js';
import { testEngine, writeHorde } from '../support/engine.js';

const HORDE = 'id = "rev"\npipeline = ["write", "check", "use"]';
const STEPS = { write: 'kind = "draft"\noutput = "draft.md"', check: 'kind = "review"', use: 'kind = "draft"\ncontext_paths = ["@artifact@"]' };

async function parked(t: Parameters<typeof testEngine>[0], dir: string, engine?: Engine): Promise<{ engine: Engine; id: string; workdir: string }> {
  const e = engine ?? await testEngine(t);
  const folder = writeHorde(path.join(dir, 'h'), HORDE, STEPS);
  const id = await e.startRun((await e.resolveHorde(folder)).horde, {});
  assert.equal(await e.waitForRun(id), 'awaiting_input');
  return { engine: e, id, workdir: e.getRun(id).workdir };
}

describe('review steps', () => {
  test('the run parks on the previous step\'s artifact, bound to its sha256; approving continues, and later steps read it', async (t) => {
    const { engine, id, workdir } = await parked(t, tempDir(t));
    const view = engine.getRun(id);
    const pending = view.pending[0]!;
    const text = fs.readFileSync(path.join(workdir, 'draft.md'), 'utf8');
    assert.deepEqual([pending.step, pending.reason, pending.artifact, pending.hash], ['check', 'review', 'draft.md', sha256Of(text)]);
    const review = engine.review(id);
    assert.deepEqual([review.path, review.hash, review.content, review.changed], ['draft.md', pending.hash, text, false]);
    await engine.approve(id, { hash: pending.hash });
    assert.equal(await engine.waitForRun(id), 'succeeded');
    assert.equal(fs.readFileSync(path.join(workdir, 'use.md'), 'utf8'), `read:\n${text}`);
    const check = engine.getRun(id).steps.find((s) => s.name === 'check')!;
    assert.deepEqual([check.state, check.artifact, check.summary], ['passed', 'draft.md', 'approved as shown']);
  });

  test('a re-run from after a review that passed reuses it: no park, nothing asked again (docs/rerun.md)', async (t) => {
    const { engine, id, workdir } = await parked(t, tempDir(t));
    const edited = `${fs.readFileSync(path.join(workdir, 'draft.md'), 'utf8')}fixed by hand\n`;
    await engine.reviewEdit(id, { hash: engine.review(id).hash, content: edited, by: 'ana' });
    assert.equal(await engine.waitForRun(id), 'succeeded');
    const again = await engine.rerun(id, { from: 'use' });
    assert.equal(await engine.waitForRun(again), 'succeeded', 'the reused review did not park the re-run');
    const events = engine.events(again).map((e) => e.event);
    assert.deepEqual(events.filter((e) => e.type === 'approval.requested'), []);
    const check = events.find((e) => e.type === 'step.finished' && e.step === 'check');
    assert.ok(check?.type === 'step.finished');
    assert.deepEqual([check.outcome, check.summary, check.reusedFrom?.run], ['pass', 'approved with the operator\'s edit', id]);
    assert.equal(fs.readFileSync(path.join(engine.getRun(again).workdir, 'use.md'), 'utf8'), `read:\n${edited}`, 'the step after it read the reviewed (edited) file');
  });

  test('deny with a reason fails the step and the run with that reason; nothing after it runs', async (t) => {
    const { engine, id, workdir } = await parked(t, tempDir(t));
    await engine.deny(id, { reason: 'the totals are wrong' });
    assert.equal(await engine.waitForRun(id), 'failed');
    const row = engine.getRunRow(id);
    assert.equal(row.errorCode, 'KW_ERR_APPROVAL_DENIED');
    assert.match(row.error ?? '', /the totals are wrong/);
    assert.equal(fs.existsSync(path.join(workdir, 'use.md')), false);
  });

  test('edit and approve: artifact.edited (hashes, diff) is committed before the approval, the file is replaced, and the next step reads the edit', async (t) => {
    const { engine, id, workdir } = await parked(t, tempDir(t));
    const before = engine.review(id);
    const edited = before.content!.replace('second line', 'second line, corrected by hand');
    const result = await engine.reviewEdit(id, { hash: before.hash, content: edited, by: 'ana' });
    assert.deepEqual([result.edited, result.before, result.after], [true, before.hash, sha256Of(edited)]);
    assert.equal(await engine.waitForRun(id), 'succeeded');
    assert.equal(fs.readFileSync(path.join(workdir, 'draft.md'), 'utf8'), edited);
    assert.equal(fs.readFileSync(path.join(workdir, 'use.md'), 'utf8'), `read:\n${edited}`);
    const events = engine.events(id).map((s) => s.event);
    const i = events.findIndex((e) => e.type === 'artifact.edited');
    const e = events[i]!;
    assert.ok(e.type === 'artifact.edited');
    assert.deepEqual([e.step, e.path, e.before, e.after, e.by], ['check', 'draft.md', before.hash, sha256Of(edited), 'ana']);
    assert.match(e.diff, /^-second line$/m);
    assert.match(e.diff, /^\+second line, corrected by hand$/m);
    const next = events[i + 1]!;
    assert.ok(next.type === 'approval.granted');
    assert.equal(next.hash, sha256Of(edited));
    assert.equal(engine.getRun(id).steps.find((s) => s.name === 'check')!.summary, 'approved with the operator\'s edit');
  });

  test('a stale view is refused: an approval or an edit from another hash, or after the file changed on disk', async (t) => {
    const { engine, id, workdir } = await parked(t, tempDir(t));
    const seen = engine.review(id);
    await assert.rejects(engine.approve(id, { hash: sha256Of('something else') }), { code: 'KW_ERR_REVIEW_STALE' });
    await assert.rejects(engine.reviewEdit(id, { hash: sha256Of('something else'), content: 'x' }), { code: 'KW_ERR_REVIEW_STALE' });
    fs.appendFileSync(path.join(workdir, 'draft.md'), 'changed behind the operator\'s back\n');
    assert.equal(engine.review(id).changed, true);
    await assert.rejects(engine.reviewEdit(id, { hash: seen.hash, content: 'mine' }), { code: 'KW_ERR_REVIEW_STALE' });
    assert.equal(engine.getRunRow(id).state, 'awaiting_input', 'still parked');
    // Approving what was shown: the step finds the file is not that, and fails rather than pass on an unseen file.
    await engine.approve(id, { hash: seen.hash });
    assert.equal(await engine.waitForRun(id), 'failed');
    assert.equal(engine.getRunRow(id).errorCode, 'KW_ERR_REVIEW_STALE');
    assert.equal(fs.existsSync(path.join(workdir, 'use.md')), false);
  });

  test('a review parks even with confirm_commands = false; an edit of a command approval is refused', async (t) => {
    const dir = tempDir(t);
    const engine = await testEngine(t);
    const folder = writeHorde(path.join(dir, 'h2'), 'id = "rev2"\nconfirm_commands = false\npipeline = ["write", "check"]', { write: STEPS.write, check: 'kind = "review"' });
    const id = await engine.startRun((await engine.resolveHorde(folder)).horde, {});
    assert.equal(await engine.waitForRun(id), 'awaiting_input');
    const cmd = writeHorde(path.join(dir, 'h3'), 'id = "cmd"\npipeline = ["v"]', { v: 'kind = "verify"\nverify_command = "true"' });
    const id2 = await engine.startRun((await engine.resolveHorde(cmd)).horde, {});
    assert.equal(await engine.waitForRun(id2), 'awaiting_input');
    await assert.rejects(engine.reviewEdit(id2, { hash: engine.getRun(id2).pending[0]!.hash, content: 'x' }), { code: 'KW_ERR_NOT_A_REVIEW' });
  });

  test('a review with no previous artifact is a load error naming the step (KW_ERR_REVIEW_NO_ARTIFACT); so is one with an output', async (t) => {
    const dir = tempDir(t);
    const root = await loadHorde(writeHorde(path.join(dir, 'a'), 'id = "a"\npipeline = ["check", "use"]', { check: 'kind = "review"', use: 'kind = "ingest"' }));
    assert.equal(root.ok, false);
    const p = root.problems.find((x) => x.code === 'KW_ERR_REVIEW_NO_ARTIFACT');
    assert.ok(p, JSON.stringify(root.problems));
    assert.equal(p.file, 'agents/check.md');
    assert.match(p.message, /review step "check" is where the run starts/);
    const two = await loadHorde(writeHorde(path.join(dir, 'b'), 'id = "b"\npipeline = ["x", "y", "check"]\n[[edges]]\nfrom = "x"\nto = "check"\n[[edges]]\nfrom = "y"\nto = "check"', {
      x: 'kind = "ingest"\noutput = "x.md"', y: 'kind = "ingest"\noutput = "y.md"', check: 'kind = "review"',
    }));
    assert.equal(two.ok, false);
    assert.match(two.problems.find((x) => x.code === 'KW_ERR_REVIEW_NO_ARTIFACT')?.message ?? '', /"x" writes x.md, "y" writes y.md/);
    const out = await loadHorde(writeHorde(path.join(dir, 'c'), 'id = "c"\npipeline = ["x", "check"]', { x: 'kind = "ingest"', check: 'kind = "review"\noutput = "mine.md"' }));
    assert.equal(out.ok, false);
    assert.ok(out.problems.some((x) => x.code === 'KW_ERR_KEY_VALUE' && x.key === 'output'), JSON.stringify(out.problems));
    const good = await loadHorde(writeHorde(path.join(dir, 'd'), 'id = "d"\npipeline = ["x", "check"]', { x: 'kind = "ingest"\noutput = "in/x.md"', check: 'kind = "review"' }));
    assert.ok(good.ok);
    assert.equal(good.horde.steps.check!.output, 'in/x.md');
  });
});
