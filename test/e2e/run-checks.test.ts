/**
 * The Run form refuses a doomed run before it exists, in a real browser against a real
 * `kowalski serve`: project-check with a folder that is not there shows the server's
 * refusal under the field and starts nothing; a horde whose model step has no model
 * configured warns on its form, with a link to Setup that opens Setup.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { apiJson, browserForFile, cleanups, openPage, serve, shot, testId, textOf } from '../support/browser.js';
import { writeHorde } from '../support/engine.js';
import { tempDir } from '../../testkit/tmp.js';

const browser = browserForFile();

describe('the Run form checks before a run exists', () => {
  test('a missing project folder is refused under its field; a model step without a model warns, linking to Setup', async (t) => {
    const defer = cleanups(t);
    const root = fs.realpathSync(tempDir(t, 'kw-e2e-checks-'));
    const home = path.join(root, 'home');
    fs.mkdirSync(home, { mode: 0o700 });
    writeHorde(path.join(home, 'hordes', 'asker'), 'id = "asker"\ndisplay_name = "Asker"\npipeline = ["think"]', { think: 'kind = "process"' });
    const [server, { page, pageErrors }] = await Promise.all([serve(home, defer), openPage(browser(), defer)]);
    defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));
    const missing = path.join(root, 'my-app');

    await page.goto(`${server.url}#/hordes/project-check`);
    await testId(page, 'run-button').click();
    assert.match(await textOf(page.locator('#input-project-hint')), /^A folder \(used where it is\) path on the machine where kowalski runs/);
    await testId(page, 'input-project').fill(missing);
    await testId(page, 'submit-run').click();
    const error = page.locator('#input-project-error');
    await error.waitFor();
    assert.ok((await textOf(error)).includes(`${missing} does not exist (a folder is wanted)`), await textOf(error));
    assert.equal(await testId(page, 'input-project').getAttribute('aria-invalid'), 'true');
    assert.match(page.url(), /#\/hordes\/project-check$/, 'still on the horde');
    assert.equal(await testId(page, 'model-warning').count(), 0, 'project-check needs no model');
    await shot(page, 'run-checks-missing-folder');
    assert.deepEqual((await apiJson(server.url, 'GET', '/api/runs')).json.runs, [], 'no run was created');

    await page.goto(`${server.url}#/hordes/asker`);
    await testId(page, 'run-button').click();
    const warning = testId(page, 'model-warning');
    await warning.waitFor();
    assert.match(await textOf(warning), /step `think` of asker needs a model, and none is configured: choose one in the app's Setup screen/);
    await shot(page, 'run-checks-model-warning');
    await testId(page, 'model-warning-setup').click();
    await page.waitForURL(/#\/setup$/);
    assert.deepEqual((await apiJson(server.url, 'GET', '/api/runs')).json.runs, []);
  });
});
