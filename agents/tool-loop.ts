/**
 * The tool loop: ask the model, run the tools it calls, hand back the results, until it
 * answers. Every way a small model goes wrong ends loud and bounded, never silent:
 * - a call to a tool this step does not offer, arguments that are not JSON or fail the
 *   tool's schema, a tool that fails: the error goes back to the model to correct, at
 *   most `maxToolErrors` times (then KW_ERR_TOOL_LOOP_ERRORS);
 * - a call identical to one that already succeeded ends the loop (KW_ERR_TOOL_LOOP_REPEATED):
 *   the model already has that result, so asking again means it is stuck;
 * - at most `maxIterations` model calls (KW_ERR_TOOL_LOOP_BUDGET).
 * Tools are offered natively or in the text format of text-tool-calls.ts; in `auto` the
 * loop starts from what worked for this model before and reports what it learns.
 */
import { KowalskiError, isErrorCode, messageOf } from '../core/index.js';
import { canonical } from './canonical.js';
import { parseTextToolCall, textToolInstructions, textToolResult } from './text-tool-calls.js';
import { wireNames } from './tool-names.js';
import type { ModelCallTrace, TracedToolCall } from './trace.js';
import type {
  ChatMessage, ChatRequest, ChatResponse, ModelRef, Provider, ToolCall, ToolCallingMode, ToolCallingSetting, ToolOutput, ToolSpec, Usage,
} from './types.js';

export interface ToolLoopOptions {
  provider: Provider;
  ref: ModelRef;
  /** The conversation so far: a system message first, then the user's. Not modified. */
  messages: readonly ChatMessage[];
  /** The tools this step offers (nothing else may be called). */
  tools: readonly ToolSpec[];
  setting: ToolCallingSetting;
  /** For `auto`: what worked for this model before. */
  learned?: ToolCallingMode;
  /** Run a tool; throws a KowalskiError the model is told about. `at` names the call: tool call `index` (from 0) of model call `seq`. */
  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal, at: ToolCallAt): Promise<ToolOutput>;
  /**
   * Make model call `seq` (default: `provider.chat`). A durable caller records the call
   * and its answer, and on replay gives back the recorded answer instead of calling.
   */
  callModel?(request: ChatRequest, at: { seq: number; mode: ToolCallingMode }): Promise<ChatResponse>;
  /** Run the tool calls of one answer at once (default: one after the other). Their results go back in the order asked. */
  concurrentTools?: boolean;
  signal: AbortSignal;
  maxIterations: number;
  maxToolErrors: number;
  maxTokens?: number;
  onToken?(text: string): void;
  /** One record per provider call, sent once its tool calls have run. */
  onTrace(trace: ModelCallTrace): void;
  /** `auto` found out how this model calls tools. */
  onLearned?(mode: ToolCallingMode): void;
  /** A tool is about to run (for progress). */
  onToolCall?(name: string): void;
  now?(): number;
}

/** Which call a tool call is: tool call `index` (from 0) of model call `seq` (from 1). */
export interface ToolCallAt {
  seq: number;
  index: number;
}

export interface ToolLoopResult {
  content: string;
  /** Provider calls made. */
  calls: number;
  /** Tool calls run (including the ones answered with an error). */
  toolCalls: number;
  usage: Usage;
  /** null when any call's price is unknown. */
  costUsd: number | null;
  mode: ToolCallingMode;
}

/** The most of one tool result a model is given; the rest is cut, with a note saying so (an MCP server's answer has no limit of its own). */
export const MAX_TOOL_RESULT_CHARS = 100_000;

/** A tool result as a model is given it: cut at MAX_TOOL_RESULT_CHARS, with a note. */
export function boundedToolResult(content: string): string {
  if (content.length <= MAX_TOOL_RESULT_CHARS) return content;
  return `${content.slice(0, MAX_TOOL_RESULT_CHARS)}\n… [cut: the result has ${content.length} characters; only the first ${MAX_TOOL_RESULT_CHARS} are shown]`;
}

function errorOf(err: unknown): { code: string; message: string } {
  if (err instanceof KowalskiError) return { code: err.code, message: err.message };
  const code = (err as { code?: unknown } | null)?.code;
  return { code: isErrorCode(code) ? code : 'KW_ERR_TOOL_FAILED', message: messageOf(err) };
}

function withTextInstructions(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): ChatMessage[] {
  const instructions = textToolInstructions(tools);
  const [first, ...rest] = messages;
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n\n${instructions}` }, ...rest];
  return [{ role: 'system', content: instructions }, ...messages];
}

export async function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopResult> {
  const now = options.now ?? Date.now;
  const offered = new Map(options.tools.map((t) => [t.name, t]));
  const offeredNames = new Set(offered.keys());
  const hasTools = offered.size > 0;
  const names = wireNames(offeredNames);
  const nativeTools = options.tools.map((t) => ({ ...t, name: names.toWire.get(t.name)! }));
  let learned = options.learned;
  let mode: ToolCallingMode = options.setting === 'auto' ? learned ?? 'native' : options.setting;
  const learn = (m: ToolCallingMode): void => {
    if (options.setting !== 'auto' || learned === m) return;
    learned = m;
    options.onLearned?.(m);
  };
  const history: ChatMessage[] = [...options.messages];
  const succeeded = new Map<string, number>();
  const errors: string[] = [];
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let costUsd: number | null = 0;
  let toolCalls = 0;
  let nextId = 1;

  for (let call = 1; call <= options.maxIterations; call++) {
    options.signal.throwIfAborted();
    const messages = hasTools && mode === 'text' ? withTextInstructions(history, options.tools) : [...history];
    const trace: ModelCallTrace = {
      seq: call, provider: options.ref.provider, model: options.ref.model, mode, messages,
      tools: [...offeredNames], completion: '', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 },
      costUsd: null, latencyMs: 0, attempts: 0, startedAt: now(),
    };
    let response: ChatResponse;
    try {
      const request: ChatRequest = {
        model: options.ref.model,
        messages,
        ...(hasTools && mode === 'native' ? { tools: nativeTools } : {}),
        ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
        signal: options.signal,
        ...(options.onToken === undefined ? {} : { onToken: options.onToken }),
      };
      response = await (options.callModel === undefined ? options.provider.chat(request) : options.callModel(request, { seq: call, mode }));
    } catch (err) {
      trace.error = errorOf(err);
      trace.latencyMs = now() - trace.startedAt;
      options.onTrace(trace);
      if (err instanceof KowalskiError && err.code === 'KW_ERR_MODEL_NO_TOOLS' && mode === 'native' && options.setting === 'auto') {
        mode = 'text';
        learn('text');
        continue;
      }
      throw err;
    }
    Object.assign(trace, {
      completion: response.content, usage: response.usage, costUsd: response.costUsd,
      latencyMs: response.latencyMs, attempts: response.attempts,
    });
    usage.inputTokens += response.usage.inputTokens;
    usage.outputTokens += response.usage.outputTokens;
    costUsd = costUsd === null || response.costUsd === null ? null : costUsd + response.costUsd;

    // The history keeps the names as the provider knows them; the calls run under their own.
    const wireCalls = response.toolCalls;
    let calls: ToolCall[] = wireCalls.map((c) => ({ ...c, name: names.fromWire.get(c.name) ?? c.name }));
    let asText = false;
    if (hasTools && calls.length === 0) {
      const parsed = parseTextToolCall(response.content, `call_${nextId}`, offeredNames);
      if (parsed.kind !== 'answer') {
        calls = [parsed.call];
        asText = true;
        if (mode === 'native') {
          // The model printed its call instead of using the tool field: talk to it in text from now on.
          mode = 'text';
          if (parsed.kind === 'call') learn('text');
        }
      }
    } else if (calls.length > 0 && mode === 'native') {
      learn('native');
    }
    if (calls.length === 0) {
      options.onTrace(trace);
      return { content: response.content, calls: call, toolCalls, usage, costUsd, mode };
    }
    nextId += calls.length;

    history.push(asText ? { role: 'assistant', content: response.content } : { role: 'assistant', content: response.content, toolCalls: wireCalls });
    try {
      const results: TracedToolCall[] = [];
      if (options.concurrentTools === true) {
        // All run at once; each ends (or fails) before the loop goes on, so none is left running.
        const settled = await Promise.allSettled(calls.map((tc, index) => runOne(tc, { seq: call, index }, toolCalls + index + 1)));
        toolCalls += calls.length;
        for (const r of settled) if (r.status === 'fulfilled') trace.toolCalls.push(r.value);
        const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed !== undefined) throw failed.reason;
        results.push(...trace.toolCalls);
      } else {
        for (const [index, tc] of calls.entries()) {
          toolCalls += 1;
          const traced = await runOne(tc, { seq: call, index }, toolCalls);
          trace.toolCalls.push(traced);
          results.push(traced);
        }
      }
      for (const [i, traced] of results.entries()) {
        const tc = calls[i]!;
        const isError = traced.error !== undefined;
        history.push(asText
          ? { role: 'user', content: textToolResult(tc.name, traced.result, isError) }
          : { role: 'tool', toolCallId: tc.id, toolName: names.toWire.get(tc.name) ?? tc.name, content: traced.result, ...(isError ? { isError } : {}) });
      }
    } finally {
      options.onTrace(trace);
    }
  }
  throw new KowalskiError('KW_ERR_TOOL_LOOP_BUDGET',
    `the model did not give a final answer within ${options.maxIterations} model calls (${toolCalls} tool calls); the last errors: ${errors.slice(-3).join(' | ') || 'none'}`);

  /** Run one call, or explain to the model why it was not run. Throws only when the loop must end. */
  async function runOne(tc: ToolCall, at: ToolCallAt, number: number): Promise<TracedToolCall> {
    const started = now();
    const base = { id: tc.id, name: tc.name, arguments: tc.arguments, ...(tc.rawArguments === undefined ? {} : { rawArguments: tc.rawArguments }) };
    /** `shown` is what the model reads (by default the message itself). */
    const refuse = (code: string, message: string, shown = message): TracedToolCall => {
      errors.push(`${tc.name || '(no name)'}: ${message}`);
      const traced = { ...base, result: `error: ${shown}`, error: { code, message }, durationMs: now() - started };
      if (errors.length > options.maxToolErrors) {
        throw new KowalskiError('KW_ERR_TOOL_LOOP_ERRORS',
          `the model made ${errors.length} tool calls that failed (more than the ${options.maxToolErrors} it may correct): ${errors.slice(-3).join(' | ')}`);
      }
      return traced;
    };
    if (tc.argumentsError !== undefined && tc.name === '') return refuse('KW_ERR_TOOL_ARGS', tc.argumentsError);
    const spec = offered.get(tc.name);
    if (spec === undefined) {
      return refuse('KW_ERR_TOOL_NOT_OFFERED', `there is no tool "${tc.name}" in this step; the tools you may call are: ${[...offeredNames].join(', ')}`);
    }
    if (tc.argumentsError !== undefined) {
      return refuse('KW_ERR_TOOL_ARGS', `the arguments of ${tc.name} are not valid: ${tc.argumentsError}; send them as a JSON object matching ${JSON.stringify(spec.inputSchema)}`);
    }
    const key = `${tc.name} ${canonical(tc.arguments)}`;
    const earlier = succeeded.get(key);
    if (earlier !== undefined) {
      throw new KowalskiError('KW_ERR_TOOL_LOOP_REPEATED',
        `the model called ${tc.name} ${canonical(tc.arguments)} again, identically (tool call ${number} repeats tool call ${earlier}, whose result it already had)`);
    }
    options.onToolCall?.(tc.name);
    let output: ToolOutput;
    try {
      output = await options.callTool(tc.name, tc.arguments, options.signal, at);
    } catch (err) {
      options.signal.throwIfAborted();
      const e = errorOf(err);
      return refuse(e.code, e.message, `[${e.code}] ${e.message}`);
    }
    succeeded.set(key, number);
    return { ...base, result: boundedToolResult(output.content), durationMs: now() - started, ...(output.meta === undefined ? {} : { meta: output.meta }) };
  }
}
