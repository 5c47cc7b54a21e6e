import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { EdgeDef } from '../../core/index.js';
import { loadHorde } from '../../engine/horde/index.js';
import { FIXTURES, expectError, expectOk, expectProblem, writeHorde } from '../fixtures/hordes/temp-horde.js';
import type { TempHorde } from '../fixtures/hordes/temp-horde.js';
import { cleanups } from '../../testkit/cleanup.js';

/** A horde of verify steps named by `pipeline`, with `edges` as TOML text after the pipeline line (line 3). */
function graph(pipeline: string[], edges = ''): TempHorde {
  const files: Record<string, string> = {
    'horde.md': `---\nid = "g"\npipeline = ${JSON.stringify(pipeline)}\n${edges}\n---\n`,
  };
  for (const name of new Set(pipeline)) files[`agents/${name}.md`] = `---\nname = "${name}"\nkind = "verify"\nverify_command = "true"\n---\n`;
  return writeHorde(files);
}

const edge = (from: string, to: string, when = '', maxLoops = ''): string =>
  `\n[[edges]]\nfrom = "${from}"\nto = "${to}"\n${when === '' ? '' : `when = "${when}"\n`}${maxLoops === '' ? '' : `max_loops = ${maxLoops}\n`}`;

function pairs(edges: EdgeDef[]): string[] {
  return edges.map((e) => `${e.from}->${e.to}:${e.when}${e.back ? ':back' : ''}${e.implicit ? ':implicit' : ''}${e.maxLoops === undefined ? '' : `:${e.maxLoops}`}`);
}

void test('several edges out fork, several in join; written edges are the whole graph', async () => {
  const { horde } = expectOk(await loadHorde(path.join(FIXTURES, 'fork-join')));
  assert.deepEqual(pairs(horde.edges), [
    'start->left:pass', 'start->right:pass', 'left->join:pass', 'right->join:pass', 'join->after:always',
  ]);
});

void test('no [[edges]] (or an empty list): a straight line whose edges mean "always", as in 1.x', async (t) => {
  const h = graph(['a', 'b', 'c']);
  cleanups(t)(h.cleanup);
  assert.deepEqual(pairs(expectOk(await loadHorde(h.dir)).horde.edges), ['a->b:always:implicit', 'b->c:always:implicit']);
  const e = graph(['a', 'b'], 'edges = []');
  cleanups(t)(e.cleanup);
  assert.deepEqual(pairs(expectOk(await loadHorde(e.dir)).horde.edges), ['a->b:always:implicit']);
  const one = graph(['only']);
  cleanups(t)(one.cleanup);
  assert.deepEqual(expectOk(await loadHorde(one.dir)).horde.edges, []);
});

void test('when defaults to "always"; it is trimmed and read in any case, with no warning', async (t) => {
  const h = graph(['a', 'b', 'c', 'd'], edge('a', 'b') + edge('b', 'c', ' FAIL ') + edge('c', 'd', 'Pass') + edge('d', 'b', ' Fail ', '2'));
  cleanups(t)(h.cleanup);
  const { horde, warnings } = expectOk(await loadHorde(h.dir));
  assert.deepEqual(warnings, []);
  assert.deepEqual(pairs(horde.edges), ['a->b:always', 'b->c:fail', 'c->d:pass', 'd->b:fail:back:2']);
  const empty = graph(['a', 'b'], edge('a', 'b', ' '));
  cleanups(t)(empty.cleanup);
  assert.deepEqual(pairs(expectOk(await loadHorde(empty.dir)).horde.edges), ['a->b:always'], 'an empty when is "always", as in 1.x');
});

void test('written edges add no chain: [x, a, b, c] with x -> a and b -> c has no a -> b', async (t) => {
  const h = graph(['x', 'a', 'b', 'c'], edge('x', 'a') + edge('b', 'c'));
  cleanups(t)(h.cleanup);
  assert.deepEqual(pairs(expectOk(await loadHorde(h.dir)).horde.edges), ['x->a:always', 'b->c:always']);
});

void test('[a, b, c] with a -> c and b -> c validates: a and b are both roots, c joins them', async (t) => {
  const h = graph(['a', 'b', 'c'], edge('a', 'c') + edge('b', 'c'));
  cleanups(t)(h.cleanup);
  assert.deepEqual(pairs(expectOk(await loadHorde(h.dir)).horde.edges), ['a->c:always', 'b->c:always']);
});

void test('with written edges, a step that no edge names is not connected (1.x refuses it too)', async (t) => {
  const h = graph(['a', 'b', 'c', 'd'], edge('a', 'c') + edge('c', 'd'));
  cleanups(t)(h.cleanup);
  const p = expectError(await loadHorde(h.dir), { code: 'KW_ERR_STEP_UNREACHABLE', file: 'horde.md', key: 'pipeline[1]', line: 3 });
  assert.match(p.message, /"b" is not connected to the rest: \[\[edges\]\] are written, so they are the whole graph/);

  // A 1.x horde that writes only its loop-back edge leaves the other steps unconnected.
  const loop = graph(['a', 'b', 'c', 'd'], edge('c', 'b', 'fail', '2'));
  cleanups(t)(loop.cleanup);
  const r = await loadHorde(loop.dir);
  expectError(r, { code: 'KW_ERR_STEP_UNREACHABLE', file: 'horde.md', key: 'pipeline[0]' });
  expectError(r, { code: 'KW_ERR_STEP_UNREACHABLE', file: 'horde.md', key: 'pipeline[3]' });
});

void test('a back edge without when, or with when = "always", is unbounded; the message explains both readings', async (t) => {
  const h = graph(['a', 'b', 'c'], edge('c', 'a', '', '2'));
  cleanups(t)(h.cleanup);
  const p = expectError(await loadHorde(h.dir), { code: 'KW_ERR_EDGE_LOOP_UNBOUNDED', file: 'horde.md', key: 'edges[0].when' });
  assert.match(p.message, /goes back in pipeline order/);
  assert.match(p.message, /loop-back edge.*or the pipeline order is wrong/);

  const h2 = graph(['a', 'b', 'c'], edge('c', 'a', 'always', '2'));
  cleanups(t)(h2.cleanup);
  expectError(await loadHorde(h2.dir), { code: 'KW_ERR_EDGE_LOOP_UNBOUNDED', file: 'horde.md', key: 'edges[0].when', line: 8 });
});

void test('a back edge needs an integer max_loops > 0', async (t) => {
  for (const value of ['', '0', '-1', '1.5', '"3"']) {
    const h = graph(['a', 'b', 'c'], edge('c', 'b', 'pass', value));
    cleanups(t)(h.cleanup);
    expectError(await loadHorde(h.dir), { code: 'KW_ERR_EDGE_LOOP_UNBOUNDED', file: 'horde.md', key: 'edges[0].max_loops' });
  }
});

void test('an edge to a step at the same position or before is back: a wrong pipeline order is caught', async (t) => {
  // The author meant b -> a as a forward edge, but pipeline lists a first.
  const h = graph(['a', 'b'], edge('b', 'a', 'pass'));
  cleanups(t)(h.cleanup);
  expectError(await loadHorde(h.dir), { code: 'KW_ERR_EDGE_LOOP_UNBOUNDED', file: 'horde.md', key: 'edges[0].max_loops' });
});

void test('max_loops on a forward edge is a warning and is dropped', async (t) => {
  const h = graph(['a', 'b'], edge('a', 'b', 'pass', '3'));
  cleanups(t)(h.cleanup);
  const r = await loadHorde(h.dir);
  expectProblem(r, { code: 'KW_WARN_MAX_LOOPS_IGNORED', file: 'horde.md', key: 'edges[0].max_loops', line: 9, severity: 'warning' });
  assert.deepEqual(pairs(expectOk(r).horde.edges), ['a->b:pass']);
});

void test('edge errors: unknown step, self-loop, duplicate pair, bad when, missing from', async (t) => {
  const cases: [string, string, string][] = [
    [edge('a', 'zz'), 'KW_ERR_EDGE_UNKNOWN_STEP', 'edges[0].to'],
    [edge('zz', 'b'), 'KW_ERR_EDGE_UNKNOWN_STEP', 'edges[0].from'],
    [edge('b', 'b', 'fail', '1'), 'KW_ERR_EDGE_SELF_LOOP', 'edges[0].to'],
    [edge('a', 'b', 'pass') + edge('a', 'b', 'fail'), 'KW_ERR_EDGE_DUPLICATE', 'edges[1]'],
    [edge('a', 'b', 'maybe'), 'KW_ERR_KEY_VALUE', 'edges[0].when'],
    ['\n[[edges]]\nto = "b"\n', 'KW_ERR_KEY_MISSING', 'edges[0].from'],
  ];
  for (const [toml, code, key] of cases) {
    const h = graph(['a', 'b'], toml);
    cleanups(t)(h.cleanup);
    expectError(await loadHorde(h.dir), { code, file: 'horde.md', key });
  }
});

void test('pipeline errors: empty, duplicate names, a name that is no file name', async (t) => {
  const empty = writeHorde({ 'horde.md': '---\nid = "g"\npipeline = []\n---\n' });
  cleanups(t)(empty.cleanup);
  expectError(await loadHorde(empty.dir), { code: 'KW_ERR_PIPELINE_EMPTY', file: 'horde.md', key: 'pipeline', line: 3 });

  const dup = graph(['a', 'b', 'a']);
  cleanups(t)(dup.cleanup);
  const p = expectError(await loadHorde(dup.dir), { code: 'KW_ERR_PIPELINE_DUPLICATE', file: 'horde.md', key: 'pipeline[2]', line: 3 });
  assert.match(p.message, /"a" appears twice/);

  const odd = writeHorde({ 'horde.md': '---\nid = "g"\npipeline = ["../x"]\n---\n' });
  cleanups(t)(odd.cleanup);
  expectError(await loadHorde(odd.dir), { code: 'KW_ERR_KEY_VALUE', file: 'horde.md', key: 'pipeline[0]' });
});

void test('a back edge to pipeline[0] and a second loop both load with their caps', async (t) => {
  const h = graph(['a', 'b', 'c'], edge('c', 'a', 'fail', '1') + edge('b', 'a', 'pass', '5') + edge('a', 'b', 'pass') + edge('b', 'c'));
  cleanups(t)(h.cleanup);
  assert.deepEqual(pairs(expectOk(await loadHorde(h.dir)).horde.edges), [
    'c->a:fail:back:1', 'b->a:pass:back:5', 'a->b:pass', 'b->c:always',
  ]);
});
