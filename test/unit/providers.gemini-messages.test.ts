/** Our messages → Gemini's contents: system apart, `model` turns, function responses merged into one user turn, thought signatures kept. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SKIP_SIGNATURE, toGeminiContents, toGeminiTools } from '../../agents/providers/gemini-messages.js';

test('a signed call keeps its signature; an unsigned turn gets the skip value on its first call only', () => {
  const out = toGeminiContents([
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Compare a and b.' },
    { role: 'assistant', content: '', toolCalls: [
      { id: 'call_1', name: 'read_file', arguments: { path: 'a' }, signature: 'sig-a' },
      { id: 'call_2', name: 'read_file', arguments: { path: 'b' } },
    ] },
    { role: 'tool', toolCallId: 'call_1', toolName: 'read_file', content: 'A' },
    { role: 'tool', toolCallId: 'call_2', toolName: 'read_file', content: 'no such file', isError: true },
    { role: 'assistant', content: 'One more.', toolCalls: [
      { id: 'toolu_x', name: 'list', arguments: {} },
      { id: 'toolu_y', name: 'list', arguments: {} },
    ] },
    { role: 'system', content: 'Answer in English.' },
  ]);
  assert.equal(out.systemInstruction, 'Be brief.\n\nAnswer in English.');
  assert.deepEqual(out.contents, [
    { role: 'user', parts: [{ text: 'Compare a and b.' }] },
    { role: 'model', parts: [
      { functionCall: { id: 'call_1', name: 'read_file', args: { path: 'a' } }, thoughtSignature: 'sig-a' },
      { functionCall: { id: 'call_2', name: 'read_file', args: { path: 'b' } } },
    ] },
    { role: 'user', parts: [
      { functionResponse: { id: 'call_1', name: 'read_file', response: { output: 'A' } } },
      { functionResponse: { id: 'call_2', name: 'read_file', response: { error: 'no such file' } } },
    ] },
    { role: 'model', parts: [
      { text: 'One more.' },
      { functionCall: { id: 'toolu_x', name: 'list', args: {} }, thoughtSignature: SKIP_SIGNATURE },
      { functionCall: { id: 'toolu_y', name: 'list', args: {} } },
    ] },
  ]);
});

test('no system message, no systemInstruction; no tools, no tools field', () => {
  const out = toGeminiContents([{ role: 'user', content: 'hi' }, { role: 'assistant', content: '' }, { role: 'user', content: 'there?' }]);
  assert.equal(out.systemInstruction, undefined);
  assert.deepEqual(out.contents, [{ role: 'user', parts: [{ text: 'hi' }, { text: 'there?' }] }]);
  assert.equal(toGeminiTools([]), undefined);
  assert.equal(toGeminiTools(undefined), undefined);
});
