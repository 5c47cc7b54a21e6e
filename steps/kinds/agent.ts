/**
 * The `agent` step kind: one turn of a team profile (`agent = "researcher"`). Its message
 * is what a model step would be given — the step's role, its prompt file with the run's
 * answers, and the context it reads, each fenced — and the engine runs the turn in the
 * step's own chat session, with the profile's model, tools and delegation, every model and
 * tool call recorded before it takes effect. The answer, shaped by `normalize_*`, is the
 * step's Markdown artifact.
 */
import { KowalskiError } from '../../core/index.js';
import { plural, writeArtifact } from '../artifact.js';
import { buildMessages } from '../model-prompt.js';
import { shapeOutput } from '../normalize.js';
import type { AgentTurnAnswer, StepContext, StepResult } from '../protocol.js';

function summaryOf(agent: string, a: AgentTurnAnswer, notes: string[]): string {
  const u = a.usage;
  const parts = [
    `agent ${agent}`,
    plural(u.calls, 'model call'),
    `${u.inputTokens} tokens in, ${u.outputTokens} out`,
    u.costUsd === null ? 'cost unknown' : `$${u.costUsd === 0 ? '0' : u.costUsd.toFixed(4)}`,
  ];
  if (u.toolCalls > 0) parts.push(plural(u.toolCalls, 'tool call'));
  parts.push(`chat session ${a.sessionId}`);
  return [parts.join(', '), ...notes].join('; ');
}

export default async function agent(ctx: StepContext): Promise<StepResult> {
  const { task } = ctx;
  const name = task.step.agent;
  if (name === undefined) throw new KowalskiError('KW_ERR_HORDE_INVALID', `step \`${task.step.name}\` is an agent step without an agent`, { where: { file: task.step.file, key: 'agent' } });
  const text = buildMessages(task).map((m) => m.content).join('\n\n');
  ctx.progress(`asking agent ${name}`);
  const answer = await ctx.request({ op: 'agent-turn', agent: name, text });
  const shaped = shapeOutput(answer.text, task.step.normalize, task.step.displayName);
  const artifact = writeArtifact(task, shaped.markdown);
  const notes: string[] = [];
  if (shaped.fallback) notes.push('the answer was empty or not a document: the fallback document was written');
  if (shaped.missing.length > 0) notes.push(`sections missing from the answer: ${shaped.missing.join(', ')}`);
  return { outcome: 'pass', artifact, summary: summaryOf(name, answer, notes) };
}
