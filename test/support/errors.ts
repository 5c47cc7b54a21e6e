/** Assertions on the errors users see. */
import assert from 'node:assert/strict';
import { KowalskiError } from '../../core/index.js';

/** For `assert.rejects` / `assert.throws`: a KowalskiError with this code whose message mentions each of `includes`. */
export function code(expected: string, includes: string[] = []): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof KowalskiError, `expected a KowalskiError, got ${String(err)}`);
    assert.equal(err.code, expected, err.message);
    for (const s of includes) assert.ok(err.message.includes(s), `"${err.message}" should mention ${s}`);
    return true;
  };
}
