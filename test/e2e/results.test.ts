/**
 * The Run screen starts with what the run came to: the outcome, then the delivery unfolded
 * (with where it and the other outputs are), the other artifacts folded until opened; a
 * running run offers no Resume; an error is shown once, where it happened; "Approve all"
 * approves each parked step with the hash it was shown with. Real `kowalski serve`, real chromium.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { apiJson, browserForFile, cleanups, openPage, serve, shot, testId, textOf } from '../support/browser.js';
import { verifyStep, writeHorde } from '../../testkit/cli.js';
import { tempDir } from '../../testkit/tmp.js';

const browser = browserForFile();

/** A data folder with `hordes(home/hordes, work)` written, a server on it, and a page. */
async function scene(t: TestContext, hordes: (dir: string, work: string) => void): Promise<{ page: Page; url: string; work: string }> {
  const defer = cleanups(t);
  const root = fs.realpathSync(tempDir(t, 'kw-e2e-results-'));
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  fs.mkdirSync(work);
  fs.mkdirSync(home, { mode: 0o700 });
  hordes(path.join(home, 'hordes'), work);
  const [server, { page, pageErrors }] = await Promise.all([serve(home, defer), openPage(browser(), defer)]);
  defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));
  return { page, url: server.url, work };
}

async function startRun(url: string, horde: string): Promise<string> {
  const res = await apiJson<{ runId: string }>(url, 'POST', `/api/hordes/${horde}/runs`, { input: {} });
  assert.equal(res.status, 201, JSON.stringify(res.json));
  return res.json.runId;
}

const runState = (page: Page, state: string) => testId(page, 'run-state', `[data-state="${state}"]`);
const top = async (l: Locator): Promise<number> => (await l.boundingBox())!.y;
const isOpen = (l: Locator): Promise<boolean> => l.evaluate((el) => el.hasAttribute('open'));

describe('the Run screen: results first', () => {
  test('a running run has no Resume and says its delivery is to come; finished, the outcome and the delivery come first and the other artifacts stay folded until opened', async (t) => {
    const { page, url, work } = await scene(t, (dir, work) => {
      writeHorde(path.join(dir, 'report'), 'id = "report"\npipeline = ["wait", "a", "b"]\nconfirm_commands = false\ndelivery_root_rel = "report.md"\ndelivery_title = "Report"', {
        wait: verifyStep(`while [ ! -e ${path.join(work, 'go')} ]; do sleep 0.05; done`, 'output = "wait.md"'),
        a: verifyStep('echo first-step-output', 'output = "a.md"'),
        b: verifyStep("printf '# The report\\n\\nAll good.\\n' > report.md", 'output = "b.md"'),
      });
    });
    const runId = await startRun(url, 'report');
    await page.goto(`${url}#/runs/${runId}`);
    await runState(page, 'running').waitFor();
    await testId(page, 'cancel-button').waitFor();
    assert.equal(await testId(page, 'resume-button').count(), 0, 'no Resume on a running run');
    assert.match(await textOf(testId(page, 'run-outcome')), /^Running: wait\.$/);
    assert.equal(await textOf(testId(page, 'no-delivery')), 'The delivery shows here once a step has written it.');
    await shot(page, 'results-01-running');

    fs.writeFileSync(path.join(work, 'go'), '');
    await runState(page, 'succeeded').waitFor();
    await testId(page, 'run-outcome', '[data-state="succeeded"]').waitFor();
    assert.equal(await textOf(testId(page, 'run-outcome')), 'Succeeded.');
    const delivery = testId(page, 'delivery');
    assert.equal(await textOf(delivery.locator('h2')), 'Report');
    const view = (await apiJson(url, 'GET', `/api/runs/${runId}`)).json;
    assert.equal(await textOf(testId(delivery, 'delivery-path')), path.join(view.workdir, 'report.md'));
    assert.equal(await textOf(testId(delivery, 'outputs-path')), view.workdir);
    const shown = testId(delivery, 'delivery-artifact');
    assert.equal(await isOpen(shown), true);
    assert.equal(await textOf(shown.locator('.markdown h1')), 'The report');

    // Outcome, then delivery, then the steps.
    const [o, d, s] = await Promise.all([top(testId(page, 'run-outcome')), top(delivery), top(testId(page, 'step-timeline'))]);
    assert.ok(o < d && d < s, `outcome ${o} < delivery ${d} < steps ${s}`);

    // Each step's artifact is folded and not fetched until it is opened.
    for (const step of ['wait', 'a', 'b']) assert.equal(await isOpen(testId(page, `artifact-${step}`)), false, step);
    assert.equal(await page.locator('[data-testid="artifact-a"] .markdown').count(), 0, 'a folded artifact is not loaded');
    assert.match(await textOf(testId(page, 'artifact-b').locator('summary')), /b\.md/);
    await shot(page, 'results-02-succeeded-delivery-first');
    await testId(page, 'artifact-a').locator('summary').click();
    assert.match(await textOf(testId(page, 'artifact-a').locator('.markdown')), /first-step-output/);
    await shot(testId(page, 'step-a'), 'results-03-artifact-unfolded');
  });

  test('a failed run shows its error once, on the step where it happened; the outcome points there', async (t) => {
    const { page, url } = await scene(t, (dir) => {
      writeHorde(path.join(dir, 'breaks'), 'id = "breaks"\npipeline = ["a", "b"]\nconfirm_commands = false\n\n[[edges]]\nfrom = "a"\nto = "b"\nwhen = "pass"', {
        a: verifyStep('echo broken-on-purpose; exit 3', 'output = "a.md"'),
        b: verifyStep('echo never'),
      });
    });
    const runId = await startRun(url, 'breaks');
    await page.goto(`${url}#/runs/${runId}`);
    await runState(page, 'failed').waitFor();
    assert.match(await textOf(testId(page, 'run-outcome')), /^Failed at step a; its error is shown there\.$/);
    const errors = testId(page, 'run-error');
    await errors.first().waitFor();
    assert.equal(await errors.count(), 1, 'the error is shown once');
    assert.equal(await testId(page, 'step-a').locator('[data-testid="run-error"]').count(), 1, 'on the step where it happened');
    assert.match(await textOf(errors), /The run failed here: KW_ERR_NO_ROUTE step "a" failed/);
    // No step passed: no delivery, and the failed step's own artifact stays on the step.
    assert.equal(await textOf(testId(page, 'no-delivery')), 'No delivery: no step passed with an artifact. The steps below keep what they wrote.');
    await testId(page, 'artifact-a').waitFor();
    await testId(page, 'failed-step-link').click();
    await page.locator('#step-a:focus').waitFor();
    await shot(page, 'results-04-failed-once');
  });

  test('Approve all: only once the operator has read them, each parked step is approved with its own hash; what parks next is asked alone', async (t) => {
    const { page, url, work } = await scene(t, (dir, work) => {
      const edges = '\n\n[[edges]]\nfrom = "one"\nto = "join"\n\n[[edges]]\nfrom = "two"\nto = "join"';
      writeHorde(path.join(dir, 'fork'), `id = "fork"\npipeline = ["one", "two", "join"]${edges}`, {
        one: verifyStep(`echo one > ${path.join(work, 'one.txt')}`),
        two: verifyStep(`echo two > ${path.join(work, 'two.txt')}`),
        join: verifyStep(`echo join > ${path.join(work, 'join.txt')}`),
      });
    });
    const runId = await startRun(url, 'fork');
    await page.goto(`${url}#/runs/${runId}`);
    const all = testId(page, 'approve-all');
    await all.waitFor();
    await testId(page, 'approval-panel', '[data-step="one"]').waitFor();
    await testId(page, 'approval-panel', '[data-step="two"]').waitFor();
    const shownHashes = await testId(page, 'approval-hash').allTextContents();
    assert.equal(shownHashes.length, 2);
    const button = testId(all, 'approve-all-button');
    assert.equal(await button.isDisabled(), true, 'not before the operator says they read them');
    assert.match(await textOf(all), /I have read the 2 commands below \(one, two\)/);
    await shot(page, 'results-05-approve-all');

    await testId(all, 'approve-all-read').check();
    await button.click();
    await testId(page, 'approval-panel', '[data-step="join"]').waitFor();
    await all.waitFor({ state: 'detached' });
    assert.equal(fs.readFileSync(path.join(work, 'one.txt'), 'utf8'), 'one\n');
    assert.equal(fs.readFileSync(path.join(work, 'two.txt'), 'utf8'), 'two\n');
    assert.equal(fs.existsSync(path.join(work, 'join.txt')), false, 'the next step still asks');
    const approvals = (await apiJson(url, 'GET', `/api/runs/${runId}`)).json.approvals;
    const granted = approvals.filter((a: any) => a.state === 'granted');
    assert.deepEqual(granted.map((a: any) => a.step).sort(), ['one', 'two']);
    assert.deepEqual(granted.map((a: any) => a.hash).sort(), [...shownHashes].sort(), 'each approved with the hash it was shown with');
    await shot(page, 'results-06-after-approve-all');
  });
});
