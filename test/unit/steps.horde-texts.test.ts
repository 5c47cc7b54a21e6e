/** The horde text a pool task carries: one key per distinct horde, so a thread parses each version once and never mixes two. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HordeDef } from '../../core/index.js';
import { HordeTexts } from '../../steps/hosts.js';

const horde = (hash: string, body = ''): HordeDef => ({ id: 'h', hash, body, steps: {} }) as unknown as HordeDef;

test('runs of one horde version share a key (a thread parses it once); another version or content gets its own', () => {
  const texts = new HordeTexts();
  const a = texts.textOf(horde('v1'));
  const b = texts.textOf(horde('v1'));
  assert.equal(a.key, b.key, 'two runs of the same version: one key');
  assert.equal(a.json, b.json);
  const c = texts.textOf(horde('v2'));
  assert.notEqual(c.key, a.key);
  const d = texts.textOf(horde('v1', 'a run folded from an older log: the same hash, other content'));
  assert.notEqual(d.key, a.key, 'the key follows the text, not the hash');
  assert.deepEqual(JSON.parse(d.json), horde('v1', 'a run folded from an older log: the same hash, other content'));
});
