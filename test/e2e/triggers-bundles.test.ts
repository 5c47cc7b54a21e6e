/**
 * Trigger switches and bundle import in the operator app, in a real browser (Debian's
 * chromium through playwright-core) against a real API (`buildApi`) over a real engine
 * with its triggers started, as `kowalski serve` runs them. A cron trigger's switch shows
 * what the server keeps, flips by keyboard and stays flipped across a reload, with the next
 * firing shown only while it is on; a failed switch flips back and says why. A horde
 * exported from its page is imported on the Import page: the review shows its command and
 * its triggers (off), nothing is saved before Install, a new id is checked, and the
 * installed horde opens tagged imported with its trigger off. A hostile zip is refused with
 * the server's message; Cancel drops the staged bundle; Replace needs its checkbox.
 * Waits are bounded waits on page state, never sleeps. Screenshots go to test/output/screens/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { unzipSync, zipSync } from 'fflate';
import type { Locator, Page } from 'playwright-core';
import { buildApi } from '../../api/index.js';
import type { Api } from '../../api/index.js';
import { DEFAULT_CONFIG, IMPORT_MARKER, createEngine } from '../../engine/index.js';
import { listen } from '../support/api.js';
import { apiJson, browserForFile, cleanups, holdWorkEnd, openPage, shot, testId, textOf } from '../support/browser.js';
import { writeHorde } from '../support/engine.js';
import { tempDir } from '../../testkit/tmp.js';
import { AUTH, TEST_TOKEN } from '../support/token.js';
import { testOwnCode } from '../../testkit/dist.js';

const browser = browserForFile();

interface Scene {
  page: Page;
  api: Api;
  /** `http://127.0.0.1:<port>/`. */
  url: string;
  /** The data directory. */
  home: string;
  /** A folder beside it for files the test writes. */
  root: string;
}

/** A data directory holding the hordes `prepare` writes, an engine with its triggers started, an API listening on it, and a page. */
async function scene(t: TestContext, prepare: (hordes: string) => void): Promise<Scene> {
  const defer = cleanups(t); // the test's one newest-first stack, tempDir's too: what is made in the folder goes before it
  const root = fs.realpathSync(tempDir(t, 'kw-e2e-tb-'));
  const home = path.join(root, 'home');
  prepare(path.join(home, 'hordes'));
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home, config: DEFAULT_CONFIG });
  defer(() => engine.close());
  await engine.triggers.start();
  const api = await buildApi(engine, { token: TEST_TOKEN, port: 0, onInternalError: (err) => t.diagnostic(`internal: ${String(err)}`) });
  defer(() => api.app.close());
  const { base } = await listen(api);
  const { page, pageErrors } = await openPage(browser(), defer);
  defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));
  return { page, api, url: `${base}/`, home, root };
}

/** A user horde of one verify step, with an enabled cron trigger and a switched-off webhook. */
function writeNightly(hordes: string, id = 'nightly-report', command = 'make check'): void {
  writeHorde(path.join(hordes, id), [
    `id = "${id}"`, 'display_name = "Nightly report"', 'description = "Checks the project every morning."', 'pipeline = ["check"]',
    '[[triggers]]', 'name = "nightly"', 'kind = "cron"', 'schedule = "0 6 * * *"', 'enabled = true',
    '[[triggers]]', 'name = "from-ci"', 'kind = "webhook"', 'enabled = false',
  ].join('\n'), { check: `kind = "verify"\nverify_command = ${JSON.stringify(command)}` });
}

interface TriggerState { hordeId: string; name: string; enabled: boolean; nextFireAt: number | null }

async function serverTrigger(url: string, hordeId: string, name: string): Promise<TriggerState> {
  const res = await apiJson<{ triggers: TriggerState[] }>(url, 'GET', '/api/triggers');
  assert.equal(res.status, 200, JSON.stringify(res.json));
  const found = res.json.triggers.find((v) => v.hordeId === hordeId && v.name === name);
  assert.ok(found !== undefined, `no trigger ${hordeId}/${name} in ${JSON.stringify(res.json)}`);
  return found;
}

/** The row (or list item) of one trigger. */
const triggerRow = (scope: Page | Locator, hordeId: string, name: string) => testId(scope, 'trigger', `[data-trigger="${hordeId}/${name}"]`);
/** Its switch, once settled (no change on its way) in the given state. */
const settled = (row: Locator, on: boolean) => row.locator(`[role="switch"][aria-checked="${on}"][aria-busy="false"]`);

function hordeDirs(home: string): string[] {
  return fs.readdirSync(path.join(home, 'hordes')).sort();
}

/** The horde's bundle as the API exports it. */
async function exported(url: string, id: string): Promise<Buffer> {
  const res = await fetch(new URL(`/api/hordes/${id}/bundle`, url), { headers: AUTH });
  assert.equal(res.status, 200, await res.clone().text());
  return Buffer.from(await res.arrayBuffer());
}

describe('trigger switches and bundle import in a browser', () => {
  test('a cron trigger\'s switch shows the server\'s state, flips by keyboard and stays flipped; the next firing shows only while it is on', async (t) => {
    const { page, api, url } = await scene(t, (hordes) => writeNightly(hordes));
    const server = await serverTrigger(url, 'nightly-report', 'nightly');
    assert.equal(server.enabled, true, 'a user horde keeps horde.md\'s enabled = true');
    assert.equal(typeof server.nextFireAt, 'number');

    await page.goto(url);
    const card = testId(page, 'horde-card-nightly-report');
    const nightly = triggerRow(card, 'nightly-report', 'nightly');
    const toggle = nightly.getByRole('switch', { name: 'Trigger nightly' });
    await settled(nightly, true).waitFor();
    const next = testId(nightly, 'trigger-next');
    assert.match(await textOf(next), /^in (\d+ (min|h)|less than a minute)$/);
    assert.equal(await next.getAttribute('datetime'), new Date(server.nextFireAt!).toISOString());
    assert.match(await next.getAttribute('title') ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/, 'the local time in a title');
    assert.equal(await testId(nightly, 'trigger-off-note').count(), 0);
    assert.match(await textOf(nightly), /0 6 \* \* \*/);

    // The webhook arrived off: no next firing, and it says so.
    const hook = triggerRow(card, 'nightly-report', 'from-ci');
    await settled(hook, false).waitFor();
    assert.equal(await textOf(testId(hook, 'trigger-next')), '—');
    assert.equal(await textOf(testId(hook, 'trigger-off-note')), 'Switched off — nothing runs until you turn it on.');
    assert.match(await textOf(hook), /POST \/hooks\/nightly-report\/from-ci/);
    await shot(page, 'triggers-01-hordes');

    // Space switches it off; the server keeps it off; the focus stays on the switch.
    await toggle.focus();
    await page.keyboard.press('Space');
    await settled(nightly, false).waitFor();
    assert.deepEqual(await serverTrigger(url, 'nightly-report', 'nightly').then((v) => [v.enabled, v.nextFireAt]), [false, null]);
    assert.equal(await textOf(next), '—');
    assert.match(await textOf(testId(nightly, 'trigger-off-note')), /nothing runs until you turn it on/);
    assert.equal(await page.evaluate('document.activeElement && document.activeElement.getAttribute("role")'), 'switch');

    // A reload shows what the server kept.
    await page.reload();
    await settled(nightly, false).waitFor();
    assert.equal(await textOf(next), '—');

    // Enter switches it on again, persisted, with its next firing back.
    await toggle.focus();
    await page.keyboard.press('Enter');
    await settled(nightly, true).waitFor();
    const on = await serverTrigger(url, 'nightly-report', 'nightly');
    assert.equal(on.enabled, true);
    assert.equal(await next.getAttribute('datetime'), new Date(on.nextFireAt!).toISOString());

    // The horde's page has the same switches, in its triggers table.
    await page.goto(`${url}#/hordes/nightly-report`);
    const table = testId(page, 'triggers-table');
    await settled(triggerRow(table, 'nightly-report', 'nightly'), true).waitFor();
    await settled(triggerRow(table, 'nightly-report', 'from-ci'), false).waitFor();
    assert.match(await textOf(testId(triggerRow(table, 'nightly-report', 'nightly'), 'trigger-next')), /^in /);
    await shot(page, 'triggers-02-horde');

    // With the server gone, a flip goes back and says why.
    await api.app.close();
    const row = triggerRow(table, 'nightly-report', 'nightly');
    await row.getByRole('switch', { name: 'Trigger nightly' }).focus();
    await page.keyboard.press('Space');
    assert.match(await textOf(testId(row, 'trigger-switch-error')), /Could not switch it off: KW_ERR_NETWORK/);
    await settled(row, true).waitFor();
    await shot(page, 'triggers-03-switch-failed');
  });

  test('a horde exported from its page imports on the Import page: review, nothing saved before Install, a new id, then its page tagged imported with its trigger off', async (t) => {
    const { page, url, home, root } = await scene(t, (hordes) => writeNightly(hordes, 'nightly-report', 'make check && echo done'));

    // The upload's answer and the frame that ends its check wait for a look at the bar.
    const held = await holdWorkEnd(page, 'bundle-import', /\/api\/bundles$/);
    // Export from the horde's page: the download is the API's bundle, byte for byte.
    await page.goto(`${url}#/hordes/nightly-report`);
    const [download] = await Promise.all([page.waitForEvent('download'), testId(page, 'export-bundle').click()]);
    assert.equal(download.suggestedFilename(), 'nightly-report.kwf.zip');
    const file = path.join(root, 'nightly-report.kwf.zip');
    await download.saveAs(file);
    assert.deepEqual(fs.readFileSync(file), await exported(url, 'nightly-report'));

    const before = hordeDirs(home);
    const installs: string[] = [];
    page.on('request', (r) => { if (r.url().includes('/install')) installs.push(r.url()); });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Import', exact: true }).click();
    await page.waitForURL(/#\/import$/);
    await testId(page, 'bundle-file').setInputFiles(file);
    await held.progressed;
    const bar = testId(page, 'work-progress-bundle-import', ':not([data-phase="start"])');
    await bar.waitFor();
    assert.equal(await bar.getAttribute('role'), 'status');
    assert.match(await textOf(bar), /^(Unpacking the bundle|Staging its files|Checking the horde): \d+( of \d+)?$/);
    await shot(page, 'import-00-progress');
    held.release();

    const review = testId(page, 'bundle-review');
    await review.waitFor();
    await testId(page, 'work-progress-bundle-import').waitFor({ state: 'detached' });
    assert.equal(await textOf(testId(review, 'bundle-horde-id')), 'nightly-report');
    assert.deepEqual(await testId(review, 'bundle-commands').locator('pre').allTextContents(), ['make check && echo done']);
    const triggers = await textOf(testId(review, 'bundle-triggers'));
    assert.match(triggers, /nightly cron 0 6 \* \* \* — arrives switched off/);
    assert.match(triggers, /from-ci webhook — arrives switched off/);
    assert.match(await textOf(testId(review, 'bundle-steps')), /check\s*verify/);
    assert.match(await textOf(testId(review, 'install-choice')), /nightly-report.*already taken by your own horde/);
    assert.equal(await testId(review, 'install-mode-new').isChecked(), true);
    assert.deepEqual(hordeDirs(home), before, 'nothing is saved before Install');
    await shot(page, 'import-01-review');

    // A bad id is named before anything is sent.
    await testId(review, 'install-id').fill('Bad Id');
    await testId(review, 'install-bundle').click();
    assert.match(await textOf(testId(review, 'install-id-error')), /lower-case letters, digits/);
    assert.equal(await testId(review, 'install-id').getAttribute('aria-invalid'), 'true');
    assert.deepEqual(installs, []);

    await testId(review, 'install-id').fill('nightly-copy');
    await testId(review, 'install-bundle').click();
    await page.waitForURL(/#\/hordes\/nightly-copy$/);
    assert.equal(await textOf(testId(page, 'horde-origin')), 'imported');
    await testId(page, 'imported-note').waitFor();
    const row = triggerRow(testId(page, 'triggers-table'), 'nightly-copy', 'nightly');
    await settled(row, false).waitFor();
    assert.match(await textOf(testId(row, 'trigger-off-note')), /nothing runs until you turn it on.*imported hordes arrive switched off/);
    assert.equal(await textOf(testId(row, 'trigger-next')), '—');
    assert.equal((await serverTrigger(url, 'nightly-copy', 'nightly')).enabled, false, 'an imported horde\'s triggers arrive off');
    assert.ok(fs.existsSync(path.join(home, 'hordes', 'nightly-copy', IMPORT_MARKER)));
    assert.deepEqual(hordeDirs(home), [...before, 'nightly-copy'].sort());
    await shot(page, 'import-02-installed');

    // The Hordes screen tags it too.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Hordes', exact: true }).click();
    assert.equal(await textOf(testId(testId(page, 'horde-card-nightly-copy'), 'horde-origin')), 'imported');
  });

  test('a zip with an entry outside the horde is refused with the server\'s message and installs nothing; Cancel drops a review; Replace needs its checkbox', async (t) => {
    const { page, url, home, root } = await scene(t, (hordes) => writeNightly(hordes));
    const good = await exported(url, 'nightly-report');
    const goodFile = path.join(root, 'good.kwf.zip');
    fs.writeFileSync(goodFile, good);
    const hostileFile = path.join(root, 'hostile.kwf.zip');
    fs.writeFileSync(hostileFile, zipSync({ ...unzipSync(good), '../evil.md': new TextEncoder().encode('# escaped\n') }));
    const before = hordeDirs(home);
    const hordesBefore = (await apiJson(url, 'GET', '/api/hordes')).json.hordes.map((h: { id: string }) => h.id);

    await page.goto(`${url}#/import`);
    await testId(page, 'bundle-file').setInputFiles(hostileFile);
    const refused = await textOf(testId(page, 'bundle-refused'));
    assert.match(refused, /hostile\.kwf\.zip was refused; nothing was installed/);
    assert.match(refused, /KW_ERR_BUNDLE_INVALID/);
    assert.ok(refused.includes('../evil.md'), `the message names the entry: ${refused}`);
    assert.equal(await testId(page, 'bundle-review').count(), 0);
    assert.deepEqual(hordeDirs(home), before);
    assert.equal(fs.existsSync(path.join(root, 'evil.md')) || fs.existsSync(path.join(home, 'evil.md')), false);
    assert.deepEqual((await apiJson(url, 'GET', '/api/hordes')).json.hordes.map((h: { id: string }) => h.id), hordesBefore);
    await shot(page, 'import-03-refused');

    // Cancel: the staged bundle is dropped on the server, and nothing is installed.
    await testId(page, 'bundle-file').setInputFiles(goodFile);
    await testId(page, 'bundle-review').waitFor();
    const reviewId = await testId(page, 'bundle-review').getAttribute('data-review-id');
    assert.ok(reviewId !== null && reviewId !== '');
    const [dropped] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'DELETE'),
      testId(page, 'cancel-bundle').click(),
    ]);
    assert.equal(dropped.status(), 204);
    assert.match(await textOf(testId(page, 'import-note')), /nothing was installed/);
    const late = await apiJson(url, 'POST', `/api/bundles/${reviewId}/install`, { id: 'late-one' });
    assert.equal(late.status, 404, JSON.stringify(late.json));
    assert.deepEqual(hordeDirs(home), before);

    // Replace: refused until the box is ticked, then the horde is the imported one.
    await testId(page, 'bundle-file').setInputFiles(goodFile);
    const review = testId(page, 'bundle-review');
    await testId(review, 'install-mode-replace').check();
    await testId(review, 'install-bundle').click();
    assert.equal(await testId(review, 'install-confirm-replace').getAttribute('aria-invalid'), 'true');
    assert.equal(fs.existsSync(path.join(home, 'hordes', 'nightly-report', IMPORT_MARKER)), false);
    await testId(review, 'install-confirm-replace').check();
    await testId(review, 'install-bundle').click();
    await page.waitForURL(/#\/hordes\/nightly-report$/);
    assert.equal(await textOf(testId(page, 'horde-origin')), 'imported');
    assert.equal((await serverTrigger(url, 'nightly-report', 'nightly')).enabled, false, 'replaced by an import, its trigger is off');
    assert.deepEqual(hordeDirs(home), before);
  });
});
