/**
 * A run parked for its budget in the app (real `kowalski serve`, chromium, a fake Ollama):
 * the Run screen shows what was spent against each limit, the operator raises the spent
 * limit in the form and the run goes on to the end. Screenshots go to test/output/screens/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { apiJson, browserForFile, cleanups, openPage, serve, shot, testId, textOf } from '../support/browser.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import { ANSWER, writeModelConfig, writeModelHorde } from '../support/budget.js';
import { tempDir } from '../../testkit/tmp.js';

const browser = browserForFile();

test('budget park and raise: the parked run shows spent against limits; Raise and continue finishes it', async (t) => {
  const defer = cleanups(t);
  const ollama = await startFakeOllama(() => ANSWER);
  defer(() => ollama.close());
  const home = path.join(fs.realpathSync(tempDir(t, 'kw-e2e-budget-')), 'home');
  fs.mkdirSync(home, { mode: 0o700 });
  writeModelConfig(home, ollama.url, '[budget]\nmodel_calls = 1\n');
  writeModelHorde(home, 'tok', '');
  const [server, { page, pageErrors }] = await Promise.all([serve(home, defer), openPage(browser(), defer)]);
  defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));

  const started = await apiJson<{ runId: string }>(server.url, 'POST', '/api/hordes/tok/runs', { input: { topic: 'x' } });
  assert.equal(started.status, 201);
  const runId = started.json.runId;
  await page.goto(`${server.url}#/runs/${runId}`);
  await testId(page, 'run-state', '[data-state="awaiting_input"]').waitFor();
  const panel = testId(page, 'budget-panel');
  assert.match(await textOf(testId(panel, 'budget-reason')), /model calls reached the limit/);
  assert.equal((await textOf(testId(panel, 'budget-spent-model_calls'))).trim(), '1');
  assert.equal((await textOf(testId(panel, 'budget-limit-model_calls'))).trim(), '1');
  assert.equal((await textOf(testId(panel, 'budget-spent-tokens'))).trim(), '150');
  assert.equal(await testId(panel, 'budget-input-model_calls').inputValue(), '2', 'the spent limit is offered doubled');
  await shot(page, 'budget-parked');

  // A limit at what is spent is refused, and said so; then a real raise.
  await testId(panel, 'budget-input-model_calls').fill('1');
  await testId(panel, 'budget-raise').click();
  assert.match(await textOf(panel.locator('.error-box')), /model calls 1 of 1/);
  await testId(panel, 'budget-input-model_calls').fill('10');
  await testId(panel, 'budget-raise').click();
  await testId(page, 'run-state', '[data-state="succeeded"]').waitFor();
  assert.equal((await textOf(testId(page, 'budget-limit-model_calls'))).trim(), '10');
  assert.equal((await textOf(testId(page, 'budget-spent-model_calls'))).trim(), '3');
  assert.equal(await testId(page, 'budget-raise').count(), 0, 'no raise form once the run goes on');
  await shot(page, 'budget-raised');
});
