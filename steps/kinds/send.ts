/**
 * The `send` step kind: what the step reads (`reads`, e.g. `["@step:digest@"]`) is sent
 * through an adapter configured in config.toml (`adapter = "team-slack"`, `to = "#trading"`
 * or a mail address, `subject` for mail). The engine delivers it (engine/runs/step-send.ts), keyed
 * by the run and the step, so an attempt after a crash finds the delivery instead of sending
 * again. An adapter that fills to nothing (an input left empty) sends nothing. No model.
 */
import { inlineCode, plural, readContext, writeArtifact } from '../artifact.js';
import type { StepContext, StepResult } from '../protocol.js';
import { KowalskiError } from '../../core/index.js';

export default async function send(ctx: StepContext): Promise<StepResult> {
  const { task } = ctx;
  const spec = task.step.send;
  if (spec === undefined) throw new KowalskiError('KW_ERR_HORDE_INVALID', `step \`${task.step.name}\` is a send step without an adapter and a recipient`, { where: { file: task.step.file, key: 'adapter' } });
  const parts = task.step.context.map((ref) => readContext(task, ref).text);
  const text = parts.map((p) => p.replace(/\n*$/, '\n')).join('\n');
  ctx.progress('sending');
  const a = await ctx.request({ op: 'adapter-send', send: spec, text });
  if (a.status === 'skipped') {
    const report = '# Send\n\nNothing was sent: no adapter was given (the input that names it was left empty).\n';
    return { outcome: 'pass', artifact: writeArtifact(task, report), summary: 'not sent: no adapter given' };
  }
  const id = a.messageId === undefined ? '' : ` (message ${inlineCode(a.messageId)})`;
  const again = a.earlier ? ' It was sent by an earlier attempt of this step, before an interruption; it was not sent again.' : '';
  const report = `# Send\n\nSent ${plural(parts.length, 'file')} read (${a.bytes} bytes) through the adapter ${inlineCode(a.adapter)} to ${inlineCode(a.to)}${id}.${again}\n`;
  return { outcome: 'pass', artifact: writeArtifact(task, report), summary: `sent through ${a.adapter} to ${a.to}` };
}
