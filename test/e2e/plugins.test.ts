/**
 * The Plugins screen in a real browser against a real `kowalski serve`: the example plugin
 * (pending, its permission in plain words, its tools) beside a folder whose manifest is bad
 * (invalid, with the failure's phase, file and line, and no Grant); Grant asks first, listing
 * what the plugin will be allowed, then it is granted for the version and permissions shown
 * (the API agrees) with its audit; Revoke sends it back to pending; Rescan finds a plugin
 * added while the server runs; the screen says how the server confines plugins, as its API
 * does; granted through the API, the screen follows within 2 s, told by the websocket, never
 * polling. Waits are bounded waits on page state.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { apiJson, browserForFile, cleanups, expectLive, holdWorkEnd, liveReads, openPage, serve, shot, testId, textOf } from '../support/browser.js';
import { editManifest, installExample } from '../support/plugin-home.js';
import { tempDir } from '../../testkit/tmp.js';

const browser = browserForFile();

/** A manifest with two mistakes: a name with capitals and a space, and no version. */
const BAD_MANIFEST = `manifest_version = 1
name = "Not Valid"
description = "A plugin whose manifest is wrong"
author = "e2e"
license = "MIT"
kowalski = ">=0.1.0"
`;

describe('the Plugins screen', () => {
  test('lists a pending and an invalid plugin, grants after a confirmation, revokes, rescans', async (t) => {
    const defer = cleanups(t);
    const base = fs.realpathSync(tempDir(t, 'kw-e2e-plugins-'));
    const home = path.join(base, 'home');
    const docs = path.join(base, 'docs');
    fs.mkdirSync(docs, { recursive: true });
    installExample(home, docs);
    fs.mkdirSync(path.join(home, 'plugins', 'local', 'broken'), { recursive: true });
    fs.writeFileSync(path.join(home, 'plugins', 'local', 'broken', 'kowalski-plugin.toml'), BAD_MANIFEST);
    const [server, { page, pageErrors }] = await Promise.all([serve(home, defer), openPage(browser(), defer)]);
    defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));
    const live = liveReads(page, '/api/plugins', 'plugins');
    await page.clock.install();
    const apiState = async (name: string): Promise<string | undefined> =>
      (await apiJson<{ plugins: { name: string; state: string }[] }>(server.url, 'GET', '/api/plugins')).json.plugins.find((p) => p.name === name)?.state;

    // The rescan's answer and the frame that ends it wait for a look at the bar.
    const held = await holdWorkEnd(page, 'plugins-rescan', /\/api\/plugins\/rescan$/);
    await page.goto(server.url);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Plugins', exact: true }).click();
    await page.waitForURL(/#\/plugins$/);
    await testId(page, 'plugin-state-hello').getByText('pending').waitFor();
    assert.match(await textOf(testId(page, 'plugin-card-hello')), /hello\s*1\.0\.0.*folder.*Greets people/s);
    assert.equal(await textOf(testId(page, 'plugin-permissions-hello')), `read files in ${docs}`);
    assert.match(await textOf(testId(page, 'plugin-tools-hello')), /hello__greet.*hello__word_count/s);
    await testId(page, 'plugin-state-broken').getByText('invalid').waitFor();
    const failure = await textOf(testId(page, 'plugin-failure-broken').first());
    assert.match(failure, /^validate /);
    assert.match(failure, /kowalski-plugin\.toml:\d+: name: /);
    assert.equal(await testId(page, 'plugin-grant-broken').count(), 0, 'an invalid plugin cannot be granted');
    // How the server confines plugins, as its API says: a plain line under bubblewrap, a warning with the fix without it.
    const { confinement } = (await apiJson<{ confinement: { kind: string; detail: string } }>(server.url, 'GET', '/api/plugins')).json;
    const note = testId(page, 'plugins-confinement', `[data-kind="${confinement.kind}"]`);
    const said = await textOf(note);
    assert.ok(said.includes(confinement.detail), said);
    if (confinement.kind === 'node') assert.match(said, /confined by Node's permission model only: they can open sockets .* send signals .*apt-get install bubblewrap/s);
    else assert.match(said, /^Each plugin runs in bubblewrap \(.*\): its own network and PID namespaces/);
    await shot(page, 'plugins-01-pending');

    await testId(page, 'plugin-grant-hello').click();
    const confirm = testId(page, 'plugin-grant-confirm-hello');
    const asked = await textOf(confirm);
    assert.match(asked, /Grant hello 1\.0\.0\? It will be allowed to:/);
    assert.ok(asked.includes(`read files in ${docs}`), asked);
    assert.match(asked, /Its 2 tools will be offered to your agents/);
    assert.equal(await apiState('hello'), 'pending', 'nothing is granted before the confirmation');
    const shownHash = (await apiJson(server.url, 'GET', '/api/plugins/hello')).json.plugin.permissionsHash as string;
    const [grantRequest] = await Promise.all([
      page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/plugins/hello/grant')),
      testId(page, 'plugin-grant-yes-hello').click(),
    ]);
    assert.deepEqual(grantRequest.postDataJSON(), { version: '1.0.0', permissionsHash: shownHash }, 'the grant binds to what was shown');
    await testId(page, 'plugin-state-hello').getByText('granted').waitFor();
    assert.equal(await apiState('hello'), 'granted');
    assert.match(await textOf(testId(page, 'plugin-granted-hello')), /Granted by operator \(api\) on \d{4}-\d\d-\d\d/);
    await testId(page, 'plugin-history-hello').click();
    await testId(page, 'plugin-audit-hello').getByText('granted 1.0.0').waitFor();
    assert.match(await textOf(testId(page, 'plugin-audit-hello')), /operator \(api\)\s*granted 1\.0\.0, permissions [0-9a-f]{12}/);
    await shot(page, 'plugins-02-granted');

    await testId(page, 'plugin-revoke-hello').click();
    await testId(page, 'plugin-state-hello').getByText('pending').waitFor();
    assert.equal(await apiState('hello'), 'pending');
    await testId(page, 'plugin-audit-hello').getByText('revoked 1.0.0').waitFor();

    const later = installExample(home, docs, 'later');
    editManifest(later, 'name = "hello"', 'name = "later"');
    await testId(page, 'plugins-rescan').click();
    await held.progressed;
    const bar = testId(page, 'work-progress-plugins-rescan', ':not([data-phase="start"])');
    await bar.waitFor();
    assert.match(await textOf(bar), /^Checking plugin (packages|folders): \d+( of \d+)?$/);
    await shot(page, 'plugins-03-rescan-progress');
    held.release();
    await testId(page, 'plugins-rescan-note').getByText('Found 3 plugins.').waitFor();
    await testId(page, 'work-progress-plugins-rescan').waitFor({ state: 'detached' });
    await testId(page, 'plugin-state-later').getByText('pending').waitFor();

    // Granted through the API (as kowalski plugins grant does): the screen follows, told by the websocket.
    const shown = (await apiJson(server.url, 'GET', '/api/plugins/later')).json.plugin as { version: string; permissionsHash: string };
    const grant = { version: shown.version, permissionsHash: shown.permissionsHash };
    await expectLive(page, live, () => apiJson(server.url, 'POST', '/api/plugins/later/grant', grant), testId(page, 'plugin-state-later').getByText('granted'));
  });
});
