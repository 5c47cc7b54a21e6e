/**
 * The pipeline and its edges: validation, and the normalised edge list the run engine
 * follows (docs/edges.md states the same rules for horde authors). As in 1.x:
 *
 * - No `[[edges]]` (or an empty list): a straight line in pipeline order, the edge
 *   `{from: pipeline[i], to: pipeline[i+1], when: 'always', implicit: true}` for each pair.
 * - Written `[[edges]]`: they are the whole graph, nothing is added. Every step with no
 *   incoming forward edge is a root and starts first.
 * - An edge is **back** when `to` is at or before `from` in `pipeline`, else **forward**.
 * - `when` is trimmed and read in any case; missing or empty means "always", which
 *   matches both outcomes.
 * - A back edge needs `when = "pass"|"fail"` and an integer `max_loops > 0`.
 * - With more than one step, a step that no edge names at all is refused (1.x refuses it
 *   too: "not connected by any edge").
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

/** Read `[[edges]]` and check them against `pipeline`: the written edges, or the implicit straight line when none are written. */
export function buildEdges(horde: Fields, pipeline: readonly string[]): EdgeDef[] {
  const pos = new Map(pipeline.map((name, i) => [name, i] as const));
  const tables = horde.tables('edges');
  if (tables.length === 0) return chain(pipeline);
  const written: EdgeDef[] = [];
  const seen = new Map<string, number>();
  for (const { table, index } of tables) {
    const f = new Fields(table, horde.source, horde.problems, `edges[${index}]`);
    const edge = readEdge(f, index, pos, seen);
    if (edge !== undefined) written.push(edge);
  }
  if (written.length < tables.length || pipeline.length < 2) return written;
  const named = new Set(written.flatMap((e) => [e.from, e.to]));
  pipeline.forEach((name, i) => {
    if (named.has(name)) return;
    horde.problems.error(
      'KW_ERR_STEP_UNREACHABLE',
      horde.at(`pipeline[${i}]`),
      `step "${name}" is not connected to the rest: [[edges]] are written, so they are the whole graph, and none names "${name}"; add an edge from or to it (as in 1.x)`,
    );
  });
  return written;
}

/** The straight line of a horde without `[[edges]]`: each step to the next, `always`, as in 1.x. */
function chain(pipeline: readonly string[]): EdgeDef[] {
  return pipeline.slice(1).map((to, i) => ({ from: pipeline[i]!, to, when: 'always', back: false, implicit: true }));
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
  const whenRaw = f.raw('when');
  const whenWritten = whenRaw !== undefined && !(typeof whenRaw === 'string' && whenRaw.trim() === '');
  const when = whenWritten ? readWhen(f) : 'always';
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

/** `when`, trimmed and in any case (`" Fail "` is `fail`, as in 1.x); any other value is an error naming the three. */
function readWhen(f: Fields): EdgeWhen | undefined {
  const raw = f.string('when');
  if (raw === undefined) return undefined;
  const v = raw.trim().toLowerCase();
  if ((WHEN as readonly string[]).includes(v)) return v as EdgeWhen;
  f.bad('when', `when is "${raw}"; it must be one of ${WHEN.map((a) => `"${a}"`).join(', ')} (any case)`);
  return undefined;
}
