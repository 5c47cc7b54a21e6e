/** The vault over HTTP, through a real engine and API (inject()): the notes, one note with its writes, the audit, one write's diff, revert (200, 409 with the diff, 404, 400). */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { testApi } from '../support/api.js';

const origin = (key: string) => ({ sessionId: null, agent: null, traceId: null, callKey: key, by: 'cli' });

test('notes, one note with its writes newest first, the audit filtered and paged, one write with its diff', async (t) => {
  const api = await testApi(t);
  const v = api.engine.vault;
  await v.create('projects/acme.md', '# Acme\n', origin('a'));
  await v.append('projects/acme.md', 'Signed.\n', origin('b'));
  await v.create('inbox.md', 'todo', origin('c'));

  const notes = await api.call('GET', '/api/vault/notes');
  assert.equal(notes.status, 200);
  assert.deepEqual(notes.json.notes.map((n: any) => [n.path, n.title, n.size_bytes]), [['inbox.md', 'inbox', 4], ['projects/acme.md', 'Acme', 15]]);
  assert.deepEqual((await api.call('GET', '/api/vault/notes?under=projects')).json.notes.map((n: any) => n.path), ['projects/acme.md']);

  const note = await api.call('GET', `/api/vault/note?path=${encodeURIComponent('projects/acme.md')}`);
  assert.equal(note.status, 200);
  assert.deepEqual(Object.keys(note.json).sort(), ['content', 'note', 'writes']);
  assert.equal(note.json.content, '# Acme\nSigned.\n');
  assert.deepEqual(note.json.writes.map((w: any) => [w.writeId, w.op]), [[2, 'append'], [1, 'create']]);

  assert.deepEqual((await api.call('GET', '/api/writes')).json.writes.map((w: any) => w.writeId), [3, 2, 1]);
  assert.deepEqual((await api.call('GET', '/api/writes?path=projects/acme.md&limit=1')).json.writes.map((w: any) => w.writeId), [2]);
  assert.deepEqual((await api.call('GET', '/api/writes?before=3')).json.writes.map((w: any) => w.writeId), [2, 1]);

  const one = await api.call('GET', '/api/writes/2');
  assert.equal(one.status, 200);
  assert.equal(one.json.write.content, 'Signed.\n');
  assert.match(one.json.diff, /^\+Signed\.$/m);

  const missing = await api.call('GET', '/api/vault/note?path=none.md');
  assert.deepEqual([missing.status, missing.json.error.code], [404, 'KW_ERR_VAULT_NOT_FOUND']);
  const escape = await api.call('GET', `/api/vault/note?path=${encodeURIComponent('../config.toml')}`);
  assert.deepEqual([escape.status, escape.json.error.code], [400, 'KW_ERR_VAULT_PATH']);
  const badLimit = await api.call('GET', '/api/writes?limit=0');
  assert.deepEqual([badLimit.status, badLimit.json.error.code], [400, 'KW_ERR_BAD_REQUEST']);
  assert.deepEqual([(await api.call('GET', '/api/writes/99')).status, (await api.call('GET', '/api/writes/x')).status], [404, 400]);
});

test('revert: 200 with the revert row; 409 with the diff when the note changed; 409 when reverted already; 404 for an unknown write', async (t) => {
  const api = await testApi(t);
  const v = api.engine.vault;
  await v.create('a.md', 'one\n', origin('a'));
  await v.append('a.md', 'two\n', origin('b'));

  const ok = await api.call('POST', '/api/writes/2/revert', { by: 'app' });
  assert.equal(ok.status, 200);
  assert.deepEqual([ok.json.write.op, ok.json.write.reverts, ok.json.write.by, ok.json.write.bytesAfter], ['revert', 2, 'app', 4]);
  assert.equal(fs.readFileSync(path.join(v.root, 'a.md'), 'utf8'), 'one\n');
  const again = await api.call('POST', '/api/writes/2/revert');
  assert.deepEqual([again.status, again.json.error.code], [409, 'KW_ERR_VAULT_NOT_REVERTIBLE']);

  fs.writeFileSync(path.join(v.root, 'a.md'), 'one, edited by hand\n');
  const conflict = await api.call('POST', '/api/writes/1/revert', {});
  assert.equal(conflict.status, 409);
  assert.equal(conflict.json.error.code, 'KW_ERR_VAULT_CONFLICT');
  assert.match(conflict.json.error.message, /is no longer exactly what it created/);
  assert.match(conflict.json.error.diff, /^-one$/m);
  assert.match(conflict.json.error.diff, /^\+one, edited by hand$/m);
  assert.equal(fs.readFileSync(path.join(v.root, 'a.md'), 'utf8'), 'one, edited by hand\n');

  assert.deepEqual([(await api.call('POST', '/api/writes/42/revert')).status, (await api.call('POST', '/api/writes/1/revert', { by: 'agent' })).status], [404, 400]);
});
