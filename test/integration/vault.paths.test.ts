/** Vault note names with C1 controls or bidirectional controls are refused (KW_ERR_VAULT_PATH) through the engine and the API; temp files of writes killed before their rename are swept when an engine starts on the folder. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { KowalskiError } from '../../core/index.js';
import { testEngine } from '../support/engine.js';
import { tempDir } from '../../testkit/tmp.js';

const origin = (key: string) => ({ sessionId: null, agent: null, traceId: null, callKey: key, by: 'cli' });

test('a note name holding a C1 control (U+0085 …) or a bidirectional control (U+202E …) is refused, and nothing is written', async (t) => {
  const engine = await testEngine(t);
  const names = ['a\u0085b.md', 'x/\u009bz.md', 'report\u202Edm.exe.md', 'in\u2066box.md', 'a\u200Fb.md', 'a\u061Cb.md', 'one\u2028two.md', 'del\u007f.md'];
  for (const [i, name] of names.entries()) {
    await assert.rejects(engine.vault.create(name, 'x', origin(`k${i}`)), (err: KowalskiError) => err.code === 'KW_ERR_VAULT_PATH' && /control/.test(err.message), JSON.stringify(name));
    assert.throws(() => engine.vault.read(name), (err: KowalskiError) => err.code === 'KW_ERR_VAULT_PATH', JSON.stringify(name));
  }
  assert.deepEqual(fs.readdirSync(engine.vault.root), []);
  assert.deepEqual(engine.vault.writes({}), []);
  // Letters of any script are names like any other.
  await engine.vault.create('notes/Überblick-日本-עברית.md', 'ok', origin('ok'));
  assert.equal(engine.vault.read('notes/Überblick-日本-עברית.md').content, 'ok');
});

test('the temp files of writes killed before their rename are removed when an engine starts; other files stay', async (t) => {
  const home = path.join(tempDir(t, 'kw-vault-'), 'home');
  const first = await testEngine(t, {}, home);
  await first.vault.create('projects/acme.md', '# Acme\n', origin('a'));
  const root = first.vault.root;
  await first.close();
  // What a write killed between writing its temp file and renaming it leaves (engine/vault/note-files.ts putNote).
  const orphans = [path.join(root, '.kw-note-0123456789ab.tmp'), path.join(root, 'projects', '.kw-note-cafebabe0042.tmp')];
  for (const o of orphans) fs.writeFileSync(o, '# half a note');
  const kept = [path.join(root, 'projects', 'draft.tmp'), path.join(root, '.kw-note-notours.tmp')];
  for (const k of kept) fs.writeFileSync(k, 'mine');

  const second = await testEngine(t, {}, home);
  assert.equal((await second.recover()).vault.swept, 2);
  for (const o of orphans) assert.equal(fs.existsSync(o), false, o);
  for (const k of kept) assert.equal(fs.readFileSync(k, 'utf8'), 'mine', k);
  assert.equal(second.vault.read('projects/acme.md').content, '# Acme\n');
});
