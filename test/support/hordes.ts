/** Build HordeDef values in code for tests of the machine and the engine. */
import type { EdgeDef, HordeDef, StepDef } from '../../core/index.js';

export interface MiniStep {
  kind?: string;
  verifyCommand?: string;
  isolation?: 'in_process' | 'process';
  timeoutSecs?: number;
  output?: string;
}

/** Edges written as `a>b`, `a>b:fail`, `c>a:fail:2` (a loop-back with max_loops 2). No edges: the straight line of `always` edges the loader makes; written ones are the whole graph, as the loader reads them. */
export function miniHorde(pipeline: string[], edges: string[] = [], steps: Record<string, MiniStep> = {}, extra: Partial<HordeDef> = {}): HordeDef {
  const index = new Map(pipeline.map((s, i) => [s, i]));
  const written: EdgeDef[] = edges.map((spec) => {
    const [pair, when = 'always', loops] = spec.split(':');
    const [from, to] = pair!.split('>') as [string, string];
    const back = index.get(to)! <= index.get(from)!;
    const e: EdgeDef = { from, to, when: (back && when === 'always' ? 'fail' : when) as EdgeDef['when'], back, implicit: false };
    if (loops !== undefined) e.maxLoops = Number(loops);
    return e;
  });
  const all = written.length > 0 ? written : pipeline.slice(1).map((to, i): EdgeDef => ({ from: pipeline[i]!, to, when: 'always', back: false, implicit: true }));
  const defs: Record<string, StepDef> = {};
  for (const name of pipeline) {
    const m = steps[name] ?? {};
    const def: StepDef = {
      name, kind: m.kind ?? 'noop', file: `agents/${name}.md`, displayName: name, output: m.output ?? `${name}.md`,
      context: [], tools: [], isolation: m.isolation ?? 'in_process', inputs: [], body: '', extra: {},
    };
    if (m.verifyCommand !== undefined) def.verifyCommand = m.verifyCommand;
    if (m.timeoutSecs !== undefined) def.timeoutSecs = m.timeoutSecs;
    defs[name] = def;
  }
  return {
    id: 'mini', displayName: 'mini', description: '', pipeline, steps: defs, edges: all, triggers: [], confirmCommands: true,
    workdir: 'output', deliveryRootRel: 'HANDOFF.md', display: {}, inputs: [], body: '', extra: {}, hash: 'test', dir: '/nonexistent', origin: 'path',
    ...extra,
  };
}
