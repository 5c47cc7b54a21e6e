/**
 * The horde page's small comforts, in a real browser against a real `kowalski serve`:
 * "Commands wait for your approval" only on a horde with a step that runs a command;
 * Export disabled, with a title saying why, on an invalid horde; a user horde whose id a
 * built-in already holds has its own page (from the Hordes list) saying which one runs
 * under that id; a wide Markdown table scrolls instead of squeezing its columns.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { Locator } from 'playwright-core';
import { apiJson, browserForFile, cleanups, openPage, serve, shot, testId, textOf } from '../support/browser.js';
import { writeHorde } from '../support/engine.js';
import { tempDir } from '../../testkit/tmp.js';

const browser = browserForFile();

describe('the horde page', () => {
  test('commands note only where commands run; Export off on an invalid horde; a clashing id gets its own page', async (t) => {
    const defer = cleanups(t);
    const root = fs.realpathSync(tempDir(t, 'kw-e2e-horde-'));
    const home = path.join(root, 'home');
    fs.mkdirSync(home, { mode: 0o700 });
    const hordes = path.join(home, 'hordes');
    writeHorde(path.join(hordes, 'asker'), 'id = "asker"\ndisplay_name = "Asker"\npipeline = ["think"]', { think: 'kind = "process"' });
    // A Markdown table far wider than the page, in the horde's body.
    const cols = Array.from({ length: 14 }, (_, i) => i + 1);
    fs.appendFileSync(path.join(hordes, 'asker', 'horde.md'), [
      '', '# Asker', '', `| ${cols.map((i) => `Measure number ${i}`).join(' | ')} |`, `| ${cols.map(() => '---').join(' | ')} |`,
      `| ${cols.map((i) => `value of row one ${i}`).join(' | ')} |`, '',
    ].join('\n'));
    writeHorde(path.join(hordes, 'broken'), 'id = "broken"\ndisplay_name = "Broken"\npipeline = ["missing"]', {});
    const mine = writeHorde(path.join(hordes, 'my-retry'), 'id = "retry-command"\ndisplay_name = "My retry"\npipeline = ["think"]', { think: 'kind = "process"' });
    const [server, { page, pageErrors }] = await Promise.all([serve(home, defer), openPage(browser(), defer)]);
    defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));

    // The API says which hordes run commands.
    assert.equal((await apiJson(server.url, 'GET', '/api/hordes/project-check')).json.runsCommands, true);
    assert.equal((await apiJson(server.url, 'GET', '/api/hordes/asker')).json.runsCommands, false);

    // 1. A horde that runs commands says they wait; one that runs none says nothing about commands.
    await page.goto(`${server.url}#/hordes/project-check`);
    assert.equal(await textOf(testId(page, 'commands-note')), 'Commands wait for your approval.');
    await page.goto(`${server.url}#/hordes/asker`);
    await page.locator('#horde-title', { hasText: 'Asker' }).waitFor();
    assert.equal(await testId(page, 'commands-note').count(), 0, 'asker runs no command');
    assert.equal(await testId(page, 'export-bundle').isEnabled(), true, 'a valid horde can be exported');

    // 4. The wide Markdown table scrolls sideways in its own box; no column is squeezed (every cell on one line).
    const table = testId(page, 'horde-body').locator('table');
    await table.waitFor();
    const box = await table.evaluate((t) => ({ scroll: t.scrollWidth, client: t.clientWidth, page: t.ownerDocument.documentElement.scrollWidth, view: t.ownerDocument.documentElement.clientWidth }));
    assert.ok(box.scroll > box.client, `the table scrolls: ${JSON.stringify(box)}`);
    assert.ok(box.page <= box.view, `the page itself does not: ${JSON.stringify(box)}`);
    const linesOf = (cells: Locator) => cells.evaluateAll((els) => els.map((c) => {
      const r = c.ownerDocument.createRange();
      r.selectNodeContents(c);
      return new Set([...r.getClientRects()].map((rect) => Math.round(rect.top))).size; // the lines its text is on
    }));
    assert.deepEqual(await linesOf(table.locator('th')), cols.map(() => 1), 'every header on one line');
    // A cell is at least 12ch wide: "value of row one 3" on two lines at most (squeezed, it took four).
    assert.deepEqual((await linesOf(table.locator('td'))).filter((n) => n > 2), [], 'no cell squeezed');
    await shot(testId(page, 'horde-body'), 'horde-wide-markdown-table');

    // 2. An invalid horde cannot be exported, and the button says why.
    await page.goto(`${server.url}#/hordes/broken`);
    await page.locator('#horde-title', { hasText: 'broken' }).waitFor();
    const exportButton = testId(page, 'export-bundle');
    assert.equal(await exportButton.isDisabled(), true);
    assert.match((await exportButton.getAttribute('title')) ?? '', /invalid horde cannot be exported: fix the problems/);
    assert.equal(await testId(page, 'run-button').isDisabled(), true);

    // 3. Two cards for the id; the user's opens its own page naming the built-in that runs under it.
    await page.goto(`${server.url}#/hordes`);
    const card = testId(page, 'horde-card-retry-command-user');
    await card.waitFor();
    assert.equal(await testId(page, 'horde-card-retry-command').count(), 1, 'the built-in keeps its card');
    await card.locator('.card__title a').click();
    await page.waitForURL(/#\/hordes\/retry-command\?origin=user$/);
    const note = testId(page, 'id-taken');
    await note.waitFor();
    const text = await textOf(note);
    assert.ok(text.includes('The id retry-command belongs to the built-in horde in '), text);
    assert.ok(text.includes(path.join('hordes', 'retry-command')), text);
    assert.ok(text.includes('runs of retry-command (this app, kowalski run retry-command, triggers) use that one, not this one.'), text);
    assert.ok(text.includes('give it another id in its horde.md'), text);
    assert.ok(!text.includes(mine), 'the note names the built-in, not this folder');
    assert.equal(await testId(page, 'horde-origin').first().textContent(), 'user');
    assert.equal(await testId(page, 'export-bundle').isDisabled(), true, 'Export would send the built-in: off');
    assert.equal(await testId(page, 'run-button').isDisabled(), true);
    await shot(page, 'horde-id-taken');
    await note.locator('a').click();
    await page.waitForURL(/#\/hordes\/retry-command$/);
    // The built-in's own title: `hasText` is case-insensitive, and "Retry" would match "My retry" still shown.
    await page.locator('#horde-title', { hasText: 'Retry a command' }).waitFor();
    assert.equal(await testId(page, 'id-taken').count(), 0, 'the built-in runs: no note on its page');
    assert.equal(await testId(page, 'run-button').isEnabled(), true);

    // An origin with no such horde is a 404 naming the id.
    const none = await apiJson(server.url, 'GET', '/api/hordes/asker?origin=builtin');
    assert.equal(none.status, 404);
    assert.equal(none.json.error.code, 'KW_ERR_HORDE_NOT_FOUND');
  });
});
