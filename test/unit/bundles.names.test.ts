/** The entry-name rules of bundles: what is refused (and which rule says so), what is just a name, and what collides. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkEntryName, collisionKey, findCollision } from '../../bundles/index.js';

const ruleOf = (name: string): string => {
  const r = checkEntryName(name);
  assert.equal(r.ok, false, `${JSON.stringify(name)} should be refused`);
  return (r as { rule: string }).rule;
};

describe('entry names', () => {
  test('every spelling of zip-slip is refused, each with the rule it breaks', () => {
    assert.match(ruleOf('../x'), /"\.\." segment \(zip-slip\)/);
    assert.match(ruleOf('a/../../x'), /"\.\." segment/);
    assert.match(ruleOf('./../x'), /"\.\." segment/);
    assert.match(ruleOf('agents/..'), /"\.\." segment/);
    assert.match(ruleOf('/etc/x'), /absolute path/);
    assert.match(ruleOf('C:\\x'), /drive letter/);
    assert.match(ruleOf('C:/x'), /drive letter/);
    assert.match(ruleOf('c:x'), /drive letter/);
    assert.match(ruleOf('a\\..\\x'), /backslash/);
    assert.match(ruleOf('agents\\a.md'), /backslash/);
  });

  test('empty segments, dot segments, control characters and names Windows would alter are refused', () => {
    assert.match(ruleOf(''), /empty/);
    assert.match(ruleOf('a//b.md'), /empty segment/);
    assert.match(ruleOf('./horde.md'), /"\." segment/);
    assert.match(ruleOf('a\u0000b'), /NUL or control/);
    assert.match(ruleOf('a\nb.md'), /NUL or control/);
    assert.match(ruleOf('a\u007fb.md'), /NUL or control/);
    assert.match(ruleOf('horde\u200b.md'), /invisible or text-reordering/);
    assert.match(ruleOf('prompts/\u202egnp.md'), /invisible or text-reordering/);
    assert.match(ruleOf('horde.md:stream'), /Windows forbids/);
    assert.match(ruleOf('what?.md'), /Windows forbids/);
    assert.match(ruleOf('horde.md.'), /ends with a space or a dot/);
    assert.match(ruleOf('notes /a.md'), /ends with a space or a dot/);
    assert.match(ruleOf('data/CON.txt'), /reserved device name/);
    assert.match(ruleOf('.kowalski-import.json'), /hidden \(dot\)/);
    assert.match(ruleOf('.git/config'), /hidden \(dot\)/);
    assert.match(ruleOf(`${'a/'.repeat(20)}x.md`), /deeper than 16/);
    assert.match(ruleOf(`${'x'.repeat(401)}`), /longer than 400/);
  });

  test('URL-encoded dots are just a name: %2e%2e is a folder literally called %2e%2e, never decoded', () => {
    assert.deepEqual(checkEntryName('%2e%2e/x'), { ok: true, path: '%2e%2e/x', directory: false });
    assert.deepEqual(checkEntryName('%2E%2E%2Fx'), { ok: true, path: '%2E%2E%2Fx', directory: false });
  });

  test('ordinary files and folder entries pass; a folder entry loses its trailing slash', () => {
    assert.deepEqual(checkEntryName('horde.md'), { ok: true, path: 'horde.md', directory: false });
    assert.deepEqual(checkEntryName('prompts/deep/ask me.md'), { ok: true, path: 'prompts/deep/ask me.md', directory: false });
    assert.deepEqual(checkEntryName('agents/'), { ok: true, path: 'agents', directory: true });
    assert.deepEqual(checkEntryName('prompts/é.md'), { ok: true, path: 'prompts/é.md', directory: false });
  });
});

describe('collisions', () => {
  const files = (...paths: string[]) => paths.map((p) => ({ path: p, directory: false }));

  test('names equal after case folding or NFC normalisation collide; distinct names do not', () => {
    assert.equal(collisionKey('Agents/A.md'), collisionKey('agents/a.md'));
    assert.equal(collisionKey('e\u0301.md'), collisionKey('\u00e9.md'));
    assert.match(findCollision(files('agents/a.md', 'Agents/A.md'))!.rule, /collides with "agents\/a\.md"/);
    assert.equal(findCollision(files('prompts/\u00e9.md', 'prompts/e\u0301.md'))!.name, 'prompts/e\u0301.md');
    assert.equal(findCollision(files('agents/a.md', 'agents/b.md', 'horde.md')), undefined);
  });

  test('the same name twice, a name used as both file and folder, and one folder spelled two ways are refused', () => {
    assert.match(findCollision(files('horde.md', 'horde.md'))!.rule, /appears twice/);
    assert.match(findCollision(files('data', 'data/x.csv'))!.rule, /needs "data" to be a folder, but "data" is a file/);
    assert.match(findCollision(files('Agents/x.md', 'agents/y.md'))!.rule, /folder "agents" collides with "Agents"/);
    assert.equal(findCollision([{ path: 'agents', directory: true }, ...files('agents/a.md')]), undefined);
  });
});
