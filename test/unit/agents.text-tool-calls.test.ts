import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTextToolCall, textToolInstructions } from '../../agents/text-tool-calls.js';

const offered = new Set(['read_file', 'web_fetch']);
const parse = (text: string): ReturnType<typeof parseTextToolCall> => parseTextToolCall(text, 'call_1', offered);

test('a whole reply that is one <tool_call> block is a call, with its arguments', () => {
  const r = parse('<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>');
  assert.deepEqual(r, { kind: 'call', call: { id: 'call_1', name: 'read_file', arguments: { path: 'a.txt' } } });
  // Inside a code fence, and with `parameters` (a spelling small models use), too.
  const fenced = parse('```\n<tool_call>{"name": "web_fetch", "parameters": {"url": "https://x.example"}}</tool_call>\n```');
  assert.equal(fenced.kind, 'call');
  assert.deepEqual(fenced.kind === 'call' && fenced.call.arguments, { url: 'https://x.example' });
});

test('a bare JSON object is a call only when it names a tool this step offers', () => {
  assert.equal(parse('{"name": "read_file", "arguments": {"path": "x"}}').kind, 'call');
  assert.equal(parse('```json\n{"name": "read_file", "arguments": {"path": "x"}}\n```').kind, 'call');
  assert.deepEqual(parse('{"name": "write_file", "arguments": {"path": "x"}}'), { kind: 'answer' });
  assert.deepEqual(parse('{"total": 12, "name": "Q3"}'), { kind: 'answer' });
});

test('a reply that tries to call a tool but breaks the format is malformed, with what was wrong', () => {
  const cases: Array<[string, RegExp]> = [
    ['<tool_call>{"name": "read_file", "arguments": {"path": }</tool_call>', /not valid JSON/],
    ['<tool_call>{"name": "read_file", "arguments": "a.txt"}</tool_call>', /"arguments" of read_file must be a JSON object/],
    ['<tool_call>["read_file"]</tool_call>', /"name" string/],
    ['<tool_call>{"name": "read_file", "arguments": {}, "why": 1}</tool_call>', /unknown keys: why/],
    ['I will read it.\n<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>', /the whole reply/],
    ['<tool_call>{"name": "read_file", "arguments": {"path": "a"}}', /the whole reply/],
    ['<tool_call>{"name": "read_file", "arguments": {}}<tool_call>{"name": "x"}</tool_call>', /one <tool_call> block/],
  ];
  for (const [text, why] of cases) {
    const r = parse(text);
    assert.equal(r.kind, 'malformed', text);
    assert.match(r.kind === 'malformed' ? r.call.argumentsError ?? '' : '', why, text);
  }
});

test('ordinary answers, including ones that mention tools, are answers', () => {
  for (const text of ['# Report\n\nAll good.', 'Use the read_file tool next time.', '', '{"name": "read_file"} is what the file says']) {
    assert.deepEqual(parse(text), { kind: 'answer' }, text);
  }
});

test('the instructions list each tool with its schema and show the exact format', () => {
  const text = textToolInstructions([{ name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }]);
  assert.match(text, /- read_file: Read a file\.\n {2}arguments \(JSON Schema\): \{"type":"object"/);
  assert.match(text, /<tool_call>\n\{"name": "<tool name>", "arguments": \{<the arguments as JSON>\}\}\n<\/tool_call>/);
});
