/**
 * The app shows spreadsheet reports, in a real browser (Debian's chromium through
 * playwright-core) against a real API (`buildApi`) over a real engine that runs the
 * workbook fixture horde (test/fixtures/hordes/workbook) with its own step kind. A
 * workbook's sheets are tabs the keyboard can move through, each sheet a table (numbers
 * right-aligned, dates as dates, empty cells marked, markup kept as text, at most 1000
 * rows); its download is the exact file; the parser is fetched only when a workbook shows,
 * and reads a workbook big enough to be unzipped in a Web Worker.
 * A Markdown report's GFM table and a `sql_batch` JSON file render as tables too.
 * Waits are bounded waits on page state, never sleeps. Screenshots go to test/output/screens/.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { buildApi } from '../../api/index.js';
import { DEFAULT_CONFIG, createEngine } from '../../engine/index.js';
import type { Engine, StepKindInfo } from '../../engine/index.js';
import { BIG_ROWS, DAILY_ROWS, INDEX, INDEX_HEADER, MARKUP, SALES_HEADER, SQL_BATCH, dailyRow } from '../fixtures/hordes/workbook/kind.js';
import { listen } from '../support/api.js';
import { browserForFile, cleanups, openPage, shot, testId, textOf } from '../support/browser.js';
import { writeHorde } from '../support/engine.js';
import { tempDir } from '../../testkit/tmp.js';
import { TEST_TOKEN } from '../support/token.js';

const HORDE = fileURLToPath(new URL('../fixtures/hordes/workbook', import.meta.url));
const KIND: StepKindInfo = {
  kind: 'workbook_fixture', module: path.join(HORDE, 'kind.ts'), usesModel: false, idempotent: true, runsCommand: false,
};

const browser = browserForFile();

interface Scene {
  engine: Engine;
  page: Page;
  /** `http://127.0.0.1:<port>/`. */
  url: string;
  runId: string;
  /** Paths (no query) of the scripts the page fetched, in order. */
  scripts: string[];
  /** Messages of dialogs the page opened (an `alert` would land here). */
  dialogs: string[];
}

/**
 * An engine that knows `workbook_fixture`, an API listening on it, a finished run of a
 * horde (the fixture horde, or one `horde` writes into the temp folder), and a page; all
 * stopped after the test.
 */
async function scene(t: TestContext, horde: (root: string) => string = () => HORDE): Promise<Scene> {
  const defer = cleanups(t); // the test's one newest-first stack, tempDir's too: what is made in the folder goes before it
  const root = fs.realpathSync(tempDir(t, 'kw-e2e-wb-'));
  const home = path.join(root, 'home');
  const engine = await createEngine({ dataDir: home, config: DEFAULT_CONFIG, extraStepKinds: [KIND] });
  defer(() => engine.close());
  const api = await buildApi(engine, { token: TEST_TOKEN, port: 0, onInternalError: (err) => t.diagnostic(`internal: ${String(err)}`) });
  defer(() => api.app.close());
  const { base } = await listen(api);

  const runId = await engine.startRun((await engine.resolveHorde(horde(root))).horde, {});
  assert.equal(await engine.waitForRun(runId), 'succeeded', JSON.stringify(engine.getRun(runId).steps));

  const { page, pageErrors } = await openPage(browser(), defer);
  defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));
  const scripts: string[] = [];
  const dialogs: string[] = [];
  page.on('request', (r) => { if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname); });
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss().catch(() => undefined);
  });
  return { engine, page, url: `${base}/`, runId, scripts, dialogs };
}

/** A step's artifact, unfolded (the Run screen keeps all but the delivery folded until opened). */
async function unfolded(page: Page, id: string): Promise<Locator> {
  const artifact = testId(page, id);
  await artifact.locator('summary').click();
  return artifact;
}

/** A table's header texts and its body's cell texts, row by row. */
async function tableOf(scope: Locator): Promise<{ head: string[]; rows: string[][] }> {
  const table = scope.locator('table');
  await table.waitFor();
  const head = await table.locator('thead th').allTextContents();
  const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent ?? '')));
  return { head, rows };
}

/** A computed style property of the element (the test runs with no DOM types: the browser's names, as text). */
const styleOf = (el: Locator, prop: string): Promise<string> =>
  el.evaluate((e, p) => e.ownerDocument.defaultView!.getComputedStyle(e).getPropertyValue(p), prop);

/** The computed `text-align` of each cell of a row. */
function alignments(row: Locator): Promise<string[]> {
  return row.locator('th, td').evaluateAll((cells) => cells.map((c) => c.ownerDocument.defaultView!.getComputedStyle(c).textAlign));
}

/**
 * What a copy takes (the `copy` event's text/plain, as the page's handlers leave it) when the
 * selection runs from the start of `from` to the end of `to` (default: `from`'s contents).
 */
async function copied(from: Locator, to: Locator = from): Promise<string> {
  const end = await to.elementHandle();
  return from.evaluate((start, last) => {
    const doc = start.ownerDocument;
    const range = doc.createRange();
    range.setStart(start, 0);
    range.setEnd(last!, last!.childNodes.length);
    const sel = doc.getSelection()!;
    sel.removeAllRanges();
    sel.addRange(range);
    let text = '(no copy event)';
    // Inline (no named function: the test's transform would wrap a name in a helper the page lacks); after the app's handlers.
    doc.addEventListener('copy', (e: { clipboardData: { getData: (type: string) => string } | null }) => { text = e.clipboardData?.getData('text/plain') ?? '(no clipboard data)'; }, { once: true });
    doc.execCommand('copy');
    sel.removeAllRanges();
    return text;
  }, end);
}

/** The text of the element that has the focus. */
const focused = (page: Page): Promise<string | null> => page.evaluate('document.activeElement && document.activeElement.textContent');
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const day = (d: Date): string => d.toISOString().slice(0, 10);

describe('the app shows spreadsheet reports', () => {
  test('a workbook shows its sheets as keyboard-reachable tabs, each a table with numbers right-aligned, dates as dates and markup as text; it downloads byte for byte', async (t) => {
    const { engine, page, url, runId, scripts, dialogs } = await scene(t);

    // The app alone does not fetch the parser…
    await page.goto(url);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    assert.deepEqual(scripts, ['/app.js'], 'only the app is loaded before a workbook shows');

    // …it comes when a workbook is shown.
    await page.goto(`${url}#/runs/${runId}`);
    const wb = await unfolded(page, 'artifact-workbook');
    const tablist = wb.getByRole('tablist', { name: 'Sheets of sales.xlsx' });
    await tablist.or(testId(wb, 'workbook-error')).waitFor();
    assert.equal(await testId(wb, 'workbook-error').count(), 0, await wb.textContent() ?? '');
    assert.deepEqual(scripts, ['/app.js', '/xlsx-reader.js']);
    const tabs = tablist.getByRole('tab');
    assert.deepEqual(await tabs.allTextContents(), ['Index', 'Sales', 'Daily']);
    assert.deepEqual(await tabs.evaluateAll((els) => els.map((e) => [e.getAttribute('aria-selected'), e.getAttribute('tabindex')])),
      [['true', '0'], ['false', '-1'], ['false', '-1']], 'one tab stop: the selected tab');
    assert.match(await textOf(wb.locator('.workbook__title')), /Workbook sales\.xlsx · 3 sheets/);

    // The first sheet: its first row is the header.
    const panel = wb.getByRole('tabpanel');
    assert.equal(await panel.getAttribute('data-sheet'), 'Index');
    assert.equal(await panel.getAttribute('aria-labelledby'), await tabs.nth(0).getAttribute('id'));
    assert.deepEqual(await tableOf(panel), { head: INDEX_HEADER, rows: INDEX.map((r) => r.map(String)) });
    assert.equal(await panel.locator('th[scope="col"]').count(), INDEX_HEADER.length);
    assert.match(await textOf(panel.locator('caption')), /^Index · 2 rows$/);
    await shot(page, 'workbook-01-index');

    // Arrow keys move between the tabs and select them; the focus follows.
    await tabs.nth(0).focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await focused(page), 'Sales');
    assert.equal(await tabs.nth(1).getAttribute('aria-selected'), 'true');
    assert.equal(await panel.getAttribute('data-sheet'), 'Sales');

    const sales = await tableOf(panel);
    assert.deepEqual(sales.head, SALES_HEADER);
    assert.deepEqual(sales.rows, [
      ['North', '2024-01-31', '1200', '12345.5', 'steady'],
      ['South', '2024-02-29 13:45', '7', '0.25', '—'],
      [MARKUP, '2024-03-31', '-3', '1000000', 'markup stays text'],
    ], 'dates as dates (with the time when there is one), numbers as computed with no grouping, the empty cell as a dash, markup as text');
    assert.deepEqual(await alignments(panel.locator('thead tr')), ['left', 'left', 'right', 'right', 'left']);
    assert.deepEqual(await alignments(panel.locator('tbody tr').first()), ['left', 'left', 'right', 'right', 'left']);
    assert.equal(await styleOf(panel.locator('tbody td').nth(2), 'font-variant-numeric'), 'tabular-nums');
    const empty = panel.locator('tbody tr').nth(1).locator('td').nth(4);
    assert.equal(await empty.getAttribute('title'), 'empty');
    assert.notEqual(await styleOf(empty, 'color'), await styleOf(panel.locator('tbody td').first(), 'color'), 'the dash is muted');
    assert.equal(await page.locator('img[src="x"]').count(), 0, 'no element was made of the cell');
    await shot(page, 'workbook-02-sales');

    // The last sheet holds more rows than are shown: the first 1000, and a note.
    await page.keyboard.press('ArrowRight');
    assert.equal(await focused(page), 'Daily');
    assert.equal(await panel.getAttribute('data-sheet'), 'Daily');
    const daily = await tableOf(panel);
    assert.deepEqual(daily.head, ['Day', 'Count']);
    assert.equal(daily.rows.length, 1000);
    assert.deepEqual(daily.rows[0], [day(dailyRow(0)[0]), '0']);
    assert.deepEqual(daily.rows[999], [day(dailyRow(999)[0]), String(dailyRow(999)[1])]);
    assert.equal(await textOf(testId(panel, 'row-cap-note')), `Showing the first 1000 of ${DAILY_ROWS} rows. Download the workbook to see them all.`);

    // The rows scroll inside a bounded box, under a header that stays in view; Tab reaches the box.
    await page.keyboard.press('Tab');
    const region = panel.getByRole('region');
    assert.equal(await page.evaluate('document.activeElement.getAttribute("role")'), 'region');
    assert.match(await region.getAttribute('aria-labelledby') ?? '', /.+/);
    await region.evaluate((el) => { el.scrollTop = 5000; });
    const box = (await region.boundingBox())!;
    const head = (await panel.locator('thead th').first().boundingBox())!;
    assert.ok(box.height < 600, `the box is bounded (${box.height}px)`);
    assert.ok(head.y >= box.y && head.y < box.y + 5, `the header stays at the top of the box (${head.y} vs ${box.y})`);
    await shot(page, 'workbook-03-daily-scrolled');

    // Round and round: Right wraps, Left goes back, Home and End go to the ends.
    await tabs.nth(2).focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await focused(page), 'Index');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await focused(page), 'Daily');
    await page.keyboard.press('Home');
    assert.equal(await focused(page), 'Index');
    await page.keyboard.press('End');
    assert.equal(await focused(page), 'Daily');
    assert.equal(await panel.getAttribute('data-sheet'), 'Daily');
    await tabs.nth(1).click();
    assert.equal(await panel.getAttribute('data-sheet'), 'Sales', 'a click selects too');

    // The download is the file the step wrote, byte for byte.
    const button = testId(wb, 'download-workbook');
    assert.equal(await textOf(button), 'Download workbook');
    const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
    assert.equal(download.suggestedFilename(), 'sales.xlsx');
    const got = fs.readFileSync(await download.path());
    assert.equal(sha256(got), sha256(fs.readFileSync(engine.artifactPath(runId, 'report/sales.xlsx'))));

    // A file named .xlsx that is no workbook: said so, and it can still be downloaded.
    const broken = testId(await unfolded(page, 'artifact-broken'), 'artifact-broken-workbook');
    assert.match(await textOf(testId(broken, 'workbook-error')), /Could not read this workbook/);
    await testId(broken, 'download-workbook').waitFor();
    assert.equal(await broken.getByRole('tablist').count(), 0);

    assert.deepEqual(dialogs, [], 'nothing ran from a cell');
    assert.equal(await page.locator('img').count(), 0);
  });

  test('a workbook big enough that its sheet is unpacked in a background worker shows as well', async (t) => {
    const { page, url, runId, scripts } = await scene(t, (root) => writeHorde(path.join(root, 'big'), 'id = "big-workbook"\npipeline = ["big"]', {
      big: 'kind = "workbook_fixture"\noutput = "report/big.xlsx"',
    }));
    await page.goto(`${url}#/runs/${runId}`);
    const wb = await unfolded(page, 'artifact-big');
    const tabs = wb.getByRole('tab');
    await tabs.or(testId(wb, 'workbook-error')).first().waitFor();
    assert.equal(await testId(wb, 'workbook-error').count(), 0, await wb.textContent() ?? '');
    assert.deepEqual(await tabs.allTextContents(), ['Index', 'Sales', 'Daily']);
    await tabs.nth(2).click();
    const panel = wb.getByRole('tabpanel');
    assert.equal(await panel.getAttribute('data-sheet'), 'Daily');
    assert.equal(await textOf(testId(panel, 'row-cap-note')), `Showing the first 1000 of ${BIG_ROWS} rows. Download the workbook to see them all.`);
    const rows = (await tableOf(panel)).rows;
    assert.equal(rows.length, 1000);
    assert.deepEqual(rows[999], [day(dailyRow(999)[0]), String(dailyRow(999)[1])]);
    assert.deepEqual(scripts.filter((s) => s === '/xlsx-reader.js'), ['/xlsx-reader.js'], 'the parser is fetched once');
  });

  test('a Markdown report shows its GFM table, and a sql_batch JSON file its question, SQL and result as a table', async (t) => {
    const { page, url, runId, dialogs } = await scene(t);
    await page.goto(`${url}#/runs/${runId}`);

    const md = (await unfolded(page, 'artifact-summary')).locator('.markdown');
    assert.equal(await textOf(md.locator('h1')), 'Sales summary');
    assert.deepEqual(await tableOf(md), {
      head: ['Region', 'Units', 'Note'],
      rows: [['North', '1200', 'steady'], ['South', '7', ''], [MARKUP, '-3', 'markup stays text']],
    });

    const query = testId(await unfolded(page, 'artifact-results'), 'data-query');
    const [q] = SQL_BATCH.queries;
    assert.equal(await textOf(query.locator('h4')), `1. ${q!.question}`);
    assert.equal(await textOf(query.locator('pre')), q!.sql);
    const result = await tableOf(query);
    assert.deepEqual(result, {
      head: ['region', 'revenue', 'first_day', 'share'],
      rows: [[MARKUP, '1000000', '2024-03-31', '0.988'], ['North', '12345.5', '2024-01-31', '1234.57'], ['South', '0.25', '—', '0.333']],
    });
    assert.deepEqual(await alignments(query.locator('thead tr')), ['left', 'right', 'left', 'right'], 'DECIMAL and DOUBLE columns are right-aligned');
    assert.equal(await query.locator('thead th').nth(1).getAttribute('title'), 'DECIMAL(18,2)');
    // Rounded for display: the full value on hover, and in what a copy takes (one cell, or rows as tab-separated lines).
    const shares = query.locator('tbody td:nth-child(4)');
    assert.deepEqual(await shares.evaluateAll((tds) => tds.map((td) => td.getAttribute('title'))), ['0.987654321', '1234.56789', String(1 / 3)]);
    assert.equal(await query.locator('tbody td:nth-child(2)').first().getAttribute('title'), null, 'a number shown whole has no title');
    assert.equal(await copied(shares.nth(2)), String(1 / 3));
    assert.equal(await copied(query.locator('tbody tr').first(), query.locator('tbody tr').nth(1)),
      `${MARKUP}\t1000000\t2024-03-31\t0.987654321\nNorth\t12345.5\t2024-01-31\t1234.56789`);
    assert.equal(await styleOf(query.locator('thead th').nth(2), 'overflow-wrap'), 'normal', 'column names are not broken mid-word');
    assert.match(await textOf(testId(query, 'truncated-note')), /^Truncated/);
    await shot(testId(page, 'artifact-results'), 'workbook-04-sql-batch');

    assert.equal(await page.locator('img[src="x"]').count(), 0);
    assert.deepEqual(dialogs, []);
  });
});
