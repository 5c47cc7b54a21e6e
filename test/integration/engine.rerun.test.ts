/**
 * Re-run from a step through a real engine: the steps before --from do not run again (a
 * ledger outside the engine says which steps ran), their artifacts and files are copied
 * into the new run's folder, the new run points at the old one, an edited horde runs
 * its edited later steps, bad re-runs are refused with their codes, and a re-run cut by
 * a stop resumes from its log like any run.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import type { Engine } from '../../engine/index.js';
import { nextEvent, testEngine, writeHorde } from '../support/engine.js';
import { tempDir } from '../../testkit/tmp.js';

const LEDGER = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kw-rerun-ledger-')), 'ledger.txt');
process.env.KW_LEDGER = LEDGER; // before any engine (and its threads) exists

/** The steps a run really ran, from the ledger: `step:attempt`. */
function ran(runId: string): string[] {
  if (!fs.existsSync(LEDGER)) return [];
  return fs.readFileSync(LEDGER, 'utf8').split('\n').filter((l) => l.startsWith(`${runId} `)).map((l) => l.split(' ').slice(1).join(':'));
}

const STEPS = { a: 'kind = "scribe"', b: 'kind = "scribe"', c: 'kind = "scribe"', d: 'kind = "scribe"' };

async function firstRun(t: TestContext, steps: Record<string, string> = STEPS): Promise<{ engine: Engine; dir: string; hordeDir: string; old: string }> {
  const dir = tempDir(t, 'kw-rerun-');
  const engine = await testEngine(t);
  const hordeDir = writeHorde(path.join(dir, 'h'), 'id = "four"\npipeline = ["a", "b", "c", "d"]\nconfirm_commands = false', steps);
  const { horde } = await engine.resolveHorde(hordeDir);
  const old = await engine.startRun(horde, {});
  await engine.waitForRun(old);
  return { engine, dir, hordeDir, old };
}

const sha256 = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('engine rerun', () => {
  test('from the 3rd step: steps 1–2 are not run again, their artifacts and files are copied and recorded as reused; the new run points at the old one', async (t) => {
    const { engine, old } = await firstRun(t);
    assert.equal(engine.getRunRow(old).state, 'succeeded');
    assert.deepEqual(ran(old), ['a:1', 'b:1', 'c:1', 'd:1']);
    const id = await engine.rerun(old, { from: 'c' });
    assert.equal(await engine.waitForRun(id), 'succeeded');
    assert.deepEqual(ran(id), ['c:1', 'd:1'], 'only c and d ran in the re-run');

    const events = engine.events(id).map((e) => e.event);
    const created = events[0]!;
    assert.equal(created.type, 'run.created');
    if (created.type !== 'run.created') return;
    assert.equal(created.provenance, `rerun:${old}`);
    assert.deepEqual(created.rerun, { run: old, from: 'c', workdir: 'output', replayModels: false });
    assert.deepEqual(created.policy.a?.reuse, { run: old, attempt: 1, outcome: 'pass', artifact: 'a.md', summary: `written by ${old}` });
    assert.equal(created.policy.c?.reuse, undefined);

    const view = engine.getRun(id);
    const oldView = engine.getRun(old);
    for (const s of ['a', 'b']) {
      const file = path.join(view.workdir, `${s}.md`);
      assert.equal(fs.readFileSync(file, 'utf8'), `${old} ${s} 1`, `${s}'s artifact is the old run's`);
      assert.equal(fs.readFileSync(path.join(view.workdir, 'side', `${s}.txt`), 'utf8'), old, `${s}'s side file came along`);
      const finished = events.find((e) => e.type === 'step.finished' && e.step === s);
      assert.ok(finished?.type === 'step.finished');
      assert.deepEqual(finished.reusedFrom, { run: old, attempt: 1, hash: sha256(path.join(oldView.workdir, `${s}.md`)) });
      assert.equal(finished.artifact, `${s}.md`);
    }
    for (const s of ['c', 'd']) {
      assert.equal(fs.readFileSync(path.join(view.workdir, `${s}.md`), 'utf8'), `${id} ${s} 1`, `${s} ran again`);
      const finished = events.find((e) => e.type === 'step.finished' && e.step === s);
      assert.ok(finished?.type === 'step.finished' && finished.reusedFrom === undefined);
    }
    assert.deepEqual(view.steps.map((s) => `${s.name}:${s.state}`), ['a:passed', 'b:passed', 'c:passed', 'd:passed']);
  });

  test('--horde: an edited folder runs its edited later step; a step that changed kind before --from is refused', async (t) => {
    const { engine, dir, old } = await firstRun(t);
    const edited = writeHorde(path.join(dir, 'edited'), 'id = "four"\npipeline = ["a", "b", "c", "d"]\nconfirm_commands = false', { ...STEPS, d: 'kind = "scribe"\nremark = "edited"' });
    const { horde } = await engine.resolveHorde(edited);
    const id = await engine.rerun(old, { from: 'd', horde });
    assert.equal(await engine.waitForRun(id), 'succeeded');
    assert.deepEqual(ran(id), ['d:1']);
    const workdir = engine.getRun(id).workdir;
    assert.equal(fs.readFileSync(path.join(workdir, 'd.md'), 'utf8'), `${id} d 1 edited`);
    assert.equal(fs.readFileSync(path.join(workdir, 'c.md'), 'utf8'), `${old} c 1`);

    const changed = writeHorde(path.join(dir, 'changed'), 'id = "four"\npipeline = ["a", "b", "c", "d"]\nconfirm_commands = false', { ...STEPS, b: 'kind = "noop"' });
    const other = (await engine.resolveHorde(changed)).horde;
    await assert.rejects(engine.rerun(old, { from: 'c', horde: other }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'KW_ERR_RERUN_MISMATCH');
      assert.match(err.message, /"b" was of kind "scribe" there, and is "noop" now/);
      return true;
    });
    const added = writeHorde(path.join(dir, 'added'), 'id = "four"\npipeline = ["a", "x", "c", "d"]\nconfirm_commands = false', { a: STEPS.a, x: 'kind = "scribe"', c: STEPS.c, d: STEPS.d });
    await assert.rejects(engine.rerun(old, { from: 'c', horde: (await engine.resolveHorde(added)).horde }), { code: 'KW_ERR_RERUN_MISMATCH' });
    await assert.rejects(engine.rerun(old, { from: 'zz' }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'KW_ERR_RERUN_STEP_UNKNOWN');
      assert.match(err.message, /"zz" is not in the pipeline of four .*a, b, c, d/);
      return true;
    });
    await assert.rejects(engine.rerun('20261201-nope', { from: 'c' }), { code: 'KW_ERR_RUN_NOT_FOUND' });
    assert.equal(engine.listRuns().length, 2, 'no run was created by a refused re-run');
  });

  test('a step that failed in the old run is refused before --from, and may itself be re-run', async (t) => {
    const { engine, old } = await firstRun(t, { ...STEPS, b: 'kind = "scribe"\nfail = true' });
    assert.equal(engine.getRunRow(old).state, 'failed');
    await assert.rejects(engine.rerun(old, { from: 'c' }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'KW_ERR_RERUN_MISMATCH');
      assert.match(err.message, /"b" failed there .*re-run from "b"/);
      return true;
    });
    const id = await engine.rerun(old, { from: 'b' });
    assert.equal(await engine.waitForRun(id), 'failed', 'the folder still says fail = true');
    assert.deepEqual(ran(id), ['b:1']);
  });

  test('a re-run stopped while its first real step runs resumes from its log: reused steps stay reused, nothing runs twice', async (t) => {
    const dir = tempDir(t, 'kw-rerun-');
    const data = path.join(dir, 'data');
    const gate = path.join(dir, 'gate');
    const hordeToml = 'id = "gated"\npipeline = ["a", "b", "g", "d"]\nconfirm_commands = false';
    const gateInput = '\n[[inputs]]\nid = "gate"\nlabel = "Gate file"\ntype = "text"';
    const hordeDir = writeHorde(path.join(dir, 'h'), hordeToml, { a: STEPS.a + gateInput, b: STEPS.b, g: 'kind = "gate"', d: STEPS.d });
    fs.writeFileSync(gate, '');
    let old: string;
    {
      const engine = await testEngine(t, {}, data);
      const { horde } = await engine.resolveHorde(hordeDir);
      old = await engine.startRun(horde, { gate });
      assert.equal(await engine.waitForRun(old), 'succeeded');
      fs.rmSync(gate);
      const started = nextEvent(engine, (type, step) => type === 'step.started' && step === 'g');
      const id = await engine.rerun(old, { from: 'g' });
      await started;
      await engine.close();
      fs.writeFileSync(path.join(dir, 'rerun-id'), id);
    }
    const id = fs.readFileSync(path.join(dir, 'rerun-id'), 'utf8');
    const engine = await testEngine(t, {}, data);
    assert.equal(engine.getRunRow(id).state, 'running');
    fs.writeFileSync(gate, '');
    await engine.recover();
    assert.equal(await engine.waitForRun(id), 'succeeded');
    assert.deepEqual(ran(id), ['d:1'], 'a and b were reused once, g is a gate (no ledger), d ran once');
    const reused = engine.events(id).map((e) => e.event).filter((e) => e.type === 'step.finished' && e.reusedFrom !== undefined).map((e) => 'step' in e ? e.step : '');
    assert.deepEqual(reused, ['a', 'b']);
  });
});
