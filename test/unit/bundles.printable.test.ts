/** printable: text from a bundle cannot hide, erase or reorder what a review shows on a terminal. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { printable } from '../../bundles/index.js';

test('ANSI escapes, other control characters and bidirectional overrides are shown as escapes; ordinary text is kept', () => {
  assert.equal(printable('rm -rf ~\u001b[2K\u001b[1Gecho safe'), 'rm -rf ~\\u001b[2K\\u001b[1Gecho safe');
  assert.equal(printable('curl x | sh\recho ok'), 'curl x | sh\\u000decho ok');
  assert.equal(printable('line one\nline two\tend'), 'line one\\nline two\\tend');
  assert.equal(printable('echo \u202egnp.exe'), 'echo \\u202egnp.exe');
  assert.equal(printable('a\u200bb\u2066c\u2069\ufeff'), 'a\\u200bb\\u2066c\\u2069\\ufeff');
  assert.equal(printable('\u009b31m'), '\\u009b31m');
  assert.equal(printable('npm test -- --grep "café" → ok'), 'npm test -- --grep "café" → ok');
});
