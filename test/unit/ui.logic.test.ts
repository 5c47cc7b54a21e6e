/** The app's own logic, run here in Node: the run form checks the answers exactly as the server does, the graph is laid out by the edges, a chat's streamed text is kept per agent. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { InputField } from '../../core/index.js';
import { checkRunInput } from '../../engine/runs/run-input.js';
import { applyChatFrame, NO_STREAMS } from '../../ui/src/chat-stream.js';
import type { Streams } from '../../ui/src/chat-stream.js';
import { layoutGraph } from '../../ui/src/graph-layout.js';
import type { ChatFrame } from '../../ui/src/types.js';
import { answersToSend, checkInput, initialValues } from '../../ui/src/input-check.js';
import { miniHorde } from '../support/hordes.js';

const FIELDS: InputField[] = [
  { id: 'who', type: 'text', label: 'Who', required: true },
  { id: 'notes', type: 'textarea', label: 'Notes', required: false },
  { id: 'site', type: 'url', label: 'Site', required: false },
  { id: 'mood', type: 'choice', label: 'Mood', required: true, options: ['calm', 'busy'], default: 'calm' },
  { id: 'folder', type: 'path', label: 'Folder', required: false },
];

/** What the server says of the answers the form would send: the ids it names, or [] when it accepts them. */
function serverRejects(values: Record<string, string>): string[] {
  const horde = { ...miniHorde(['a']), id: 'form', inputs: FIELDS };
  try {
    checkRunInput(horde, answersToSend(FIELDS, values));
    return [];
  } catch (err) {
    return FIELDS.filter((f) => (err as Error).message.includes(`"${f.id}"`)).map((f) => f.id);
  }
}

describe('the run form', () => {
  const cases: [string, Record<string, string>][] = [
    ['the defaults and a name', { who: 'Ada' }],
    ['nothing at all', {}],
    ['only spaces for a required field', { who: '   ' }],
    ['an ftp URL', { who: 'Ada', site: 'ftp://example.com' }],
    ['an https URL', { who: 'Ada', site: 'https://example.com/x' }],
    ['a URL without a scheme', { who: 'Ada', site: 'example.com' }],
    ['a choice that is not an option', { who: 'Ada', mood: 'angry' }],
    ['an empty choice (the default applies)', { who: 'Ada', mood: '' }],
    ['only spaces for a required choice with a default', { who: 'Ada', mood: '  ' }],
    ['every field', { who: 'Ada', notes: 'a\nb', site: 'http://x.test', mood: 'busy', folder: '~/data' }],
  ];
  for (const [name, given] of cases) {
    test(`${name}: the form flags exactly what the server refuses`, () => {
      const values = { ...initialValues(FIELDS), ...given };
      assert.deepEqual(Object.keys(checkInput(FIELDS, values)).sort(), serverRejects(values).sort());
    });
  }

  test('empty optional answers are left out, so the server fills in defaults', () => {
    assert.deepEqual(answersToSend(FIELDS, { who: 'Ada', notes: '', mood: 'calm' }), { who: 'Ada', mood: 'calm' });
  });
});

describe('the horde graph', () => {
  test('steps are layered by the longest path of forward edges; a loop-back does not move them', () => {
    const h = miniHorde(['intake', 'tests', 'lint', 'summary', 'fix'], ['intake>tests', 'intake>lint', 'tests>summary', 'lint>summary', 'summary>fix', 'fix>tests:fail:2']);
    const g = layoutGraph(h.pipeline, h.edges);
    const layer = Object.fromEntries(g.nodes.map((n) => [n.name, n.layer]));
    assert.deepEqual(layer, { intake: 0, tests: 1, lint: 1, summary: 2, fix: 3 });
    const byName = new Map(g.nodes.map((n) => [n.name, n]));
    assert.notEqual(byName.get('tests')!.y, byName.get('lint')!.y, 'parallel steps are stacked, not drawn over each other');
    const back = g.edges.find((e) => e.back)!;
    assert.deepEqual([back.from, back.to, back.when], ['fix', 'tests', 'fail']);
    assert.ok(g.nodes.every((n) => n.x >= 0 && n.y >= 0 && n.x < g.width && n.y < g.height), 'every step inside the drawing');
  });
});

describe('the chat stream', () => {
  const token = (turn: number, node: string, agent: string, text: string): ChatFrame => ({ type: 'chat-token', sessionId: 'c1', turn, node, agent, text });
  const event = (type: string, turn: number, node?: string): ChatFrame =>
    ({ type: 'chat-event', sessionId: 'c1', seq: 1, at: 0, event: { type, turn, ...(node === undefined ? {} : { node }) }, state: 'running' });
  const play = (frames: ChatFrame[]): Streams => frames.reduce(applyChatFrame, NO_STREAMS);

  test('tokens build each agent\'s text apart; a node\'s next model call starts its text afresh, the others keep theirs', () => {
    const s = play([
      event('turn.started', 1), token(1, 'r', 'boss', 'Let me '), token(1, 'r', 'boss', 'ask.'),
      event('model.started', 1, 'r/1.0'), token(1, 'r/1.0', 'helper', 'one '), token(1, 'r/1.0', 'helper', 'two'),
      event('model.started', 1, 'r'), token(1, 'r', 'boss', 'Done'),
    ]);
    assert.deepEqual(s, { turn: 1, nodes: { 'r/1.0': { agent: 'helper', text: 'one two' }, r: { agent: 'boss', text: 'Done' } } });
  });

  test('a new turn, or more budget for a stopped one, starts every text afresh; a token of another turn replaces the old ones', () => {
    const before = play([token(1, 'r', 'boss', 'old')]);
    assert.deepEqual(applyChatFrame(before, event('budget.granted', 1)), { turn: 1, nodes: {} });
    assert.deepEqual(applyChatFrame(before, event('turn.started', 2)), { turn: 2, nodes: {} });
    assert.deepEqual(applyChatFrame(before, token(2, 'r', 'boss', 'new')), { turn: 2, nodes: { r: { agent: 'boss', text: 'new' } } });
    assert.equal(applyChatFrame(before, event('tool.started', 1, 'r')), before, 'other events change nothing');
  });
});
