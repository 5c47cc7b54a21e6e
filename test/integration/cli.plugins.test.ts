/** `kowalski plugins`, `plugins grant|revoke NAME` as child processes on an embedded engine: listed, granted (audited as the user), revoked, unknown names refused. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { test } from 'node:test';
import { cli, stdoutJson } from '../../testkit/cli.js';
import { installExample } from '../support/plugin-home.js';
import { tempDir } from '../../testkit/tmp.js';

test('kowalski plugins lists, grants and revokes; an unknown plugin exits 2 with its code', async (t) => {
  const home = tempDir(t, 'kw-cli-plug-');
  const docs = fs.realpathSync(tempDir(t, 'kw-plug-docs-'));
  installExample(home, docs);

  const listed = await cli(home, ['plugins']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^hello\s+pending\s+1\.0\.0/m);
  assert.ok(listed.stdout.includes(`may read files in ${docs}`), listed.stdout);
  assert.match(listed.stdout, /tools: hello__greet, hello__word_count/);

  const granted = await cli(home, ['plugins', 'grant', 'hello', '--json']);
  assert.equal(granted.code, 0, granted.stderr);
  const view = stdoutJson<{ state: string; grantedBy: string }>(granted);
  assert.equal(view.state, 'granted');
  assert.equal(view.grantedBy, `${os.userInfo().username} (cli)`);
  assert.equal(stdoutJson<{ state: string }[]>(await cli(home, ['plugins', '--json']))[0]?.state, 'granted', 'the grant is kept');

  const revoked = await cli(home, ['plugins', 'revoke', 'hello']);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.match(revoked.stdout, /^hello\s+pending/m);

  const missing = await cli(home, ['plugins', 'grant', 'nope']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /KW_ERR_PLUGIN_NOT_FOUND/);
});
