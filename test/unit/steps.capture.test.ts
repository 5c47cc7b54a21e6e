import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoundedCapture } from '../../steps/capture.js';

function capture(text: string, limit: number, chunkSizes: number[]): ReturnType<BoundedCapture['result']> {
  const c = new BoundedCapture(limit);
  const bytes = Buffer.from(text);
  let at = 0;
  let i = 0;
  while (at < bytes.length) {
    const size = chunkSizes[i % chunkSizes.length] ?? 1;
    c.push(bytes.subarray(at, at + size));
    at += size;
    i += 1;
  }
  return c.result();
}

test('output under the limit is kept whole, however it was chunked', () => {
  const text = 'hello\nworld\n';
  for (const sizes of [[1], [3, 5], [100]]) {
    assert.deepEqual(capture(text, 64, sizes), { text, totalBytes: 12, droppedBytes: 0 });
  }
});

test('output over the limit keeps the first and the last half, and counts what was dropped', () => {
  const text = Array.from({ length: 1000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
  for (const sizes of [[1], [7, 13, 1], [999], [2000]]) {
    const out = capture(text, 100, sizes);
    assert.equal(out.totalBytes, 1000);
    assert.equal(out.droppedBytes, 900);
    assert.equal(out.text, `${text.slice(0, 50)}\n[… 900 bytes dropped …]\n${text.slice(950)}`);
  }
});

test('a limit of zero keeps nothing but says how much there was', () => {
  assert.deepEqual(capture('abc', 0, [1]), { text: '\n[… 3 bytes dropped …]\n', totalBytes: 3, droppedBytes: 3 });
});
