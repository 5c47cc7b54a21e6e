/**
 * Setup's adapters through the real API on 127.0.0.1: a webhook adapter is added to a
 * config.toml with comments, its secret only as an environment variable's name; it is
 * listed with that name (and whether it is set), never a secret's value; the file keeps its
 * comments and holds `secret_env = "NAME"`. A name in use, a missing required key, a bad
 * value and a literal secret are refused with their codes, nothing written; removing it
 * gives the file back byte for byte.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { buildApi } from '../../api/index.js';
import type { AdapterSetup, AdaptersSaved } from '../../contract/index.js';
import { createEngine } from '../../engine/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { tempDir } from '../../testkit/tmp.js';
import { listen } from '../support/api.js';
import { AUTH, TEST_TOKEN } from '../support/token.js';
import { testOwnCode } from '../../testkit/dist.js';

const CONFIG = `# my kowalski settings, by hand
[model]
default = "ollama:qwen2.5:7b" # the small one

# the shop's old webhook
[adapters.shop]
type = "webhook"
secret = "a-literal-secret-in-the-file"
# kept: a note at the end
`;

const ENV_NAME = 'KW_TEST_SETUP_HOOK_SECRET';
const SECRET = 'the-value-never-shown-4711';

async function start(t: TestContext) {
  process.env[ENV_NAME] = SECRET;
  t.after(() => { delete process.env[ENV_NAME]; });
  const home = tempDir(t, 'kw-setup-adapters-');
  const file = path.join(home, 'config.toml');
  fs.writeFileSync(file, CONFIG);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  cleanups(t)(() => engine.close());
  const api = await buildApi(engine, { port: 0, token: TEST_TOKEN, onInternalError: (err) => t.diagnostic(`internal: ${String(err)}`) });
  cleanups(t)(() => api.app.close());
  const { base } = await listen(api);
  const call = async (method: string, p: string, body?: unknown, auth = true) => {
    const headers: Record<string, string> = { ...(auth ? AUTH : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
    const res = await fetch(`${base}${p}`, { method, headers, body: body === undefined ? null : JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    return { status: res.status, text, json: JSON.parse(text) as any };
  };
  return { file, engine, call };
}

test('Setup adds a webhook adapter with its secret named by an environment variable, lists it without secrets, refuses clashes and bad input, and removes it', async (t) => {
  const { file, engine, call } = await start(t);

  assert.equal((await call('GET', '/api/setup/adapters', undefined, false)).status, 401, 'token-protected');
  const listed = await call('GET', '/api/setup/adapters');
  assert.equal(listed.status, 200);
  assert.deepEqual(listed.json.adapters, [{
    name: 'shop', type: 'webhook', agent: 'assistant', enabled: false, settings: [],
    secrets: [{ key: 'secret', env: null, envSet: false, inFile: true }], state: 'disabled', lastError: null,
  }] satisfies AdapterSetup[]);
  assert.ok(!listed.text.includes('a-literal-secret-in-the-file'), 'a secret written in the file is never shown');

  const body = { name: 'orders', type: 'webhook', agent: 'assistant', settings: { callback_url: 'http://127.0.0.1:9/answers', reply_timeout_secs: 30 }, secretEnv: { secret: ENV_NAME } };
  const added = await call('POST', '/api/setup/adapters', body);
  assert.equal(added.status, 200, added.text);
  const saved = added.json as AdaptersSaved;
  assert.equal(saved.written.comments, 'kept');
  assert.equal(saved.restartNeeded, true);
  const orders = saved.adapters.find((a) => a.name === 'orders');
  assert.deepEqual(orders, {
    name: 'orders', type: 'webhook', agent: 'assistant', enabled: false,
    settings: [{ key: 'callback_url', value: 'http://127.0.0.1:9/answers' }, { key: 'reply_timeout_secs', value: 30 }],
    secrets: [{ key: 'secret', env: ENV_NAME, envSet: true, inFile: false }],
    state: 'pending', lastError: null,
  } satisfies AdapterSetup);
  assert.ok(!added.text.includes(SECRET), 'the variable\'s value is never in the answer');
  const relisted = await call('GET', '/api/setup/adapters');
  assert.ok(!relisted.text.includes(SECRET) && relisted.text.includes(ENV_NAME), relisted.text);

  const text = fs.readFileSync(file, 'utf8');
  for (const kept of ['# my kowalski settings, by hand', 'default = "ollama:qwen2.5:7b" # the small one', "# the shop's old webhook", '# kept: a note at the end']) {
    assert.ok(text.includes(kept), `config.toml still holds ${JSON.stringify(kept)}:\n${text}`);
  }
  assert.equal(text, `${CONFIG}\n[adapters.orders]\ntype = "webhook"\nagent = "assistant"\ncallback_url = "http://127.0.0.1:9/answers"\nreply_timeout_secs = 30\nsecret_env = "${ENV_NAME}"\n`);
  assert.ok(!text.includes(SECRET));
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(engine.config.adapters.map((a) => a.name), ['shop', 'orders'], 'the config was reloaded');

  // Refused, nothing written.
  const before = fs.readFileSync(file, 'utf8');
  const clash = await call('POST', '/api/setup/adapters', { ...body, settings: {} });
  assert.equal(clash.status, 409);
  assert.equal(clash.json.error.code, 'KW_ERR_ADAPTER_EXISTS');
  assert.equal(clash.json.error.message, `${file}: [adapters.orders]: an adapter named "orders" is there already; choose another name or remove that one first`);
  for (const [bad, status, code, message] of [
    [{ name: 'hooks', type: 'webhook' }, 422, 'KW_ERR_ADAPTER_CONFIG', /^config\.toml: \[adapters\.hooks\] secret: is required/],
    [{ name: 'hooks', type: 'webhook', secretEnv: { secret: ENV_NAME }, settings: { reply_timeout_secs: 9999 } }, 422, 'KW_ERR_ADAPTER_CONFIG', /^config\.toml: \[adapters\.hooks\] reply_timeout_secs: must be a whole number from 1 to 600/],
    [{ name: 'hooks', type: 'webhook', secretEnv: { secret: ENV_NAME }, settings: { callback_url: 'ftp://x' } }, 422, 'KW_ERR_ADAPTER_CONFIG', /^config\.toml: \[adapters\.hooks\] callback_url: must be an http/],
    [{ name: 'hooks', type: 'webhook', secret: 'literal' }, 400, 'KW_ERR_BAD_REQUEST', /^body\/secret is not a known field/],
    [{ name: 'hooks', type: 'webhook', settings: { secret: 'literal' } }, 400, 'KW_ERR_BAD_REQUEST', /^settings\.secret: is a secret: give the name of the environment variable/],
    [{ name: 'hooks', type: 'webhook', secretEnv: { secret: 'not a name!' } }, 400, 'KW_ERR_BAD_REQUEST', /^secretEnv\.secret: must be an environment variable's name/],
    [{ name: 'hooks', type: 'pigeon', secretEnv: { secret: ENV_NAME } }, 400, 'KW_ERR_BAD_REQUEST', /type/],
  ] as const) {
    const refused = await call('POST', '/api/setup/adapters', bad);
    assert.equal(refused.status, status, `${JSON.stringify(bad)}: ${refused.text}`);
    assert.equal(refused.json.error.code, code);
    assert.match(refused.json.error.message, message);
    assert.ok(!refused.text.includes(SECRET));
  }
  assert.equal(fs.readFileSync(file, 'utf8'), before, 'nothing was written');

  const unknown = await call('DELETE', '/api/setup/adapters/nope');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.error.code, 'KW_ERR_ADAPTER_NOT_FOUND');

  const removed = await call('DELETE', '/api/setup/adapters/orders');
  assert.equal(removed.status, 200, removed.text);
  assert.equal((removed.json as AdaptersSaved).restartNeeded, true);
  assert.deepEqual((removed.json as AdaptersSaved).adapters.map((a) => a.name), ['shop']);
  assert.equal(fs.readFileSync(file, 'utf8'), CONFIG, 'the file is back byte for byte');
  assert.deepEqual(engine.config.adapters.map((a) => a.name), ['shop']);
});

test('Setup changes an adapter key by key in its place: a literal secret becomes a variable\'s name, a setting is set and removed, the agent and switch change; a change its type refuses writes nothing', async (t) => {
  const { file, engine, call } = await start(t);
  const changed = await call('PATCH', '/api/setup/adapters/shop', { agent: 'clerk', enabled: true, settings: { callback_url: 'http://127.0.0.1:9/answers' }, secretEnv: { secret: ENV_NAME } });
  assert.equal(changed.status, 200, changed.text);
  const saved = changed.json as AdaptersSaved;
  assert.equal(saved.written.comments, 'kept');
  assert.equal(saved.restartNeeded, true);
  assert.deepEqual(saved.adapters, [{
    name: 'shop', type: 'webhook', agent: 'clerk', enabled: true, settings: [{ key: 'callback_url', value: 'http://127.0.0.1:9/answers' }],
    // The running server's state: the change takes effect at its next start.
    secrets: [{ key: 'secret', env: ENV_NAME, envSet: true, inFile: false }], state: 'disabled', lastError: null,
  }] satisfies AdapterSetup[]);
  const text = fs.readFileSync(file, 'utf8');
  assert.equal(text, CONFIG.replace('secret = "a-literal-secret-in-the-file"\n', 'agent = "clerk"\nenabled = true\ncallback_url = "http://127.0.0.1:9/answers"\nsecret_env = "KW_TEST_SETUP_HOOK_SECRET"\n'), 'in its place, the comments kept, the literal secret gone');
  assert.ok(!changed.text.includes(SECRET));
  assert.equal(engine.config.adapters[0]?.agent, 'clerk', 'the config was reloaded');

  // null removes a key; keys not given stay.
  const unset = await call('PATCH', '/api/setup/adapters/shop', { settings: { callback_url: null }, agent: null });
  assert.equal(unset.status, 200, unset.text);
  assert.equal(fs.readFileSync(file, 'utf8'), CONFIG.replace('secret = "a-literal-secret-in-the-file"\n', 'enabled = true\nsecret_env = "KW_TEST_SETUP_HOOK_SECRET"\n'));

  const before = fs.readFileSync(file, 'utf8');
  for (const [bad, status, code, message] of [
    [{ secretEnv: { secret: null } }, 422, 'KW_ERR_ADAPTER_CONFIG', /^config\.toml: \[adapters\.shop\] secret: is required/],
    [{ settings: { reply_timeout_secs: 9999 } }, 422, 'KW_ERR_ADAPTER_CONFIG', /^config\.toml: \[adapters\.shop\] reply_timeout_secs: must be a whole number from 1 to 600/],
    [{ settings: { secret: 'literal' } }, 400, 'KW_ERR_BAD_REQUEST', /^settings\.secret: is a secret/],
    [{ settings: { type: 'slack' } }, 400, 'KW_ERR_BAD_REQUEST', /^settings\.type: is not a setting's key/],
    [{ secretEnv: { callback_url: 'X' } }, 400, 'KW_ERR_BAD_REQUEST', /^secretEnv\.callback_url: is not a secret of a webhook adapter \(its secrets: secret\)/],
    [{}, 400, 'KW_ERR_BAD_REQUEST', /^body must NOT have fewer than 1 properties/],
  ] as const) {
    const refused = await call('PATCH', '/api/setup/adapters/shop', bad);
    assert.equal(refused.status, status, `${JSON.stringify(bad)}: ${refused.text}`);
    assert.equal(refused.json.error.code, code);
    assert.match(refused.json.error.message, message);
  }
  assert.equal(fs.readFileSync(file, 'utf8'), before, 'nothing was written');
  const unknown = await call('PATCH', '/api/setup/adapters/nope', { enabled: false });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.error.code, 'KW_ERR_ADAPTER_NOT_FOUND');
});
