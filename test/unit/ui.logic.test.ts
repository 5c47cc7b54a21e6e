/** The app's own logic, run here in Node: the run form checks the answers exactly as the server does, and the graph is laid out by the edges. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { InputField } from '../../core/index.js';
import { checkRunInput } from '../../engine/run-input.js';
import { layoutGraph } from '../../ui/src/graph-layout.js';
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
