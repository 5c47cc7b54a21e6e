/**
 * The Agents screen in a real browser (Debian's chromium through playwright-core) against a
 * real `kowalski serve`: the list of profiles; the editor checks each change on the server,
 * shows a problem with its line and keeps Save off while there is one; a valid profile
 * saves to `<data>/team/` and the list shows it; an override is reset to the built-in. A
 * profile saved through the API shows in the list within 2 s, told by the websocket, never
 * polling. Waits are bounded waits on page state, never sleeps.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { apiJson, browserForFile, cleanups, expectLive, liveReads, openPage, serve, shot, testId, textOf } from '../support/browser.js';
import { tempDir } from '../../testkit/tmp.js';

const browser = browserForFile();

describe('the Agents screen', () => {
  test('an invalid edit shows its problem and keeps Save off; a valid one saves, the list shows it; an override resets to the built-in', async (t) => {
    const defer = cleanups(t);
    const home = path.join(fs.realpathSync(tempDir(t, 'kw-e2e-agents-')), 'home');
    const [server, { page, pageErrors }] = await Promise.all([serve(home, defer), openPage(browser(), defer)]);
    defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));
    const live = liveReads(page, '/api/agents', 'agents');
    await page.clock.install();

    await page.goto(server.url);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents', exact: true }).click();
    await page.waitForURL(/#\/agents$/);
    assert.match(await textOf(testId(page, 'agent-row-researcher')), /researcher.*Finds and checks facts.*web_search.*web_fetch.*built-in/s);
    assert.match(await textOf(testId(page, 'agent-row-assistant')), /all tools/);
    await shot(page, 'agents-01-list');

    // Saved through the API (or the file edited): the list follows, told by the websocket.
    const watcher = '---\nname = "watcher"\ndescription = "Watches the list."\ntools = []\n---\nYou watch.\n';
    await expectLive(page, live, () => apiJson(server.url, 'PUT', '/api/agents/watcher', { text: watcher }), testId(page, 'agent-row-watcher'));
    assert.match(await textOf(testId(page, 'agent-row-watcher')), /watcher.*Watches the list\..*none.*user/s);

    // A new profile: it opens with a valid template.
    await testId(page, 'new-agent-name').fill('critic');
    await testId(page, 'new-agent-create').click();
    await page.waitForURL(/#\/agents\/critic$/);
    await testId(page, 'agent-check').getByText('No problems.').waitFor();
    assert.equal(await testId(page, 'agent-save').isEnabled(), true);

    // An unknown tool: the server's problem shows with its line, and Save is off.
    const text = '---\nname = "critic"\ndescription = "Criticises drafts kindly."\ntools = ["read_file", "shell"]\n---\n\nYou read drafts and suggest three improvements.\n';
    await testId(page, 'agent-text').fill(text);
    const problem = testId(page, 'agent-problems').locator('[data-code="KW_ERR_TOOL_UNKNOWN"]');
    assert.match(await textOf(problem), /critic\.md.*line 4.*tools\[1\].*no tool provides "shell"/s);
    assert.equal(await testId(page, 'agent-save').isDisabled(), true, 'Save is off while the profile has a problem');
    await shot(page, 'agents-02-invalid');
    assert.equal(fs.existsSync(path.join(home, 'team', 'critic.md')), false, 'nothing written');

    // Fixed: Save comes back on, saves the file, and the list shows the new agent.
    await testId(page, 'agent-text').fill(text.replace(', "shell"', ''));
    await testId(page, 'agent-check').getByText('No problems.').waitFor();
    await testId(page, 'agent-save').click();
    assert.match(await textOf(testId(page, 'agent-saved')), /Saved to .*critic\.md/);
    assert.equal(fs.readFileSync(path.join(home, 'team', 'critic.md'), 'utf8'), text.replace(', "shell"', ''));
    await page.getByRole('link', { name: 'Agents', exact: true }).first().click();
    await page.waitForURL(/#\/agents$/);
    assert.match(await textOf(testId(page, 'agent-row-critic')), /critic.*Criticises drafts kindly\..*read_file.*user/s);
    await shot(page, 'agents-03-saved');

    // A built-in edited becomes an override; "Reset to built-in" removes it.
    await testId(page, 'agent-row-scribe').getByRole('link').click();
    await page.waitForURL(/#\/agents\/scribe$/);
    const scribe = await testId(page, 'agent-text').inputValue();
    await testId(page, 'agent-text').fill(scribe.replace(/^description = .*$/m, 'description = "My own scribe."'));
    await testId(page, 'agent-check').getByText('No problems.').waitFor();
    await testId(page, 'agent-save').click();
    await testId(page, 'agent-saved').waitFor();
    await testId(page, 'agent-reset').click();
    await testId(page, 'agent-editor').getByText('Built in: saving writes your own version').waitFor();
    assert.equal(fs.existsSync(path.join(home, 'team', 'scribe.md')), false);
    assert.match(await testId(page, 'agent-text').inputValue(), /description = "Writes, files and tidies notes/);
  });
});
