/**
 * The model step kinds (`process`, `deliver`, `compile`, `ask`, `lint`, and the 1.x
 * aliases `step`, `final`): the prompt file and the context go to the model, which may
 * call the step's tools (and no others) through the engine; its answer, shaped by the
 * `normalize_*` keys, is the step's one Markdown artifact. Every provider call is traced.
 */
import { KowalskiError, messageOf } from '../../core/index.js';
import { parseModelRef, replayingCaller, runToolLoop } from '../../agents/index.js';
import { createProvider } from '../../agents/providers/index.js';
import type { ModelRef, ToolLoopResult } from '../../agents/index.js';
import { plural, writeArtifact } from '../artifact.js';
import { buildMessages } from '../model-prompt.js';
import { shapeOutput } from '../normalize.js';
import type { StepContext, StepResult } from '../protocol.js';

export const NO_MODEL_MESSAGE = 'no model provider configured: set [model] default in config.toml (or choose a model in Setup), or give the step a `model`';

/** How often streaming progress is reported, ms. */
const PROGRESS_EVERY_MS = 1500;

function money(cost: number | null): string {
  if (cost === null) return 'cost unknown';
  return cost === 0 ? '$0' : `$${cost < 0.01 ? cost.toFixed(4) : cost.toFixed(2)}`;
}

function summaryOf(ref: ModelRef, r: ToolLoopResult, notes: string[]): string {
  const parts = [
    `${ref.provider}:${ref.model}`,
    plural(r.calls, 'model call'),
    `${r.usage.inputTokens} tokens in, ${r.usage.outputTokens} out`,
    money(r.costUsd),
  ];
  if (r.toolCalls > 0) parts.push(plural(r.toolCalls, 'tool call'));
  return [parts.join(', '), ...notes].join('; ');
}

export default async function model(ctx: StepContext): Promise<StepResult> {
  const { task } = ctx;
  const m = task.model;
  if (m === undefined) {
    throw new KowalskiError('KW_ERR_NO_MODEL', NO_MODEL_MESSAGE, { where: { file: task.step.file, key: 'model' } });
  }
  let ref: ModelRef;
  try {
    ref = parseModelRef(m.model);
  } catch (err) {
    const where = task.step.model === undefined ? { file: 'config.toml', key: 'model.default' } : { file: task.step.file, key: 'model' };
    throw new KowalskiError('KW_ERR_MODEL_REF', messageOf(err), { where });
  }
  const messages = buildMessages(task);
  const tools = task.step.tools.length === 0 ? [] : await ctx.request({ op: 'describe-tools', names: task.step.tools });
  const provider = createProvider(ref, m.settings);
  const modelKey = `${ref.provider}:${ref.model}`;
  let written = 0;
  let lastProgress = Date.now();
  ctx.progress(`asking ${modelKey}`);
  /** Calls answered from an earlier run's traces (a re-run with --replay-models): call number → that trace. */
  const replayed = new Map<number, number>();
  const callModel = m.replay === undefined ? undefined
    : replayingCaller(m.replay, provider, ref, tools.map((t) => t.name), (seq, traceId) => replayed.set(seq, traceId));
  const result = await runToolLoop({
    ...(callModel === undefined ? {} : { callModel }),
    provider,
    ref,
    messages,
    tools,
    setting: m.toolCalling,
    ...(m.learned === undefined ? {} : { learned: m.learned }),
    callTool: (name, args) => ctx.request({ op: 'call-tool', name, args }),
    signal: ctx.signal,
    maxIterations: m.maxIterations,
    maxToolErrors: m.maxToolErrors,
    onToken(text) {
      written += text.length;
      const now = Date.now();
      if (now - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = now;
        ctx.progress(`${modelKey} is writing (${written} characters)`);
      }
    },
    onTrace: (trace) => {
      const from = replayed.get(trace.seq);
      ctx.trace(from === undefined ? trace : { ...trace, replayedFrom: from });
    },
    onLearned: (mode) => ctx.learned(modelKey, mode),
    onToolCall: (name) => ctx.progress(`calling ${name}`),
  });
  const shaped = shapeOutput(result.content, task.step.normalize, task.step.displayName);
  const artifact = writeArtifact(task, shaped.markdown);
  const notes: string[] = [];
  if (shaped.fallback) notes.push('the answer was empty or not a document: the fallback document was written');
  if (shaped.missing.length > 0) notes.push(`sections missing from the answer: ${shaped.missing.join(', ')}`);
  if (replayed.size > 0) notes.push(`${plural(replayed.size, 'answer')} replayed from an earlier run`);
  return { outcome: 'pass', artifact, summary: summaryOf(ref, result, notes) };
}
