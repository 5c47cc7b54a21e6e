/**
 * Setup's adapters in a real browser, against a real `kowalski serve`: a webhook adapter is
 * added with the form (its secret as an environment variable's name), listed with that name
 * and "starts at the next start", refused when its name is in use, changed in its place
 * (agent, variable, a setting removed, on at start), and removed after the question; config.toml keeps its comment and is back byte for byte.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { browserForFile, cleanups, openPage, serve, shot, testId, textOf } from '../support/browser.js';
import { tempDir } from '../../testkit/tmp.js';

const browser = browserForFile();
const CONFIG = '# written by hand: keep me\n[tools]\nroot = "~/kw-tools"\n';

test("Setup's adapters: add a webhook adapter with its secret named by a variable, refuse its name again, change it, remove it; config.toml keeps its comment", async (t) => {
  const defer = cleanups(t);
  const home = fs.realpathSync(tempDir(t, 'kw-e2e-setup-adapters-'));
  const file = path.join(home, 'config.toml');
  fs.writeFileSync(file, CONFIG);
  const server = await serve(home, defer);
  const { page, pageErrors } = await openPage(browser(), defer);
  defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));

  await page.goto(`${server.url}#/setup`);
  await testId(page, 'adapters-setup-none').waitFor();

  // The form's own check: a secret's field takes a variable's name, not the secret.
  await testId(page, 'adapter-add-name').fill('orders');
  await testId(page, 'adapter-add-secret').fill('s3cr3t value!');
  await testId(page, 'adapter-add-submit').click();
  assert.match(await textOf(testId(page, 'adapter-add').locator('.field__error').first()), /environment variable's name/);
  assert.equal(fs.readFileSync(file, 'utf8'), CONFIG);

  await testId(page, 'adapter-add-secret').fill('KW_ORDERS_SECRET');
  await testId(page, 'adapter-add-callback_url').fill('https://example.com/answers');
  await testId(page, 'adapter-add-submit').click();
  const row = testId(page, 'adapter-setup-orders');
  await row.waitFor();
  assert.match(await textOf(testId(page, 'adapters-setup-saved')), /"orders" was added to config\.toml\. It takes effect at the next start of the server\./);
  assert.match(await textOf(row), /orders\s*webhook → assistant\s*starts at the next start of the server/);
  assert.match(await textOf(testId(page, 'adapter-setup-orders-secrets')), /secret: from \$KW_ORDERS_SECRET/);
  assert.equal(fs.readFileSync(file, 'utf8'), `${CONFIG}\n[adapters.orders]\ntype = "webhook"\nagent = "assistant"\ncallback_url = "https://example.com/answers"\nsecret_env = "KW_ORDERS_SECRET"\n`);
  await shot(testId(page, 'adapters-setup'), 'setup-adapters-1-added');

  // The same name again: refused with its code, naming the key.
  await testId(page, 'adapter-add-name').fill('orders');
  await testId(page, 'adapter-add-secret').fill('KW_ORDERS_SECRET');
  await testId(page, 'adapter-add-submit').click();
  const refused = testId(page, 'adapter-add').locator('.error-box');
  await refused.waitFor();
  assert.match(await textOf(refused), /The adapter was not added\s*KW_ERR_ADAPTER_EXISTS .*config\.toml: \[adapters\.orders\]: an adapter named "orders" is there already/);

  // Changed in its place: another agent and variable, the callback removed, on at start; only those keys are rewritten.
  await testId(page, 'adapter-setup-orders-edit').click();
  assert.equal(await testId(page, 'adapter-edit-orders-secret').inputValue(), 'KW_ORDERS_SECRET');
  assert.equal(await testId(page, 'adapter-edit-orders-callback_url').inputValue(), 'https://example.com/answers');
  await testId(page, 'adapter-edit-orders-agent').fill('clerk');
  await testId(page, 'adapter-edit-orders-secret').fill('KW_SHOP_SECRET');
  await testId(page, 'adapter-edit-orders-callback_url').fill('');
  await testId(page, 'adapter-edit-orders-enabled').check();
  await shot(row, 'setup-adapters-2-change');
  await testId(page, 'adapter-edit-orders-submit').click();
  await testId(page, 'adapter-edit-orders').waitFor({ state: 'detached' });
  assert.match(await textOf(testId(page, 'adapters-setup-saved')), /"orders" was changed in config\.toml\. It takes effect at the next start of the server\./);
  // The note comes with the answer; the list shows the change once it has been read again.
  await row.filter({ hasText: /webhook → clerk/ }).waitFor();
  assert.match(await textOf(row), /orders\s*webhook → clerk/);
  assert.match(await textOf(testId(page, 'adapter-setup-orders-secrets')), /secret: from \$KW_SHOP_SECRET/);
  assert.equal(fs.readFileSync(file, 'utf8'), `${CONFIG}\n[adapters.orders]\ntype = "webhook"\nagent = "clerk"\nsecret_env = "KW_SHOP_SECRET"\nenabled = true\n`);

  await testId(page, 'adapter-setup-orders-remove').click();
  assert.match(await textOf(row), /Remove "orders"\?/);
  await shot(row, 'setup-adapters-3-remove-asks');
  await testId(page, 'adapter-setup-orders-remove-confirm').click();
  await testId(page, 'adapters-setup-none').waitFor();
  assert.match(await textOf(testId(page, 'adapters-setup-saved')), /"orders" was removed from config\.toml\./);
  assert.equal(fs.readFileSync(file, 'utf8'), CONFIG);
});
