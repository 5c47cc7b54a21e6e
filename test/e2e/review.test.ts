/**
 * The Run screen's Review panel: a run parked at a review step shows the artifact (not a
 * command), Approve sends the hash of what it showed, Edit → "Save edit and approve" replaces
 * the file and the next step reads the edit, and a stale answer is shown with a Reload.
 * Real `kowalski serve`, real chromium.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import { apiJson, browserForFile, cleanups, openPage, serve, shot, testId, textOf } from '../support/browser.js';
import { writeHorde } from '../../testkit/cli.js';
import { tempDir } from '../../testkit/tmp.js';

const browser = browserForFile();

/** `make` writes its report (report.md); `check` reviews it; `use` copies what it then finds to seen.md. */
const STEPS = {
  make: 'kind = "verify"\nverify_command = "echo made"\noutput = "report.md"',
  check: 'kind = "review"',
  use: 'kind = "verify"\nverify_command = "cp {{workdir}}/report.md {{workdir}}/seen.md"',
};

interface Scene { page: Page; url: string; runId: string; workdir: string }

/** A server with the reviewed horde, a run parked at its review, and the page on that run. */
async function parkedScene(t: TestContext): Promise<Scene> {
  const defer = cleanups(t);
  const root = fs.realpathSync(tempDir(t, 'kw-e2e-review-'));
  const home = path.join(root, 'home');
  fs.mkdirSync(home, { mode: 0o700 });
  writeHorde(path.join(home, 'hordes', 'reviewed'), 'id = "reviewed"\nconfirm_commands = false\npipeline = ["make", "check", "use"]', STEPS);
  const [server, { page, pageErrors }] = await Promise.all([serve(home, defer), openPage(browser(), defer)]);
  defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));
  const started = await apiJson<{ runId: string }>(server.url, 'POST', '/api/hordes/reviewed/runs', { input: {} });
  assert.equal(started.status, 201, JSON.stringify(started.json));
  const runId = started.json.runId;
  await page.goto(`${server.url}#/runs/${runId}`);
  await testId(page, 'review-panel', '[data-step="check"]').waitFor();
  const workdir = (await apiJson(server.url, 'GET', `/api/runs/${runId}`)).json.workdir as string;
  return { page, url: server.url, runId, workdir };
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const runState = (page: Page, state: string) => testId(page, 'run-state', `[data-state="${state}"]`);

describe('the Review panel', () => {
  test('a review shows the artifact, not a command; Edit → Save edit and approve replaces it, and the next step reads the edit', async (t) => {
    const { page, url, runId, workdir } = await parkedScene(t);
    const panel = testId(page, 'review-panel');
    const original = fs.readFileSync(path.join(workdir, 'report.md'), 'utf8');
    assert.match(original, /^# Verify: make/m);
    assert.equal(await textOf(testId(panel, 'review-content')), original);
    assert.equal(await textOf(testId(panel, 'review-path')), 'report.md');
    assert.equal(await textOf(testId(panel, 'review-hash')), sha256(original));
    assert.equal(await testId(page, 'approval-command').count(), 0, 'no placeholder command for a review');
    await shot(page, 'review-01-parked');

    await testId(panel, 'review-edit').click();
    const area = testId(panel, 'review-textarea');
    assert.equal(await area.inputValue(), original, 'the edit starts from the text shown');
    const edited = `${original}\nChecked by hand in the app.\n`;
    await area.fill(edited);
    await shot(panel, 'review-02-editing');
    await testId(panel, 'review-save').click();

    await runState(page, 'succeeded').waitFor();
    assert.equal(await testId(page, 'review-panel').count(), 0);
    assert.equal(fs.readFileSync(path.join(workdir, 'report.md'), 'utf8'), edited);
    assert.equal(fs.readFileSync(path.join(workdir, 'seen.md'), 'utf8'), edited, 'the step after the review read the edited file');
    const view = (await apiJson(url, 'GET', `/api/runs/${runId}`)).json;
    const events = (await apiJson(url, 'GET', `/api/runs/${runId}/events`)).json.events.map((s: any) => s.event);
    const i = events.findIndex((e: any) => e.type === 'artifact.edited');
    assert.deepEqual([events[i].path, events[i].before, events[i].after], ['report.md', sha256(original), sha256(edited)], 'edited from the hash shown');
    assert.match(events[i].diff, /^\+Checked by hand in the app\.$/m);
    assert.deepEqual([events[i + 1].type, events[i + 1].hash], ['approval.granted', sha256(edited)], 'the approval is of the edited text');
    assert.equal(view.steps.find((s: any) => s.name === 'check').summary, 'approved with the operator\'s edit');
    await shot(page, 'review-03-after-edit');
  });

  test('Approve sends the hash of the text it showed; the run goes on with the file as it was', async (t) => {
    const { page, url, runId, workdir } = await parkedScene(t);
    const shownHash = await textOf(testId(page, 'review-hash'));
    const original = fs.readFileSync(path.join(workdir, 'report.md'), 'utf8');
    await testId(page, 'review-approve').click();
    await runState(page, 'succeeded').waitFor();
    const view = (await apiJson(url, 'GET', `/api/runs/${runId}`)).json;
    assert.deepEqual(view.approvals.filter((a: any) => a.state === 'granted').map((a: any) => a.hash), [shownHash]);
    assert.equal(shownHash, sha256(original));
    assert.equal(fs.readFileSync(path.join(workdir, 'seen.md'), 'utf8'), original);
    assert.equal(view.steps.find((s: any) => s.name === 'check').summary, 'approved as shown');
  });

  test('an edit of a file that changed behind the operator is refused (KW_ERR_REVIEW_STALE) with a Reload; then Deny with a reason fails the run', async (t) => {
    const { page, url, runId, workdir } = await parkedScene(t);
    const panel = testId(page, 'review-panel');
    await testId(panel, 'review-edit').click();
    await testId(panel, 'review-textarea').fill('my edit\n');
    fs.appendFileSync(path.join(workdir, 'report.md'), 'changed behind the operator\'s back\n');
    await testId(panel, 'review-save').click();

    const error = testId(panel, 'review-error');
    assert.match(await textOf(error), /The artifact is not the one you read: nothing was approved.*KW_ERR_REVIEW_STALE.*report\.md changed on disk/s);
    assert.equal(await testId(panel, 'review-textarea').inputValue(), 'my edit\n', 'the edit is kept on screen until Reload');
    await shot(panel, 'review-04-stale');
    assert.equal((await apiJson(url, 'GET', `/api/runs/${runId}`)).json.run.state, 'awaiting_input', 'still parked');

    await testId(panel, 'review-reload').click();
    assert.match(await textOf(testId(panel, 'review-content')), /changed behind the operator's back/);
    assert.match(await textOf(testId(panel, 'review-changed')), /report\.md changed on disk since the run parked on it/);
    assert.equal(await testId(panel, 'review-error').count(), 0);
    await shot(panel, 'review-05-reloaded-changed');

    await testId(panel, 'deny-button').click();
    await page.getByText('Write why you deny it').waitFor();
    await testId(panel, 'deny-reason').fill('the file changed under me');
    await testId(panel, 'deny-button').click();
    await runState(page, 'failed').waitFor();
    const row = (await apiJson(url, 'GET', `/api/runs/${runId}`)).json.run;
    assert.equal(row.errorCode, 'KW_ERR_APPROVAL_DENIED');
    assert.match(row.error, /the file changed under me/);
    assert.equal(fs.existsSync(path.join(workdir, 'seen.md')), false, 'nothing after the review ran');
  });
});
