/**
 * Setup's MCP servers in a real browser, against a real `kowalski serve`: a stdio server
 * (the reference "everything" server, run with node) is added with the form, tested (its
 * tools listed, `echo` among them) and removed after the question; one that cannot start is
 * edited in its place (program, a variable, a limit) until it answers, its variable shown
 * by name only; config.toml keeps its comment throughout. The form's own checks, the server's coded refusal of a name in use
 * and a program that cannot start show in words, with their codes.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { browserForFile, cleanups, openPage, serve, shot, testId, textOf } from '../support/browser.js';
import { EVERYTHING } from '../support/mcp.js';
import { tempDir } from '../../testkit/tmp.js';

const browser = browserForFile();

test("Setup's MCP servers: add a stdio server, test it (its tools listed), refuse its name again, say in words why a missing program cannot start, edit that one until it answers, remove them; config.toml keeps its comment", async (t) => {
  const defer = cleanups(t);
  const home = fs.realpathSync(tempDir(t, 'kw-e2e-setup-mcp-'));
  const file = path.join(home, 'config.toml');
  fs.writeFileSync(file, '# written by hand: keep me\n[tools]\nroot = "~/kw-tools"\n');
  const server = await serve(home, defer);
  const { page, pageErrors } = await openPage(browser(), defer);
  defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));

  await page.goto(`${server.url}#/setup`);
  await testId(page, 'mcp-servers-none').waitFor();

  // The form's own check first: nothing is sent.
  await testId(page, 'mcp-add-name').fill('Everything!');
  await testId(page, 'mcp-add-submit').click();
  assert.match(await textOf(testId(page, 'mcp-add').locator('.field__error').first()), /Lower-case letters/);

  await testId(page, 'mcp-add-name').fill('everything');
  await testId(page, 'mcp-add-command').fill(process.execPath);
  await testId(page, 'mcp-add-args').fill(EVERYTHING);
  await testId(page, 'mcp-add-submit').click();
  const row = testId(page, 'mcp-server-everything');
  await row.waitFor();
  assert.match(await textOf(testId(page, 'mcp-servers-saved')), /"everything" was added to config\.toml/);
  assert.match(await textOf(row), new RegExp(`everything\\s*program\\s*${process.execPath.replace(/[./]/g, '\\$&')} .*server-everything`));
  const added = fs.readFileSync(file, 'utf8');
  assert.ok(added.startsWith('# written by hand: keep me\n[tools]\nroot = "~/kw-tools"\n\n[[mcp.servers]]\nname = "everything"\n'), added);

  await testId(page, 'mcp-server-everything-test').click();
  const result = testId(page, 'mcp-server-everything-result', '[data-state="ok"]');
  await result.waitFor({ timeout: 40_000 });
  await testId(page, 'mcp-server-everything-tool-echo').waitFor();
  assert.match(await textOf(result), /It answers: \d+ tools, offered as everything\.…/);
  assert.match(await textOf(testId(page, 'mcp-server-everything-tool-echo')), /^echo \S/);
  await shot(testId(page, 'mcp-servers'), 'setup-mcp-1-tested');

  // The same name again: the server refuses it with its code, naming the key.
  await testId(page, 'mcp-add-name').fill('everything');
  await testId(page, 'mcp-add-command').fill('node');
  await testId(page, 'mcp-add-submit').click();
  const refused = testId(page, 'mcp-add').locator('.error-box');
  await refused.waitFor();
  assert.match(await textOf(refused), /The server was not added\s*KW_ERR_MCP_SERVER_EXISTS .*config\.toml: mcp\.servers\[0\]\.name: a server named "everything" is there already/);
  await shot(testId(page, 'mcp-servers'), 'setup-mcp-2-name-in-use');

  // A program that is not there: the test says so in words, with the code and the command.
  await testId(page, 'mcp-add-name').fill('missing');
  await testId(page, 'mcp-add-command').fill(path.join(home, 'no-such-program'));
  await testId(page, 'mcp-add-submit').click();
  await testId(page, 'mcp-server-missing').waitFor();
  await testId(page, 'mcp-server-missing-test').click();
  const failed = testId(page, 'mcp-server-missing-result', '[data-state="error"]');
  await failed.waitFor();
  assert.match(await textOf(failed), /^The server could not be started or reached\.\s*KW_ERR_MCP_UNAVAILABLE MCP server "missing" cannot be started: the command ".*no-such-program" was not found/);
  await shot(testId(page, 'mcp-server-missing'), 'setup-mcp-3-cannot-start');

  // Edit it in its place: the right program, a variable, a longer call limit; tested again, it answers.
  await testId(page, 'mcp-server-missing-edit').click();
  await testId(page, 'mcp-edit-missing-command').fill(process.execPath);
  await testId(page, 'mcp-edit-missing-args').fill(EVERYTHING);
  await testId(page, 'mcp-edit-missing-env').fill('EXTRA_SETTING=secret-value-42');
  await testId(page, 'mcp-edit-missing').locator('summary').click();
  await testId(page, 'mcp-edit-missing-timeout').fill('90');
  await shot(testId(page, 'mcp-server-missing'), 'setup-mcp-4-edit');
  await testId(page, 'mcp-edit-missing-submit').click();
  await testId(page, 'mcp-edit-missing').waitFor({ state: 'detached' });
  assert.match(await textOf(testId(page, 'mcp-servers-saved')), /"missing" was changed in config\.toml: test it again/);
  assert.equal(await textOf(testId(page, 'mcp-server-missing-details')), 'Sets EXTRA_SETTING. Limits: 90 s a call, 20 s to start.');
  assert.match(fs.readFileSync(file, 'utf8'), /name = "missing"\ncommand = .*\nargs = \[.*server-everything.*\]\nenv = \{ EXTRA_SETTING = "secret-value-42" \}\ntimeout_secs = 90\n/);
  await testId(page, 'mcp-server-missing-test').click();
  await testId(page, 'mcp-server-missing-result', '[data-state="ok"]').waitFor({ timeout: 40_000 });
  // Edited again, the variable shows by name only: a name alone keeps its value.
  await testId(page, 'mcp-server-missing-edit').click();
  assert.equal(await testId(page, 'mcp-edit-missing-env').inputValue(), 'EXTRA_SETTING');
  assert.ok(!(await page.content()).includes('secret-value-42'), 'an env value is never in the page');
  await testId(page, 'mcp-edit-missing-cancel').click();
  await testId(page, 'mcp-edit-missing').waitFor({ state: 'detached' });
  await testId(page, 'mcp-server-missing-remove').click();
  await testId(page, 'mcp-server-missing-remove-confirm').click();
  await testId(page, 'mcp-server-missing').waitFor({ state: 'detached' });

  await testId(page, 'mcp-server-everything-remove').click();
  assert.match(await textOf(row), /Remove "everything"\?/);
  await shot(row, 'setup-mcp-5-remove-asks');
  await testId(page, 'mcp-server-everything-remove-confirm').click();
  await testId(page, 'mcp-servers-none').waitFor();
  assert.match(await textOf(testId(page, 'mcp-servers-saved')), /"everything" was removed from config\.toml\./);
  assert.equal(fs.readFileSync(file, 'utf8'), '# written by hand: keep me\n[tools]\nroot = "~/kw-tools"\n');
});
