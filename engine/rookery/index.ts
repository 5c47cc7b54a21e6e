/** Placeholder for rookery-core's face (replaced by the merge of branch rookery-core): the signatures only. */
import { KowalskiError } from '../../core/index.js';
import type { BirthResult, DraftCheck, DraftEdge, DraftStep, HordeDraft, RookeryStage } from './types.js';

export type { BirthResult, DraftCheck, DraftEdge, DraftInput, DraftProblem, DraftStep, HordeDraft, RookeryStage } from './types.js';

const missing = (): never => {
  throw new KowalskiError('KW_ERR_INTERNAL', 'rookery core is not merged yet');
};
export interface CheckOptions { knownKinds?: ReadonlySet<string> | readonly string[]; knownTools?: ReadonlySet<string> | readonly string[] }
export const exampleDraft = (): HordeDraft => missing();
export const normalizeDraft = (_input: unknown): HordeDraft => missing();
export const parseDraft = (_text: string): { ok: true; draft: HordeDraft } | { ok: false; error: string } => missing();
export const renderDraft = (_draft: HordeDraft): Map<string, string> => missing();
export const checkDraft = (_input: unknown, _options?: CheckOptions): Promise<DraftCheck> => missing();
export const writeDraft = (_input: unknown, _options: CheckOptions & { outputRoot: string; overwrite?: boolean }): Promise<BirthResult> => missing();
export const setHordeFields = (_draft: HordeDraft, _patch: Partial<HordeDraft>): HordeDraft => missing();
export const setStep = (_draft: HordeDraft, _step: Partial<DraftStep> & { name: string }, _options?: { after?: string; rename?: string }): HordeDraft => missing();
export const removeStep = (_draft: HordeDraft, _name: string): HordeDraft => missing();
export const setEdges = (_draft: HordeDraft, _edges: DraftEdge[]): HordeDraft => missing();
export const draftStage = (_check: DraftCheck, _born: boolean): RookeryStage => missing();
export const stepKindList = (): string[] => missing();
