/**
 * Edits of a draft, as the builder's chat tools and the app's editor make them. Each is
 * pure: it returns a new, normalised draft and leaves its argument alone. An edit that
 * makes no sense (an unknown step, a name already taken) throws KW_ERR_DRAFT_INVALID.
 */
import { KowalskiError } from '../../core/index.js';
import { slugify } from './names.js';
import { normalizeDraft, renameRef } from './normalize.js';
import type { DraftEdge, DraftStep, HordeDraft } from './types.js';

export type HordeFieldsPatch = Partial<Pick<HordeDraft, 'id' | 'display_name' | 'description' | 'workdir' | 'delivery_root_rel' | 'confirm_commands' | 'display' | 'triggers'>>;

/** Set horde-level fields; `display` replaces the display copy as a whole. */
export function setHordeFields(draft: HordeDraft, patch: HordeFieldsPatch): HordeDraft {
  if (patch.id !== undefined && slugify(patch.id) === '') invalid(`id "${patch.id}" has no letter or digit to make an id from`);
  return normalizeDraft({ ...structuredClone(draft), ...structuredClone(patch) });
}

/**
 * Add or change a step. A step of a new name is appended (or placed after `after`); an
 * existing one gets the given fields merged in, is renamed to `rename` (edges and
 * `@step:` references follow) and moved after `after` when given.
 */
export function setStep(draft: HordeDraft, step: Partial<DraftStep> & { name: string }, options: { after?: string; rename?: string } = {}): HordeDraft {
  const next = structuredClone(draft);
  const name = slugify(step.name);
  if (name === '') invalid(`step name "${step.name}" has no letter or digit to make a name from`);
  const at = next.steps.findIndex((s) => s.name === name);
  const fields = structuredClone(step);
  // A new step is only what was given: normalising fills the rest (a kind guessed from the name, an output, …).
  let merged: Partial<DraftStep> & { name: string };
  if (at < 0) {
    if (options.rename !== undefined) invalid(`there is no step "${name}" to rename (steps: ${names(next)})`);
    merged = { ...fields, name };
  } else {
    merged = { ...(next.steps[at] as DraftStep), ...fields, name };
    next.steps.splice(at, 1);
  }
  if (options.rename !== undefined) {
    const to = slugify(options.rename);
    if (to === '') invalid(`the new name "${options.rename}" has no letter or digit to make a name from`);
    if (to !== name && next.steps.some((s) => s.name === to)) invalid(`cannot rename "${name}" to "${to}": a step of that name exists`);
    renameStep(next, merged, name, to);
  }
  let position = at < 0 ? next.steps.length : at;
  if (options.after !== undefined) {
    const after = next.steps.findIndex((s) => s.name === slugify(options.after ?? ''));
    if (after < 0) invalid(`there is no step "${options.after}" to put "${merged.name}" after (steps: ${names(next)})`);
    position = after + 1;
  }
  next.steps.splice(position, 0, merged as DraftStep);
  return normalizeDraft(next);
}

/** Remove a step, its edges, and what other steps read of it. */
export function removeStep(draft: HordeDraft, name: string): HordeDraft {
  const next = structuredClone(draft);
  const at = next.steps.findIndex((s) => s.name === name);
  if (at < 0) invalid(`there is no step "${name}" to remove (steps: ${names(next)})`);
  next.steps.splice(at, 1);
  next.edges = next.edges.filter((e) => e.from !== name && e.to !== name);
  for (const s of next.steps) s.context_paths = s.context_paths.filter((ref) => ref !== `@step:${name}@`);
  return normalizeDraft(next);
}

/** Replace the edges as a whole (empty: a straight line in step order). Every edge must name steps of the draft. */
export function setEdges(draft: HordeDraft, edges: DraftEdge[]): HordeDraft {
  const known = new Set(draft.steps.map((s) => s.name));
  edges.forEach((e, i) => {
    for (const end of [e.from, e.to]) {
      if (!known.has(slugify(String(end)))) invalid(`edges[${i}] names step "${String(end)}", which the draft does not have (steps: ${names(draft)})`);
    }
  });
  return normalizeDraft({ ...structuredClone(draft), edges: structuredClone(edges) });
}

function renameStep(draft: HordeDraft, step: Partial<DraftStep> & { name: string }, from: string, to: string): void {
  const rename = (n: string): string => (n === from ? to : n);
  step.name = to;
  for (const e of draft.edges) {
    e.from = rename(e.from);
    e.to = rename(e.to);
  }
  for (const s of draft.steps) s.context_paths = s.context_paths.map((ref) => renameRef(ref, rename));
  if (step.context_paths !== undefined) step.context_paths = step.context_paths.map((ref) => renameRef(ref, rename));
}

function names(draft: HordeDraft): string {
  return draft.steps.length === 0 ? 'none yet' : draft.steps.map((s) => s.name).join(', ');
}

function invalid(message: string): never {
  throw new KowalskiError('KW_ERR_DRAFT_INVALID', message);
}
