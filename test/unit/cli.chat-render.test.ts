/**
 * How `kowalski chat` prints a turn: root tokens after the agent's name, tool calls and
 * delegations on lines of their own indented by depth (a line in progress is ended
 * first), a delegation's own tool call not shown twice, a budget stop with what was left
 * undone; and a session's past turns.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TurnPrinter, historyText, paint, shortResult, shorten } from '../../bin/commands/chat-render.js';
import type { ChatEvent } from '../../bin/commands/chat-types.js';
import type { TurnView } from '../../engine/index.js';

const snapshot = (name: string) => ({ name, model: 'ollama:qwen2.5:7b', tools: [], prompt: `You are ${name}.` });
const usage = { calls: 3, toolCalls: 1, inputTokens: 10, outputTokens: 5, costUsd: 0 };

function printer(): { p: TurnPrinter; text: () => string } {
  let text = '';
  const out = { write: (s: string) => void (text += s) };
  return { p: new TurnPrinter({ answer: out, notes: out, prefix: true, paint: paint(false) }), text: () => text };
}

test('a turn prints as it happens: tokens, then tool calls and delegations indented by depth', () => {
  const { p, text } = printer();
  p.onToken({ node: 'r', agent: 'boss', text: 'Let me ' });
  p.onToken({ node: 'r', agent: 'boss', text: 'ask.' });
  const events: ChatEvent[] = [
    { type: 'tool.started', turn: 1, node: 'r', seq: 0, index: 0, name: 'delegate_to_agent', arguments: { agent: 'helper', task: 'count' }, idempotent: false },
    { type: 'delegation.started', turn: 1, node: 'r/0.0', parent: 'r', agent: snapshot('helper'), task: 'count\nto three' },
    { type: 'tool.started', turn: 1, node: 'r/0.0', seq: 0, index: 0, name: 'read_file', arguments: { path: 'x'.repeat(200) }, idempotent: true },
    { type: 'tool.finished', turn: 1, node: 'r/0.0', seq: 0, index: 0, result: '', error: { code: 'KW_ERR_TOOL_FAILED', message: 'no such file' } },
    { type: 'delegation.finished', turn: 1, node: 'r/0.0', text: 'three' },
    { type: 'tool.finished', turn: 1, node: 'r', seq: 0, index: 0, result: 'three' },
  ];
  for (const e of events) p.onEvent(e);
  p.onToken({ node: 'r/0.0', agent: 'helper', text: 'not shown' });
  p.onToken({ node: 'r', agent: 'boss', text: 'Three.' });
  p.end({ turn: 1, text: 'Three.', stop: 'budget_exhausted', usage, undone: [{ node: 'r', agent: 'boss', task: 'count to three' }], toolCalls: [], traceId: 1 }, 'type /continue to go on');
  const lines = text().split('\n');
  assert.equal(lines[0], 'boss> Let me ask.');
  assert.equal(lines[1], '  >> helper: count to three');
  assert.match(lines[2]!, /^ {4}\[read_file\] \{"path":"x+\.\.\.$/);
  assert.equal(lines[2]!.length, 4 + '[read_file] '.length + 80);
  assert.equal(lines[3], '    [read_file] failed: no such file [KW_ERR_TOOL_FAILED]');
  assert.equal(lines[4], '  << helper done');
  assert.equal(lines[5], 'boss> Three.');
  assert.deepEqual(lines.slice(6), [
    'the turn stopped: its budget is used up (3 model calls). Left undone:',
    '  - boss: count to three',
    'type /continue to go on',
    '',
  ]);
});

test('results and arguments are cut to one short line; colour only when asked', () => {
  assert.equal(shortResult('  \n'), '(empty)');
  assert.equal(shortResult('"." holds 1 entries:\n- a.txt (file, 6 bytes)'), '"." holds 1 entries: - a.txt (file, 6 bytes)');
  assert.equal(shorten('a'.repeat(100), 10), 'aaaaaaa...');
  assert.equal(paint(true).error('x'), '\u001b[31mx\u001b[39m');
  assert.equal(paint(false).error('x'), 'x');
});

test('past turns: the message, what was done (a delegation the stop cut: stopped, not done), the answer and a stop that was not done', () => {
  const turns: TurnView[] = [
    {
      turn: 1, text: 'hello', at: 0, agent: 'boss', budget: { limit: 2, used: 2 },
      items: [
        { kind: 'tool', node: 'r', agent: 'boss', name: 'list_dir', arguments: { path: '.' }, status: 'done', result: 'a\nb', at: 0 },
        { kind: 'delegation', node: 'r/2.0', parent: 'r', agent: 'helper', task: 'count', status: 'stopped', at: 0 },
      ],
      answer: { text: '', stop: 'budget_exhausted', usage, at: 1 },
    },
    { turn: 2, text: 'again', at: 2, agent: 'boss', budget: { limit: 2, used: 0 }, items: [] },
  ];
  assert.equal(historyText(turns, paint(false)), [
    'you> hello',
    '  [list_dir] {"path":"."} -> a b',
    '  >> helper: count stopped, not finished',
    '  (stopped: its budget of 2 model calls is used up)',
    'you> again',
    '  (under way)',
    '',
  ].join('\n'));
});
