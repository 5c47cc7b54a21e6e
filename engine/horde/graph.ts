/**
 * The pipeline and its edges: validation, and the normalised edge list the run engine
 * follows (docs/edges.md states the same rules for horde authors).
 *
 * - An edge is **back** when `to` is at or before `from` in `pipeline`, else **forward**.
 * - `when` defaults to "always", which matches both outcomes.
 * - A back edge needs `when = "pass"|"fail"` and an integer `max_loops > 0`.
 * - Implicit edges: for each consecutive pair (pipeline[i], pipeline[i+1]), when the first
 *   has no written forward edge out and the second no written forward edge in, the edge
 *   `{from: pipeline[i], to: pipeline[i+1], when: 'pass', implicit: true}` is added.
 * - Then every step but pipeline[0] must have an incoming forward edge.
 */
import type { EdgeDef, EdgeWhen } from '../../core/index.js';
import { Fields, describe } from './fields.js';

/** What a step name may look like: it is also the file name `agents/<name>.md`. */
export const STEP_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const WHEN: readonly EdgeWhen[] = ['pass', 'fail', 'always'];

/**
 * Read and check `pipeline` from horde.md's root table. Returns the distinct, well-formed
 * step names in order (so later checks can go on), or undefined when there is no usable list.
 */
export function readPipeline(horde: Fields): string[] | undefined {
  if (!horde.has('pipeline')) {
    horde.problems.error('KW_ERR_KEY_MISSING', horde.at('pipeline'), 'pipeline is required: the list of step names, in order');
    horde.raw('pipeline');
    return undefined;
  }
  const names = horde.stringArray('pipeline');
  if (names === undefined) return undefined;
  if (names.length === 0) {
    horde.problems.error('KW_ERR_PIPELINE_EMPTY', horde.at('pipeline'), 'pipeline is empty: list at least one step');
    return undefined;
  }
  /** Each accepted name and where it was first written. */
  const first = new Map<string, number>();
  names.forEach((name, i) => {
    const key = `pipeline[${i}]`;
    if (!STEP_NAME.test(name)) {
      horde.bad(key, `step name "${name}" must start with a letter or digit and hold only letters, digits, _ . or - (it names agents/<name>.md)`);
    } else if (first.has(name)) {
      horde.problems.error('KW_ERR_PIPELINE_DUPLICATE', horde.at(key), `step "${name}" appears twice in pipeline (first at pipeline[${first.get(name)}])`);
    } else {
      first.set(name, i);
    }
  });
  return [...first.keys()];
}

/** Read `[[edges]]`, check them against `pipeline`, and return written + implicit edges. */
export function buildEdges(horde: Fields, pipeline: readonly string[]): EdgeDef[] {
  const pos = new Map(pipeline.map((name, i) => [name, i] as const));
  const written: EdgeDef[] = [];
  const seen = new Map<string, number>();
  for (const { table, index } of horde.tables('edges')) {
    const f = new Fields(table, horde.source, horde.problems, `edges[${index}]`);
    const edge = readEdge(f, index, pos, seen);
    if (edge !== undefined) written.push(edge);
  }

  const forward = written.filter((e) => !e.back);
  const hasOut = new Set(forward.map((e) => e.from));
  const hasIn = new Set(forward.map((e) => e.to));
  const implicit: EdgeDef[] = [];
  for (let i = 0; i + 1 < pipeline.length; i += 1) {
    const from = pipeline[i] as string;
    const to = pipeline[i + 1] as string;
    if (!hasOut.has(from) && !hasIn.has(to)) implicit.push({ from, to, when: 'pass', back: false, implicit: true });
  }
  const edges = [...written, ...implicit];
  const reached = new Set(edges.filter((e) => !e.back).map((e) => e.to));

  pipeline.forEach((name, i) => {
    if (i === 0 || reached.has(name)) return;
    horde.problems.error(
      'KW_ERR_STEP_UNREACHABLE',
      horde.at(`pipeline[${i}]`),
      `step "${name}" is not connected to the rest: no forward edge leads into it, so it would never run; add an edge from an earlier step (to = "${name}")`,
    );
  });
  return edges;
}

function readEdge(f: Fields, index: number, pos: ReadonlyMap<string, number>, seen: Map<string, number>): EdgeDef | undefined {
  const problems = f.problems;
  const from = f.string('from', { required: true });
  const to = f.string('to', { required: true });
  let known = from !== undefined && to !== undefined;
  for (const [key, name] of [['from', from], ['to', to]] as const) {
    if (name !== undefined && !pos.has(name)) {
      problems.error('KW_ERR_EDGE_UNKNOWN_STEP', f.at(key), `edge ${key} "${name}" is not a step in pipeline`);
      known = false;
    }
  }
  const whenWritten = f.has('when');
  const when = whenWritten ? f.oneOf('when', WHEN) : 'always';
  const maxLoops = f.raw('max_loops');
  if (!known || from === undefined || to === undefined) return undefined;
  if (from === to) {
    problems.error('KW_ERR_EDGE_SELF_LOOP', f.at('to'), `edge goes from "${from}" to itself; a step cannot follow itself`);
    return undefined;
  }
  const pair = `${from}\u0000${to}`;
  const first = seen.get(pair);
  if (first !== undefined) {
    problems.error('KW_ERR_EDGE_DUPLICATE', f.source.at(`edges[${index}]`), `a second edge from "${from}" to "${to}" (first: edges[${first}]); merge them into one`);
    return undefined;
  }
  seen.set(pair, index);
  if (when === undefined) return undefined; // a bad `when` value, already reported

  const back = (pos.get(to) ?? 0) <= (pos.get(from) ?? 0);
  if (!back) {
    if (maxLoops !== undefined) {
      problems.warn('KW_WARN_MAX_LOOPS_IGNORED', f.at('max_loops'), `max_loops has no effect on edge "${from}" → "${to}": it goes forward in pipeline order, so it cannot loop`);
    }
    return { from, to, when, back: false, implicit: false };
  }

  const why = `edge "${from}" → "${to}" goes back in pipeline order ("${to}" comes before "${from}"): either it is a loop-back edge, which needs when = "pass" or "fail" and max_loops > 0, or the pipeline order is wrong`;
  let ok = true;
  if (!whenWritten || when === 'always') {
    problems.error('KW_ERR_EDGE_LOOP_UNBOUNDED', f.at('when'), `${why}; when is ${whenWritten ? '"always"' : 'missing'}`);
    ok = false;
  }
  if (typeof maxLoops !== 'number' || !Number.isInteger(maxLoops) || maxLoops <= 0) {
    const has = maxLoops === undefined ? 'missing' : `${describe(maxLoops)}`;
    problems.error('KW_ERR_EDGE_LOOP_UNBOUNDED', f.at('max_loops'), `${why}; max_loops is ${has}`);
    ok = false;
  }
  if (!ok || typeof maxLoops !== 'number') return undefined;
  return { from, to, when, maxLoops, back: true, implicit: false };
}
