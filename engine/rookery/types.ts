/**
 * A horde draft: what the Rookery builds before a horde folder exists. Plain JSON, in the
 * snake_case of the folder's own keys, so a draft reads like the files it becomes and an
 * MCP client can write one by hand. Every surface (the builder's chat tools, the app's
 * editor, `kowalski mcp serve rookery`) works on this one shape through the functions of
 * `engine/rookery/`.
 *
 * 1.x drafts (`penguins`, `tool_ids`, `model_id`, a separate `pipeline`) are accepted by
 * the parser and normalised into this shape.
 */
import type { DraftProblem, HordeDraft } from '../../contract/rookery.js';
export type { BirthResult, DraftEdge, DraftInput, DraftProblem, DraftStep, HordeDraft, RookeryStage } from '../../contract/rookery.js';

export interface DraftCheck {
  ok: boolean;
  /** The draft after normalising: what was checked, and what would be written. */
  draft: HordeDraft;
  /** Errors and warnings; `ok` is false when any is an error. */
  problems: DraftProblem[];
}

