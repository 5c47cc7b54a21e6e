/**
 * 1.x hordes run as 1.x ran them, through a real engine (real SQLite, real commands):
 * written edges are the whole graph and every step with no edge in starts first, a
 * straight line moves on after a failed verify (and the run ends saying so), and `when`
 * is read in any case. The fixtures are test/fixtures/hordes/v1-*.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import type { RunView } from '../../engine/index.js';
import { FIXTURES } from '../fixtures/hordes/temp-horde.js';
import { testEngine } from '../support/engine.js';

/** Run the fixture `name` to its end; its view and the lines its commands wrote to ran.log. */
async function runFixture(t: TestContext, name: string, expected: string): Promise<{ view: RunView; ran: string[] }> {
  const engine = await testEngine(t);
  const { horde } = await engine.resolveHorde(path.join(FIXTURES, name));
  const id = await engine.startRun(horde, {});
  assert.equal(await engine.waitForRun(id), expected);
  const view = engine.getRun(id);
  const ran = fs.readFileSync(path.join(view.workdir, 'ran.log'), 'utf8').trim().split('\n');
  return { view, ran };
}

function states(view: RunView): string[] {
  return view.steps.map((s) => `${s.name}:${s.state}`);
}

/** When `step`'s first attempt started and finished. */
function timesOf(view: RunView, step: string): { startedAt: number; finishedAt: number } {
  const a = view.attempts.find((x) => x.step === step && x.attempt === 1);
  assert.ok(a?.finishedAt !== undefined && a.finishedAt !== null, `${step} finished`);
  return { startedAt: a.startedAt, finishedAt: a.finishedAt };
}

describe('1.x graph semantics', () => {
  test('[x, a, b, c] with x → a and b → c: b starts first beside x, and no a → b is added', async (t) => {
    const { view, ran } = await runFixture(t, 'v1-written-graph', 'succeeded');
    assert.deepEqual(states(view), ['x:passed', 'a:passed', 'b:passed', 'c:passed']);
    // x and b each wait until the other has started: both passed, so they ran at once.
    assert.deepEqual(ran.slice(0, 2).sort(), ['b', 'x']);
    assert.deepEqual([...ran].sort(), ['a', 'b', 'c', 'x']);
    assert.ok(timesOf(view, 'c').startedAt >= timesOf(view, 'b').finishedAt, 'c follows b');
    assert.ok(timesOf(view, 'a').startedAt >= timesOf(view, 'x').finishedAt, 'a follows x');
  });

  test('[a, b, c] with a → c and b → c validates; a and b start first, c joins them', async (t) => {
    const { view, ran } = await runFixture(t, 'v1-join', 'succeeded');
    assert.deepEqual(states(view), ['a:passed', 'b:passed', 'c:passed']);
    assert.deepEqual(ran.slice(0, 2).sort(), ['a', 'b']);
    assert.equal(ran[2], 'c');
    const c = timesOf(view, 'c').startedAt;
    for (const s of ['a', 'b']) assert.ok(c >= timesOf(view, s).finishedAt, `c started after ${s} finished`);
  });

  test('a straight line moves on after a failed verify: the next step runs and delivers, and the run ends failed naming the verify', async (t) => {
    const { view, ran } = await runFixture(t, 'v1-straight-fail', 'failed');
    assert.deepEqual(ran, ['make', 'verify', 'deliver']);
    assert.deepEqual(states(view), ['make:passed', 'verify:failed', 'deliver:passed']);
    assert.equal(view.run.errorCode, 'KW_ERR_RAN_PAST_FAILURE');
    assert.match(view.run.error ?? '', /^step "verify" \(exit 1\) failed; the run went on to the end as in 1\.x/);
    assert.equal(fs.readFileSync(path.join(view.workdir, 'HANDOFF.md'), 'utf8'), 'delivered\n', 'the delivery is there');
    assert.match(fs.readFileSync(path.join(view.workdir, 'verify.md'), 'utf8'), /\*\*FAIL\*\*/);
  });

  test('when = " Fail " is accepted and routes the failure; "PASS" is not taken', async (t) => {
    const { view, ran } = await runFixture(t, 'v1-when-case', 'succeeded');
    assert.deepEqual(ran, ['check', 'fix']);
    assert.deepEqual(states(view), ['check:failed', 'fix:passed', 'report:pending'], 'report never ran');
    assert.equal(view.run.errorCode, null, 'the fail edge took the failure');
  });
});
