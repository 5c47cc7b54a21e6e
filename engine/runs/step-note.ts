/**
 * A `vault_note` step's write (steps/kinds/vault-note.ts asks for it): its note path filled
 * with the run's day and id, written through the vault's audited writes. The audit row says
 * `by = "run:<run id>"`, and its call key is `run:<run id>:<step>`: an attempt after a crash
 * gets back the write the first one made instead of writing twice.
 */
import { fillNotePath } from '../../core/note-path.js';
import type { NoteMode } from '../../core/index.js';
import type { VaultWriteAnswer } from '../../steps/index.js';
import type { NoteWrite, WriteOrigin } from '../vault/types.js';

export interface StepNoteDeps {
  create(path: string, content: string, origin: WriteOrigin): Promise<NoteWrite>;
  append(path: string, content: string, origin: WriteOrigin): Promise<NoteWrite>;
  exists(path: string): Promise<boolean>;
  /** When the run was created, ms (its `{{date}}`). */
  runCreatedAt(runId: string): number;
}

export async function writeStepNote(deps: StepNoteDeps, at: { runId: string; step: string }, template: string, content: string, mode: NoteMode): Promise<VaultWriteAnswer> {
  const path = fillNotePath(template, { date: new Date(deps.runCreatedAt(at.runId)).toISOString().slice(0, 10), runId: at.runId });
  const origin: WriteOrigin = { sessionId: null, agent: null, traceId: null, callKey: `run:${at.runId}:${at.step}`, by: `run:${at.runId}` };
  // An earlier attempt's write comes back from either call (keyed by the call key, whatever its op).
  // Added to a note, it starts after a blank line: one digest per paragraph block, not run together.
  const w = mode === 'append' && await deps.exists(path) ? await deps.append(path, `\n${content}`, origin) : await deps.create(path, content, origin);
  return { path: w.path, writeId: w.writeId, op: w.op === 'append' ? 'append' : 'create', bytesBefore: w.bytesBefore, bytesAfter: w.bytesAfter };
}
