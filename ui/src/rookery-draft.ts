/**
 * The Rookery tab's pure helpers: a draft as the horde graph draws it (no edges: a straight
 * line in step order, as the loader reads it), the problems of one step or of the horde itself,
 * and the small edits the direct editor makes (each returns a new draft; the server normalises).
 */
import type { GraphHorde } from './graph-layout.js';
import type { DraftEdge, DraftProblem, DraftStep, HordeDraft, HordeEdge } from './types.js';

export function draftGraph(draft: HordeDraft): GraphHorde {
  const pipeline = draft.steps.map((s) => s.name);
  const at = new Map(pipeline.map((n, i) => [n, i]));
  const edges: HordeEdge[] = draft.edges.length === 0
    ? pipeline.slice(1).map((to, i) => ({ from: pipeline[i]!, to, when: 'always', back: false, implicit: true }))
    : draft.edges.map((e) => ({
      from: e.from, to: e.to, when: e.when ?? 'always', back: (at.get(e.to) ?? 0) <= (at.get(e.from) ?? 0), implicit: false,
      ...(e.max_loops === undefined ? {} : { maxLoops: e.max_loops }),
    }));
  return { id: draft.id || 'draft', displayName: draft.display_name || draft.id || 'the draft', pipeline, steps: draft.steps, edges };
}

/** The problems about one step. */
export const stepProblems = (problems: readonly DraftProblem[], step: string): DraftProblem[] => problems.filter((p) => p.step === step);

/** The problems about the horde as a whole (horde.md, the edges). */
export const hordeProblems = (problems: readonly DraftProblem[]): DraftProblem[] => problems.filter((p) => p.step === undefined);

/** A new step of `kind` at the end (the server fills display name, output…). */
export function withNewStep(draft: HordeDraft, name: string, kind: string): HordeDraft {
  const step: DraftStep = { name, kind, display_name: '', description: '', prompt_body: '', output: '', context_paths: [], tools: [], inputs: [] };
  return { ...draft, steps: [...draft.steps, step] };
}

/** The step `name` replaced by `step` (its edges follow a new name). */
export function withStep(draft: HordeDraft, name: string, step: DraftStep): HordeDraft {
  const rename = (n: string): string => (n === name ? step.name : n);
  return {
    ...draft,
    steps: draft.steps.map((s) => (s.name === name ? step : s)),
    edges: draft.edges.map((e) => ({ ...e, from: rename(e.from), to: rename(e.to) })),
  };
}

/** Without the step `name` and the edges that touch it. */
export function withoutStep(draft: HordeDraft, name: string): HordeDraft {
  return { ...draft, steps: draft.steps.filter((s) => s.name !== name), edges: draft.edges.filter((e) => e.from !== name && e.to !== name) };
}

export const withEdges = (draft: HordeDraft, edges: DraftEdge[]): HordeDraft => ({ ...draft, edges });

/** A comma-separated list as typed in a field. */
export const listOf = (text: string): string[] => text.split(',').map((s) => s.trim()).filter((s) => s !== '');
