/** Tool names as every provider accepts them, and back; two names that would travel as one are refused. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toolNameClash, toolWireName, wireNames } from '../../agents/index.js';
import { KowalskiError } from '../../core/index.js';

// What the real APIs accept: Anthropic `^[a-zA-Z0-9_-]{1,128}$`, OpenAI `^[a-zA-Z0-9_-]{1,64}$`,
// Gemini a letter or `_` first, then letters, digits, `_ . : -`, at most 64.
const ACCEPTED = {
  anthropic: /^[a-zA-Z0-9_-]{1,128}$/,
  openai: /^[a-zA-Z0-9_-]{1,64}$/,
  gemini: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/,
};

void test('a name every provider accepts is offered as it is', () => {
  for (const name of ['web_search', 'delegate_to_agent', 'hello__greet', 'a-b', '_x', 'x'.repeat(64)]) assert.equal(toolWireName(name), name);
});

void test('MCP names, odd characters, a leading digit and long names map to a name every provider accepts, deterministically', () => {
  assert.equal(toolWireName('files.read'), 'files__read');
  assert.equal(toolWireName('my server.look up!'), 'my_server__look_up_');
  assert.equal(toolWireName('1password.get'), '_1password__get');
  assert.equal(toolWireName('-x'), '_-x');
  const long = `srv.${'t'.repeat(100)}`;
  const wire = toolWireName(long);
  assert.equal(wire.length, 64);
  assert.equal(wire, toolWireName(long), 'the same name maps the same way every time');
  assert.notEqual(wire, toolWireName(`srv.${'t'.repeat(99)}u`), 'names that differ past the cut still differ');
  const odd = ['files.read', 'my server.look up!', '1password.get', '-x', long, 'ünïcode.tööl', 'a:b', 'x'.repeat(65), '.', ' '];
  for (const name of odd) {
    for (const [provider, accepted] of Object.entries(ACCEPTED)) assert.match(toolWireName(name), accepted, `${provider} accepts the form of ${JSON.stringify(name)}`);
  }
});

void test('wireNames maps each way; a name listed twice is one tool', () => {
  const { toWire, fromWire } = wireNames(['web_search', 'files.read', 'files.read']);
  assert.deepEqual([...toWire], [['web_search', 'web_search'], ['files.read', 'files__read']]);
  assert.deepEqual([...fromWire], [['web_search', 'web_search'], ['files__read', 'files.read']]);
});

void test('two names that would reach the model as one are a clash, named in the error', () => {
  assert.deepEqual(toolNameClash(['hello.greet', 'web_search', 'hello__greet']), { first: 'hello.greet', second: 'hello__greet', wire: 'hello__greet' });
  assert.deepEqual(toolNameClash(['a b', 'a_b'])?.wire, 'a_b');
  assert.equal(toolNameClash(['a.b', 'a.c', 'a.b']), undefined);
  assert.throws(() => wireNames(['hello.greet', 'hello__greet']), (err: unknown) => {
    assert.ok(err instanceof KowalskiError);
    assert.equal(err.code, 'KW_ERR_TOOL_NAME_CLASH');
    assert.match(err.message, /"hello\.greet" and "hello__greet" would both be offered to the model as "hello__greet"/);
    return true;
  });
});
