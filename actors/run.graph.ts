/** Pure graph helpers over a run's edges (forward edges form a DAG in pipeline order). */
import type { EdgeDef } from '../core/index.js';
import type { RunGraph } from './run.events.js';

export function edgeMatches(edge: EdgeDef, outcome: 'pass' | 'fail'): boolean {
  return edge.when === 'always' || edge.when === outcome;
}

/** The steps no forward edge leads into: they start first (all of them, as in 1.x). */
export function roots(graph: RunGraph): string[] {
  const reached = new Set(graph.edges.filter((e) => !e.back).map((e) => e.to));
  return graph.pipeline.filter((name) => !reached.has(name));
}

export function incomingForward(graph: RunGraph, step: string): number[] {
  const out: number[] = [];
  graph.edges.forEach((e, i) => {
    if (!e.back && e.to === step) out.push(i);
  });
  return out;
}

export function outgoing(graph: RunGraph, step: string): number[] {
  const out: number[] = [];
  graph.edges.forEach((e, i) => {
    if (e.from === step) out.push(i);
  });
  return out;
}

function forwardReach(graph: RunGraph, start: string, reverse: boolean): Set<string> {
  const seen = new Set<string>([start]);
  const todo = [start];
  while (todo.length > 0) {
    const cur = todo.pop()!;
    for (const e of graph.edges) {
      if (e.back) continue;
      const [a, b] = reverse ? [e.to, e.from] : [e.from, e.to];
      if (a === cur && !seen.has(b)) {
        seen.add(b);
        todo.push(b);
      }
    }
  }
  return seen;
}

/** The steps a loop-back edge re-runs: those on a forward path from its target to its source (both included). */
export function loopBody(graph: RunGraph, edge: EdgeDef): Set<string> {
  const fromTarget = forwardReach(graph, edge.to, false);
  const toSource = forwardReach(graph, edge.from, true);
  const body = new Set<string>();
  for (const s of fromTarget) if (toSource.has(s)) body.add(s);
  return body;
}
