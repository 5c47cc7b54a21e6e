/** `kowalski run` parks on a budget (exit 3, telling how to raise it), `kowalski budget` shows and raises it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFakeOllama } from '../../testkit/fake-models.js';
import { ANSWER, writeModelConfig, writeModelHorde } from '../support/budget.js';
import { cli, cliSandbox, outputOf, stdoutJson } from '../../testkit/cli.js';
import { cleanups } from '../../testkit/cleanup.js';

test('run → parked for its budget (exit 3); budget shows it; a bad raise is exit 2; a raise finishes the run (exit 0)', async (t) => {
  const server = await startFakeOllama(() => ANSWER);
  cleanups(t)(() => server.close());
  const { home } = cliSandbox(t);
  writeModelConfig(home, server.url, '[budget]\ntokens = 250\n');
  writeModelHorde(home, 'tok', '');

  const run = await cli(home, ['run', 'tok', '--input', 'topic=x'], { limitMs: 120_000 });
  assert.equal(run.code, 3, outputOf(run));
  const runId = /run (\S+) is parked: its budget is spent \(tokens 300 of 250\)/.exec(run.stdout)?.[1];
  assert.ok(runId !== undefined, outputOf(run));
  assert.match(run.stdout, new RegExp(`raise:  kowalski budget ${runId} --tokens <more>`));
  assert.match(run.stdout, /tokens\s+300 of 250/);

  const show = await cli(home, ['show', runId]);
  assert.match(show.stdout, /is parked: its budget is spent \(tokens 300 of 250\)/, outputOf(show));

  const shown = await cli(home, ['budget', runId]);
  assert.equal(shown.code, 3, outputOf(shown));
  assert.match(shown.stdout, /parked: tokens spent/);
  assert.match(shown.stdout, /model calls\s+2\s+no limit/);

  const tooLow = await cli(home, ['budget', runId, '--tokens', '300']);
  assert.equal(tooLow.code, 2, outputOf(tooLow));
  assert.match(tooLow.stderr, /tokens 300 of 300.*\[KW_ERR_BUDGET_TOO_LOW\]/);
  const notNumber = await cli(home, ['budget', runId, '--tokens', 'lots']);
  assert.equal(notNumber.code, 2, outputOf(notNumber));
  assert.match(notNumber.stderr, /tokens must be a number, not "lots" \[KW_ERR_BUDGET_INVALID\]/);

  const raised = await cli(home, ['budget', runId, '--tokens', '1000', '--json'], { limitMs: 120_000 });
  assert.equal(raised.code, 0, outputOf(raised));
  const json = stdoutJson<{ state: string; budget: { limits: Record<string, number>; spent: { tokens: number }; parked: unknown } }>(raised);
  assert.equal(json.state, 'succeeded');
  assert.deepEqual(json.budget.limits, { tokens: 1000 });
  assert.equal(json.budget.spent.tokens, 450);
  assert.equal(json.budget.parked, null);
});
