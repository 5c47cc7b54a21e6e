/** Our messages → Anthropic's: system apart, tool results as user blocks, same-role turns merged, no empty text blocks. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toAnthropicMessages } from '../../agents/providers/anthropic.js';

test('two tool results and the next user words form one user turn after the assistant\'s two calls', () => {
  const out = toAnthropicMessages([
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Compare a and b.' },
    { role: 'assistant', content: 'Reading both.', toolCalls: [
      { id: 'toolu_a', name: 'read_file', arguments: { path: 'a' } },
      { id: 'toolu_b', name: 'read_file', arguments: {}, argumentsError: 'not JSON', rawArguments: '{' },
    ] },
    { role: 'tool', toolCallId: 'toolu_a', toolName: 'read_file', content: 'A' },
    { role: 'tool', toolCallId: 'toolu_b', toolName: 'read_file', content: 'bad arguments', isError: true },
    { role: 'user', content: 'Also be polite.' },
    { role: 'system', content: 'Answer in English.' },
  ]);
  assert.equal(out.system, 'Be brief.\n\nAnswer in English.');
  assert.deepEqual(out.messages, [
    { role: 'user', content: [{ type: 'text', text: 'Compare a and b.' }] },
    { role: 'assistant', content: [
      { type: 'text', text: 'Reading both.' },
      { type: 'tool_use', id: 'toolu_a', name: 'read_file', input: { path: 'a' } },
      { type: 'tool_use', id: 'toolu_b', name: 'read_file', input: {} },
    ] },
    { role: 'user', content: [
      { type: 'tool_result', tool_use_id: 'toolu_a', content: 'A' },
      { type: 'tool_result', tool_use_id: 'toolu_b', content: 'bad arguments', is_error: true },
      { type: 'text', text: 'Also be polite.' },
    ] },
  ]);
});

test('no system message means no system field; an empty assistant turn is dropped', () => {
  const out = toAnthropicMessages([{ role: 'user', content: 'hi' }, { role: 'assistant', content: '' }, { role: 'user', content: 'there?' }]);
  assert.equal(out.system, undefined);
  assert.deepEqual(out.messages, [{ role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'text', text: 'there?' }] }]);
});
