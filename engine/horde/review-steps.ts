/**
 * `review` steps: a human gate shows the artifact of the step before it and passes that
 * file on, so its output is its predecessor's output (set here, once the edges are known).
 * A review with no step before it, or after steps that write different files, has nothing
 * definite to show: KW_ERR_REVIEW_NO_ARTIFACT at its `kind`.
 */
import type { EdgeDef, StepDef } from '../../core/index.js';
import type { Fields } from './fields.js';
import type { ProblemList } from './problems.js';

export function linkReviews(pipeline: readonly string[], steps: Record<string, StepDef>, edges: readonly EdgeDef[], fields: ReadonlyMap<string, Fields>, problems: ProblemList): void {
  // Pipeline order: forward edges follow it, so a review after a review finds its source already linked.
  for (const name of pipeline) {
    const step = steps[name];
    const f = fields.get(name);
    if (step?.kind !== 'review' || f === undefined) continue;
    for (const key of ['output', 'writes']) {
      if (f.has(key)) problems.error('KW_ERR_KEY_VALUE', f.at(key), `review step "${name}" has ${key}, but a review writes nothing: it passes on the artifact of the step before it (remove ${key})`);
    }
    const sources = edges.filter((e) => !e.back && e.to === name).map((e) => e.from);
    if (sources.length === 0) {
      problems.error('KW_ERR_REVIEW_NO_ARTIFACT', f.at('kind'), `review step "${name}" is where the run starts: no step before it writes an artifact to show (put it after the step whose output the operator should review)`);
      continue;
    }
    if (sources.some((s) => steps[s] === undefined)) continue; // that step has its own errors
    const outputs = new Set(sources.map((s) => steps[s]!.output));
    if (outputs.size > 1) {
      const each = sources.map((s) => `"${s}" writes ${steps[s]!.output}`).join(', ');
      problems.error('KW_ERR_REVIEW_NO_ARTIFACT', f.at('kind'), `review step "${name}" is reached from steps that write different files (${each}); a review shows one artifact: give it one step before it, or make them write the same file`);
      continue;
    }
    step.output = [...outputs][0]!;
  }
}
