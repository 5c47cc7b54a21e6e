/** Tool-call arguments as they arrive → arguments, argumentsError, rawArguments; never a throw. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseToolArguments } from '../../agents/providers/index.js';

test('an object is taken as is; JSON text of an object is parsed; empty text is no arguments', () => {
  assert.deepEqual(parseToolArguments({ path: 'a.csv' }), { arguments: { path: 'a.csv' } });
  assert.deepEqual(parseToolArguments('{"path": "a.csv", "n": 2}'), { arguments: { path: 'a.csv', n: 2 } });
  assert.deepEqual(parseToolArguments('  '), { arguments: {} });
});

test('text that is not JSON, or JSON that is not an object, gives {} with the error and the raw text', () => {
  const broken = parseToolArguments('{"path": ');
  assert.deepEqual(broken.arguments, {});
  assert.equal(broken.rawArguments, '{"path": ');
  assert.match(broken.argumentsError ?? '', /^the arguments are not valid JSON \(/);
  for (const [text, kind] of [['[1, 2]', 'an array'], ['"a.csv"', 'a string'], ['null', 'null'], ['3', 'a number']]) {
    assert.deepEqual(parseToolArguments(text), { arguments: {}, argumentsError: `the arguments must be a JSON object, not ${kind}`, rawArguments: text });
  }
});

test('a value that is neither object nor text (a provider sent an array) is kept as JSON in rawArguments', () => {
  assert.deepEqual(parseToolArguments(['a.csv']), { arguments: {}, argumentsError: 'the arguments must be a JSON object, not an array', rawArguments: '["a.csv"]' });
  assert.deepEqual(parseToolArguments(null), { arguments: {}, argumentsError: 'the arguments must be a JSON object, not null', rawArguments: 'null' });
});
