/**
 * The Rookery: building a horde from a draft. Every surface — the builder's chat tools,
 * the app's editor, `kowalski mcp serve rookery` — calls these functions. The only public
 * face of engine/rookery.
 */
export type { BirthResult, DraftCheck, DraftEdge, DraftInput, DraftProblem, DraftStep, HordeDraft, RookeryStage } from './types.js';
export { exampleDraft } from './example.js';
export { normalizeDraft, defaultForm } from './normalize.js';
export { parseDraft } from './parse.js';
export type { ParsedDraft } from './parse.js';
export { renderDraft } from './render.js';
export { checkDraft, draftStage } from './check.js';
export type { DraftCheckOptions } from './check.js';
export { writeDraft } from './write.js';
export type { WriteDraftOptions } from './write.js';
export { setHordeFields, setStep, removeStep, setEdges } from './edit.js';
export type { HordeFieldsPatch } from './edit.js';
export { stepKindList, listHordeFolders } from './catalog.js';
export type { HordeFolder, StepKindSummary } from './catalog.js';
export { MAX_DRAFT_CHARS, MAX_DRAFT_STEPS } from './limits.js';
