/**
 * An `mcp_call` step's tool call (steps/kinds/mcp-call.ts asks for it): the tool's answer is
 * committed to `step_calls`, keyed by the run, step and attempt, before the step is given
 * it. An attempt that follows an interrupted one (a crash after the tool answered, before
 * the step's result was committed) with the same tool and arguments gets that answer back
 * instead of calling again: no answered call is asked again. An attempt after one that
 * finished (a loop back, a rerun) calls again. A tool that fails records nothing.
 */
import { createHash } from 'node:crypto';
import type { ToolOutput } from '../../agents/index.js';
import type { StepCallAnswer } from '../../steps/index.js';
import type { CrashHook } from '../base/crash.js';
import type { StepCallQueries } from '../store/sql/step-calls.js';

export interface StepCallDeps {
  queries: StepCallQueries;
  /** The state of an attempt of a step (`interrupted`: stopped before its result). */
  attemptState(runId: string, step: string, attempt: number): string | undefined;
  now(): number;
  crash: CrashHook;
}

/** Arguments hashed with their keys sorted, so the same object is the same call. */
function argsHash(args: Record<string, unknown>): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
    return v;
  };
  return createHash('sha256').update(JSON.stringify(canonical(args))).digest('hex');
}

export async function callStepTool(
  deps: StepCallDeps, at: { runId: string; step: string; attempt: number },
  call: (signal: AbortSignal) => Promise<ToolOutput>, name: string, args: Record<string, unknown>, signal: AbortSignal,
): Promise<StepCallAnswer> {
  const sha = argsHash(args);
  const earlier = deps.queries.latestBefore(at.runId, at.step, at.attempt);
  if (earlier !== undefined && earlier.tool === name && earlier.args_sha256 === sha && deps.attemptState(at.runId, at.step, earlier.attempt) === 'interrupted') {
    const from = earlier.from_attempt ?? earlier.attempt;
    deps.queries.record({ ...at, tool: name, argsSha256: sha, content: earlier.content, structured: earlier.structured, fromAttempt: from, at: deps.now() });
    const output: ToolOutput = { content: earlier.content };
    if (earlier.structured !== null) output.structured = JSON.parse(earlier.structured) as unknown;
    return { output, earlierAttempt: from };
  }
  const output = await call(signal);
  const structured = output.structured === undefined || output.structured === null ? null : JSON.stringify(output.structured);
  deps.queries.record({ ...at, tool: name, argsSha256: sha, content: output.content, structured, fromAttempt: null, at: deps.now() });
  deps.crash('call-after-answer');
  return { output: { content: output.content, ...(structured === null ? {} : { structured: output.structured }) } };
}
