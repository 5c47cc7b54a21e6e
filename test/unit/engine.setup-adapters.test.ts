/** Setup's adapters in config.toml, without a server: an email adapter's nested keys and secret, the running server's states, and a secret key given as a plain setting. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { AdapterStatus } from '../../engine/adapters/index.js';
import { addAdapter, changeAdapter, readAdapters, removeAdapter } from '../../engine/setup/setup-adapters.js';
import { tempDir } from '../../testkit/tmp.js';

const CONFIG = '# mine\n[tools]\nroot = "/r"\n';

test('an email adapter goes in with its nested tables, its password only as password_env; the list shows the variable and whether it is set; remove gives the file back', (t) => {
  const file = path.join(tempDir(t, 'kw-setup-adapters-'), 'config.toml');
  fs.writeFileSync(file, CONFIG);
  const env = { MAIL_PW: 'hunter2-never-shown' };
  const saved = addAdapter(file, {
    name: 'mail', type: 'email',
    settings: { address: 'bot@example.com', 'imap.host': 'imap.example.com', 'imap.user': 'bot', 'smtp.host': 'smtp.example.com' },
    secretEnv: { 'imap.password': 'MAIL_PW' },
  }, env, []);
  assert.equal(saved.written.comments, 'kept');
  assert.equal(saved.restartNeeded, true);
  const text = fs.readFileSync(file, 'utf8');
  assert.equal(text, `${CONFIG}\n[adapters.mail]\ntype = "email"\naddress = "bot@example.com"\n\n[adapters.mail.imap]\nhost = "imap.example.com"\nuser = "bot"\npassword_env = "MAIL_PW"\n\n[adapters.mail.smtp]\nhost = "smtp.example.com"\n`);
  assert.deepEqual(saved.adapters[0]!.secrets, [{ key: 'imap.password', env: 'MAIL_PW', envSet: true, inFile: false }]);
  assert.deepEqual(saved.adapters[0]!.settings.map((s) => s.key), ['address', 'imap.host', 'imap.user', 'smtp.host']);
  assert.ok(!JSON.stringify(saved).includes('hunter2'));
  assert.equal(readAdapters(file, [], {})[0]!.secrets[0]!.envSet, false, 'a variable not set where the server runs is said so');

  const status = (over: Partial<AdapterStatus>): AdapterStatus => ({ name: 'mail', type: 'email', enabled: true, state: 'stopped', lastError: null, lastErrorAt: null, lastActivityAt: null, errorCount: 0, agent: 'assistant', settings: {}, ...over });
  assert.equal(readAdapters(file, [status({ state: 'running' })], env)[0]!.state, 'running');
  assert.deepEqual(readAdapters(file, [status({ state: 'error', lastError: 'no IMAP' })], env).map((a) => [a.state, a.lastError]), [['error', 'no IMAP']]);
  assert.equal(readAdapters(file, [status({ enabled: false })], env)[0]!.state, 'disabled');
  assert.equal(readAdapters(file, [status({})], env)[0]!.state, 'off');
  assert.equal(readAdapters(file, [status({ type: 'webhook', state: 'running' })], env)[0]!.state, 'pending', 'the server runs another adapter of that name: this one is from its next start');

  removeAdapter(file, 'mail', env, []);
  assert.equal(fs.readFileSync(file, 'utf8'), CONFIG);
});

test('a secret key as a plain setting, a secret the type does not have, and the type\'s own refusal write nothing', (t) => {
  const file = path.join(tempDir(t, 'kw-setup-adapters-'), 'config.toml');
  fs.writeFileSync(file, CONFIG);
  assert.throws(() => addAdapter(file, { name: 'chat', type: 'slack', settings: { bot_token: 'xoxb-1' }, secretEnv: { signing_secret: 'S' } }, {}, []), { code: 'KW_ERR_BAD_REQUEST', message: /^settings\.bot_token: is a secret/ });
  assert.throws(() => addAdapter(file, { name: 'd', type: 'discord', secretEnv: { public_key: 'K' } }, {}, []), { code: 'KW_ERR_BAD_REQUEST', message: /^secretEnv\.public_key: is not a secret of a discord adapter \(it has none\)/ });
  assert.throws(() => addAdapter(file, { name: 'chat', type: 'slack', secretEnv: { signing_secret: 'S' } }, {}, []), { code: 'KW_ERR_ADAPTER_CONFIG', message: /\[adapters\.chat\] bot_token: is required/ });
  assert.throws(() => addAdapter(file, { name: 'd', type: 'discord', settings: { public_key: 'zz', application_id: '1' } }, {}, []), { code: 'KW_ERR_ADAPTER_CONFIG', message: /\[adapters\.d\] public_key/ });
  assert.equal(fs.readFileSync(file, 'utf8'), CONFIG);
});

test('a change of another key keeps a secret read from a variable not set here (nested in a table too): the section still checks as set, and only that key is written', (t) => {
  const file = path.join(tempDir(t, 'kw-setup-adapters-'), 'config.toml');
  fs.writeFileSync(file, CONFIG);
  addAdapter(file, {
    name: 'mail', type: 'email',
    settings: { address: 'bot@example.com', 'imap.host': 'imap.example.com', 'imap.user': 'bot', 'smtp.host': 'smtp.example.com' },
    secretEnv: { 'imap.password': 'MAIL_PW' },
  }, {}, []);
  const before = fs.readFileSync(file, 'utf8');
  const saved = changeAdapter(file, 'mail', { settings: { address: 'desk@example.com' } }, {}, []);
  assert.equal(fs.readFileSync(file, 'utf8'), before.replace('bot@example.com', 'desk@example.com'));
  assert.deepEqual(saved.adapters[0]!.secrets, [{ key: 'imap.password', env: 'MAIL_PW', envSet: false, inFile: false }]);
  // Without the variable's name the section is refused, and nothing is written.
  assert.throws(() => changeAdapter(file, 'mail', { secretEnv: { 'imap.password': null } }, {}, []), { code: 'KW_ERR_ADAPTER_CONFIG', message: /\[adapters\.mail\] imap\.password/ });
  assert.equal(fs.readFileSync(file, 'utf8'), before.replace('bot@example.com', 'desk@example.com'));
});
