/**
 * The Adapters screen in a real browser against a real `kowalski serve`: a running webhook
 * adapter and one whose secret's variable is not set (error, with the key named, while the
 * server serves); the switch turns the running one off and on again (the server stops and
 * starts it). No secret appears on the page. Switched through the API, the screen follows
 * within 2 s, told by the websocket, never polling. Waits are bounded waits on page state.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { apiJson, browserForFile, cleanups, expectLive, liveReads, openPage, serve, shot, testId, textOf } from '../support/browser.js';
import { tempDir } from '../../testkit/tmp.js';

const browser = browserForFile();
const SECRET = 'e2e-adapter-secret-0123456789';

describe('the Adapters screen', () => {
  test('shows each adapter\'s state and error, and switches one off and on', async (t) => {
    const defer = cleanups(t);
    const home = path.join(fs.realpathSync(tempDir(t, 'kw-e2e-adapters-')), 'home');
    fs.mkdirSync(home, { recursive: true });
    fs.writeFileSync(path.join(home, 'config.toml'), `[adapters.hook]\ntype = "webhook"\nenabled = true\nsecret = "${SECRET}"\n`
      + '[adapters.broken]\ntype = "webhook"\nenabled = true\nsecret_env = "KW_E2E_NEVER_SET"\n');
    const [server, { page, pageErrors }] = await Promise.all([serve(home, defer), openPage(browser(), defer)]);
    defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));
    const live = liveReads(page, '/api/adapters', 'adapters');
    await page.clock.install();

    await page.goto(server.url);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Adapters', exact: true }).click();
    await page.waitForURL(/#\/adapters$/);
    await testId(page, 'adapter-state-hook').getByText('running').waitFor();
    assert.match(await textOf(testId(page, 'adapter-row-hook')), /hook.*webhook.*assistant.*running.*never.*0/s);
    await testId(page, 'adapter-state-broken').getByText('error').waitFor();
    assert.match(await textOf(testId(page, 'adapter-error-broken')), /\[adapters\.broken\] secret_env: names \$KW_E2E_NEVER_SET, which is not set/);
    assert.ok(!(await page.content()).includes(SECRET), 'no secret on the page');
    await shot(page, 'adapters-01-states');

    const toggle = testId(page, 'adapter-toggle-hook');
    assert.equal(await toggle.getAttribute('aria-checked'), 'true');
    await toggle.click();
    await testId(page, 'adapter-state-hook').getByText('stopped').waitFor();
    assert.equal(await toggle.getAttribute('aria-checked'), 'false');
    await shot(page, 'adapters-02-off');
    await toggle.click();
    await testId(page, 'adapter-state-hook').getByText('running').waitFor();
    assert.equal(await toggle.getAttribute('aria-checked'), 'true');

    // Switched off through the API (as the CLI does): the screen follows, told by the websocket.
    await expectLive(page, live, () => apiJson(server.url, 'POST', '/api/adapters/hook/disable'), testId(page, 'adapter-state-hook').getByText('stopped'));
    assert.equal(await toggle.getAttribute('aria-checked'), 'false');
  });
});
