/** `kowalski doctor`'s file modes: the folder of MCP sign-ins (`secrets/`) open to others is a warning with its fix. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { checkDataDir } from '../../bin/doctor/local.js';
import { tempDir } from '../../testkit/tmp.js';

test('a secrets/ folder open to others is a file-modes warning naming chmod; owner-only is quiet', (t) => {
  const dir = tempDir(t, 'kw-doctor-modes-');
  fs.chmodSync(dir, 0o700);
  const secrets = path.join(dir, 'secrets');
  fs.mkdirSync(secrets, { mode: 0o700 });
  assert.deepEqual(checkDataDir(dir).filter((c) => c.name === 'file modes'), []);
  fs.chmodSync(secrets, 0o755);
  const [found] = checkDataDir(dir).filter((c) => c.name === 'file modes');
  assert.equal(found?.status, 'warn');
  assert.match(found?.detail ?? '', /secrets holds sign-ins \(MCP servers' tokens\) and is open to others \(mode 0?755\)/);
  assert.equal(found?.fix, `chmod -R go-rwx ${secrets}`);
});
