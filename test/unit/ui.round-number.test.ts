/** How the app rounds a data cell's number for display (the full value stays in its title and copy). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { roundForDisplay } from '../../ui/src/round-number.js';

describe('roundForDisplay', () => {
  test('whole numbers, and numbers that cannot be rounded, are shown as computed', () => {
    for (const n of [0, 7, -3, 1000000, 2 ** 53 + 2, 1e21, Number.NaN, Infinity, -Infinity]) assert.equal(roundForDisplay(n), String(n));
  });
  test('from 1 up: 2 decimals, trailing zeros dropped', () => {
    assert.equal(roundForDisplay(12345.678912), '12345.68');
    assert.equal(roundForDisplay(-1234.56789), '-1234.57');
    assert.equal(roundForDisplay(12345.5), '12345.5');
    assert.equal(roundForDisplay(2.0001), '2');
    assert.equal(roundForDisplay(1.5), '1.5');
  });
  test('below 1: 3 significant digits, so small values keep their size', () => {
    assert.equal(roundForDisplay(1 / 3), '0.333');
    assert.equal(roundForDisplay(0.1 + 0.2), '0.3');
    assert.equal(roundForDisplay(0.25), '0.25');
    assert.equal(roundForDisplay(-0.000123456), '-0.000123');
    assert.equal(roundForDisplay(1.23456e-9), '1.23e-9');
  });
});
