/**
 * Setup's Sign in for an MCP server in a real browser, against a real `kowalski serve` and
 * an OAuth-protected MCP server built with the SDK's own server-side auth
 * (testkit/oauth-mcp.ts): the server is listed as not signed in; Sign in opens the
 * authorization page in a new tab, which comes back to kowalski's callback ("Signed in");
 * Setup then shows it signed in, and the sign-in is stored 0600 in the data folder.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { browserForFile, cleanups, openPage, serve, shot, testId, textOf } from '../support/browser.js';
import { startOAuthMcp } from '../../testkit/oauth-mcp.js';
import { tempDir } from '../../testkit/tmp.js';

const browser = browserForFile();

test("Setup's Sign in opens the authorization page, comes back signed in, and the sign-in is kept 0600", async (t) => {
  const defer = cleanups(t);
  const mcp = await startOAuthMcp({ tokenSecs: 60 });
  defer(() => mcp.close());
  const home = fs.realpathSync(tempDir(t, 'kw-e2e-mcp-sign-in-'));
  fs.writeFileSync(path.join(home, 'config.toml'), `[[mcp.servers]]\nname = "srv"\nurl = "${mcp.url}"\n`);
  const server = await serve(home, defer);
  const { page, pageErrors } = await openPage(browser(), defer);
  defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));

  await page.goto(`${server.url}#/setup`);
  const row = testId(page, 'mcp-srv');
  await row.waitFor();
  assert.equal(await row.getAttribute('data-state'), 'signed-out');
  assert.match(await textOf(row), new RegExp(`srv\\s*${mcp.url.replace(/[./]/g, '\\$&')}.*Not signed in\\.`, 's'));
  await shot(testId(page, 'mcp-sign-ins'), 'mcp-sign-in-1-before');

  const opened = page.context().waitForEvent('page');
  await testId(page, 'mcp-srv-sign-in').click();
  const tab = await opened;
  await testId(tab, 'sign-in-result').waitFor();
  assert.equal(await textOf(testId(tab, 'sign-in-result')), 'Signed in');
  assert.equal(new URL(tab.url()).pathname, '/api/mcp/oauth/callback');
  await shot(tab, 'mcp-sign-in-2-callback');

  await testId(page, 'mcp-srv', '[data-state="signed-in"]').waitFor();
  assert.equal(await textOf(testId(page, 'mcp-srv-state')), 'Signed in.');
  assert.equal(await textOf(testId(page, 'mcp-srv-sign-in')), 'Sign in again');
  await shot(page, 'mcp-sign-in-3-setup');

  const file = path.join(home, 'secrets', 'mcp-oauth', 'srv.json');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(mcp.counts.codeExchanges, 1);
  assert.doesNotMatch(fs.readFileSync(path.join(home, 'config.toml'), 'utf8'), /token/);
});
