/** `/api/plugins` through a real engine and API (inject()): list after a rescan, grant and revoke with who, the audit, 404 and 409, bad bodies refused. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { testApi } from '../support/api.js';
import { editManifest, installExample } from '../support/plugin-home.js';
import { tempDir } from '../../testkit/tmp.js';

test('list, rescan, grant and revoke over the API, with the audit; unknown and invalid plugins refused with their codes', async (t) => {
  const api = await testApi(t);
  // How plugins are confined here is said even before there is one (bubblewrap, or Node's permission model only).
  assert.deepEqual((await api.call('GET', '/api/plugins')).json, { plugins: [], confinement: await api.engine.plugins.confinement() });
  const docs = fs.realpathSync(tempDir(t, 'kw-plug-docs-'));
  installExample(api.home, docs);
  const bad = installExample(api.home, docs, 'bad');
  editManifest(bad, 'name = "hello"', 'name = "bad"');
  editManifest(bad, 'manifest_version = 1', 'manifest_version = 7');

  const rescanned = await api.call('POST', '/api/plugins/rescan');
  assert.equal(rescanned.status, 200);
  assert.deepEqual(rescanned.json.plugins.map((p: any) => [p.name, p.state]), [['bad', 'invalid'], ['hello', 'pending']]);
  const hello = rescanned.json.plugins[1];
  assert.deepEqual(hello.permissionsText, [`read files in ${docs}`]);
  assert.deepEqual(hello.tools.map((x: any) => x.name), ['hello__greet', 'hello__word_count']);
  assert.match(rescanned.json.plugins[0].failures[0].message, /kowalski-plugin\.toml:3: manifest_version: must be 1, not 7/);
  assert.equal(rescanned.json.plugins[0].failures[0].phase, 'validate');
  assert.equal(rescanned.json.plugins[0].failures[0].code, 'KW_ERR_PLUGIN_MANIFEST');
  assert.deepEqual(hello.confinement, (await api.call('GET', '/api/plugins')).json.confinement);

  const granted = await api.call('POST', '/api/plugins/hello/grant', { by: 'ann (cli)' });
  assert.equal(granted.status, 200);
  assert.equal(granted.json.state, 'granted');
  assert.equal(granted.json.grantedBy, 'ann (cli)');
  const revoked = await api.call('POST', '/api/plugins/hello/revoke');
  assert.equal(revoked.json.state, 'pending');
  const one = await api.call('GET', '/api/plugins/hello');
  assert.deepEqual(one.json.audit.map((a: any) => [a.action, a.by, a.version]), [['grant', 'ann (cli)', '1.0.0'], ['revoke', 'operator (api)', '1.0.0']]);
  assert.equal(one.json.audit[0].permissionsHash, hello.permissionsHash);

  const missing = await api.call('POST', '/api/plugins/nope/grant');
  assert.equal(missing.status, 404);
  assert.equal(missing.json.error.code, 'KW_ERR_PLUGIN_NOT_FOUND');
  const invalid = await api.call('POST', '/api/plugins/bad/grant');
  assert.equal(invalid.status, 409);
  assert.equal(invalid.json.error.code, 'KW_ERR_PLUGIN_INVALID');
  const badBody = await api.call('POST', '/api/plugins/hello/grant', { by: 'x', extra: true });
  assert.equal(badBody.status, 400);
  assert.equal(badBody.json.error.code, 'KW_ERR_BAD_REQUEST');
});

test('a grant that names what the operator was shown is refused once a rescan found the plugin changed, and nothing is granted', async (t) => {
  const api = await testApi(t);
  const docs = fs.realpathSync(tempDir(t, 'kw-plug-docs-'));
  const manifest = installExample(api.home, docs);
  const shown = (await api.call('POST', '/api/plugins/rescan')).json.plugins[0];
  assert.equal(shown.state, 'pending');

  editManifest(manifest, `fs.read = [${JSON.stringify(docs)}]`, `fs.read = [${JSON.stringify(docs)}]\nenv = ["HOME"]`);
  await api.call('POST', '/api/plugins/rescan');
  const stale = await api.call('POST', '/api/plugins/hello/grant', { version: shown.version, permissionsHash: shown.permissionsHash });
  assert.equal(stale.status, 409);
  assert.equal(stale.json.error.code, 'KW_ERR_PLUGIN_CHANGED');
  assert.match(stale.json.error.message, /plugin hello changed since it was shown: it is now version 1\.0\.0 and may read files in \S+; read the environment variable HOME\. Look at it again/);
  const after = await api.call('GET', '/api/plugins/hello');
  assert.equal(after.json.plugin.state, 'pending');
  assert.deepEqual(after.json.audit, []);
  const otherVersion = await api.call('POST', '/api/plugins/hello/grant', { version: '0.9.0', permissionsHash: after.json.plugin.permissionsHash });
  assert.equal(otherVersion.json.error.code, 'KW_ERR_PLUGIN_CHANGED');

  const granted = await api.call('POST', '/api/plugins/hello/grant', { version: '1.0.0', permissionsHash: after.json.plugin.permissionsHash });
  assert.equal(granted.status, 200);
  assert.equal(granted.json.state, 'granted');
  const badHash = await api.call('POST', '/api/plugins/hello/grant', { permissionsHash: 'not-a-hash' });
  assert.equal(badHash.status, 400);
  assert.equal(badHash.json.error.code, 'KW_ERR_BAD_REQUEST');
});
