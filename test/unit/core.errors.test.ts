/** Error codes are stable, documented, and cross boundaries as plain data. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { ERROR_CODES, KowalskiError, fromPlainError, toPlainError } from '../../core/index.js';

test('every error code is documented in docs/errors.md with its group', () => {
  const doc = fs.readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  for (const code of Object.keys(ERROR_CODES)) {
    assert.match(doc, new RegExp(`\\| \`${code}\` \\|`), `${code} is missing from docs/errors.md`);
  }
  const documented = [...doc.matchAll(/\| `(KW_[A-Z_]+)` \|/g)].map((m) => m[1]);
  for (const code of documented) assert.ok(code! in ERROR_CODES, `docs/errors.md lists ${code}, which no longer exists`);
});

test('codes are unique, prefixed and never empty', () => {
  for (const [code, spec] of Object.entries(ERROR_CODES)) {
    assert.match(code, /^KW_(ERR|WARN)_[A-Z0-9_]+$/);
    assert.ok(spec.summary.length > 10, code);
  }
});

test('an error crosses a boundary as plain data and comes back with its code, message and place', () => {
  const err = new KowalskiError('KW_ERR_KEY_VALUE', 'bad when', { where: { file: 'horde.md', key: 'edges[0].when', line: 7 } });
  const plain = toPlainError(err);
  const wire = JSON.parse(JSON.stringify(plain)) as typeof plain;
  const back = fromPlainError(wire);
  assert.equal(back.code, 'KW_ERR_KEY_VALUE');
  assert.equal(back.message, 'bad when');
  assert.deepEqual(back.where, { file: 'horde.md', key: 'edges[0].when', line: 7 });
  assert.equal(toPlainError(new Error('')).message.length > 0, true, 'a message is never empty');
  assert.equal(toPlainError('thrown string').code, 'KW_ERR_INTERNAL');
  assert.equal(toPlainError(new KowalskiError('KW_ERR_STEP_TIMEOUT', 't')).retryable, true);
});
