/**
 * The `vault_note` step kind: what the step reads (`reads`, e.g. `["@step:digest@"]`) is
 * written into the vault as a note (`note = "digests/watchlist-{{date}}.md"`), through the
 * vault's audited writes: the audit names the run and the step, and the operator can revert
 * it like any write. `note_mode = "create"` (the default) refuses a note that exists;
 * `"append"` adds to its end, making it when there is none. The write is keyed by the run
 * and the step, so an attempt after a crash finds the write the first one made. No model.
 */
import { plural, readContext, writeArtifact } from '../artifact.js';
import type { StepContext, StepResult } from '../protocol.js';
import { KowalskiError } from '../../core/index.js';

export default async function vaultNote(ctx: StepContext): Promise<StepResult> {
  const { task } = ctx;
  const note = task.step.note;
  if (note === undefined) throw new KowalskiError('KW_ERR_HORDE_INVALID', `step \`${task.step.name}\` is a vault_note step without a note`, { where: { file: task.step.file, key: 'note' } });
  const parts = task.step.context.map((ref) => readContext(task, ref).text);
  const content = parts.map((p) => p.replace(/\n*$/, '\n')).join('\n');
  ctx.progress(`writing the note ${note.path}`);
  const w = await ctx.request({ op: 'vault-write', path: note.path, content, mode: note.mode });
  const verb = w.op === 'create' ? 'Created' : 'Appended to';
  const report = `# Vault note\n\n${verb} \`${w.path}\` (write #${w.writeId}, ${w.bytesBefore} → ${w.bytesAfter} bytes), from ${plural(parts.length, 'file')} read.\n`;
  return { outcome: 'pass', artifact: writeArtifact(task, report), summary: `${w.op === 'create' ? 'created' : 'appended to'} vault note ${w.path} (write #${w.writeId})` };
}
