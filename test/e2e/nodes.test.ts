/**
 * The Nodes screen in a real browser against real `kowalski serve` processes sharing one
 * Postgres database: this node marked, each node's state (alive, stopped after a clean stop,
 * silent after a SIGKILL), the runs and steps each holds, and a run parked on one node and
 * approved through another listed as a hand-over; on SQLite, the one node at the address it
 * answers on. Waits are bounded waits on page state
 * (the screen reads the view again every few seconds).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { apiJson, browserForFile, cleanups, openPage, serve, shot, stopServer, testId, textOf } from '../support/browser.js';
import { writeHorde } from '../../testkit/cli.js';
import { freshPostgresUrl } from '../support/pg-engine.js';
import { tempDir } from '../../testkit/tmp.js';

const browser = browserForFile();

describe('the Nodes screen', () => {
  test('on SQLite, the one node is this server, at the address it answers on (not "not listening")', async (t) => {
    const defer = cleanups(t);
    const home = fs.realpathSync(tempDir(t, 'kw-e2e-nodes-sqlite-'));
    const server = await serve(home, defer);
    const { page, pageErrors } = await openPage(browser(), defer);
    defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));
    await page.goto(`${server.url}#/nodes`);
    await testId(page, 'nodes-table').waitFor();
    assert.match(await textOf(testId(page, 'nodes-store')), /Run store: SQLite .* this server is the only node/);
    const row = testId(page, 'node-row-local');
    assert.equal(await row.getAttribute('data-self'), 'true');
    assert.equal((await textOf(testId(row, 'node-url-local'))).trim(), server.url);
    assert.doesNotMatch(await textOf(row), /not listening/);
    assert.equal(await testId(page, 'nodes-wakeups').count(), 0, 'no LISTEN on SQLite: nothing said about notifications');
  });

  test('lists the nodes sharing the store, this one marked, alive, stopped and silent, and a hand-over after an approval through another node', async (t) => {
    const defer = cleanups(t);
    const root = fs.realpathSync(tempDir(t, 'kw-e2e-nodes-'));
    const url = await freshPostgresUrl();
    const homes = ['a', 'b', 'c'].map((name) => {
      const home = path.join(root, name);
      fs.mkdirSync(home, { recursive: true });
      fs.writeFileSync(path.join(home, 'config.toml'), `[store]\nurl = ${JSON.stringify(url)}\nfiles = ${JSON.stringify(path.join(root, 'files'))}\nlease_secs = 1.5\n`);
      writeHorde(path.join(home, 'hordes', 'gate'), 'id = "gate"\npipeline = ["check"]', { check: 'kind = "verify"\nverify_command = "true"' });
      return home;
    });
    const [a, b, c] = await Promise.all(homes.map((home) => serve(home, defer)));
    const { page, pageErrors } = await openPage(browser(), defer);
    defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));
    const view = (await apiJson(a!.url, 'GET', '/api/nodes')).json;
    const idOf = (server: typeof a) => view.nodes.find((n: any) => n.url === server!.url).id as string;
    const [idA, idB, idC] = [idOf(a), idOf(b), idOf(c)];

    await page.goto(a!.url);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Nodes', exact: true }).click();
    await page.waitForURL(/#\/nodes$/);
    await testId(page, 'nodes-table').waitFor();
    assert.match(await textOf(testId(page, 'nodes-store')), /Run store: PostgreSQL, shared by 3 live nodes/);
    // The answering node listens for notifications (the screen reads the view again every few seconds).
    await testId(page, 'nodes-wakeups').filter({ hasText: /hears the others at once/ }).waitFor({ timeout: 15_000 });
    assert.equal(await testId(page, 'node-self').count(), 1);
    assert.match(await textOf(testId(page, `node-row-${idA}`)), new RegExp(`${idA}\\s*this node.*${a!.url.replace(/[./]/g, '\\$&')}.*alive.*ago\\s*0\\s*0\\s*0`, 's'), 'no run held, no step running, no chat turn answered');
    for (const id of [idB, idC]) await testId(page, `node-state-${id}`).getByText('alive', { exact: true }).waitFor();
    assert.match(await textOf(testId(page, 'handovers-empty')), /No run has been handed/);

    // Parked on A, approved through B: B takes it over.
    const started = await apiJson(a!.url, 'POST', '/api/hordes/gate/runs', { input: {} });
    assert.equal(started.status, 201);
    const runId = started.json.runId as string;
    await waitForState(a!.url, runId, 'awaiting_input');
    const approved = await apiJson(b!.url, 'POST', `/api/runs/${runId}/approve`, { step: 'check' });
    assert.equal(approved.status, 200, JSON.stringify(approved.json));
    await waitForState(b!.url, runId, 'succeeded');
    const handover = testId(page, `handover-${runId}-2`);
    await handover.waitFor();
    assert.match(await textOf(handover), new RegExp(`${runId}\\s*${idA} → ${idB}\\s*2\\s*released`));

    assert.equal(await testId(page, 'handovers-table').locator('tbody tr').count(), 1);

    // B stops cleanly, C is killed: stopped, then silent once its lease has run out.
    await stopServer(b!.cli);
    c!.cli.child.kill('SIGKILL');
    await testId(page, `node-state-${idB}`).getByText('stopped', { exact: true }).waitFor();
    await testId(page, `node-state-${idC}`).getByText('silent', { exact: true }).waitFor();
    await testId(page, `node-state-${idA}`).getByText('alive', { exact: true }).waitFor();
    assert.match(await textOf(testId(page, 'nodes-store')), /shared by 1 live node \(3 seen in the last day\)/);
    await shot(page, 'nodes-01-list');
  });
});

async function waitForState(base: string, runId: string, state: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const run = (await apiJson(base, 'GET', `/api/runs/${runId}`)).json;
    if (run.run?.state === state) return;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not reach ${state}: ${JSON.stringify(run.run)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
