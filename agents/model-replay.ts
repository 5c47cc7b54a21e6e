/**
 * Replaying recorded model calls (`kowalski rerun --replay-models`): a model call whose
 * request — provider, model, tool-calling mode, messages and offered tools — is the same
 * as one recorded in an earlier run's traces gets that call's answer back instead of
 * asking the model; any other request goes to the model. The key is a sha256 of the
 * request's canonical JSON, computed the same way from a live request and from a trace.
 */
import crypto from 'node:crypto';
import { canonical } from './canonical.js';
import { parseTextToolCall } from './text-tool-calls.js';
import { toolWireName } from './tool-names.js';
import type { ToolLoopOptions } from './tool-loop.js';
import type { ModelCallTrace } from './trace.js';
import type { ChatMessage, ChatResponse, ProviderName, Provider, ToolCall, ToolCallingMode } from './types.js';

/** What identifies a model call for replay. */
export interface ReplayKeyParts {
  provider: ProviderName;
  model: string;
  mode: ToolCallingMode;
  messages: readonly ChatMessage[];
  /** The names of the tools offered, in the order offered. */
  tools: readonly string[];
}

/** A recorded answer: the text and the native tool calls (names as on the wire). */
export interface ReplayedCall {
  /** The trace it was recorded in. */
  traceId: number;
  content: string;
  toolCalls: ToolCall[];
}

/** Recorded answers by `replayKey`. Plain data: it travels in a step's task. */
export type ReplayTable = Record<string, ReplayedCall>;

export function replayKey(parts: ReplayKeyParts): string {
  const { provider, model, mode, messages, tools } = parts;
  return crypto.createHash('sha256').update(canonical({ provider, model, mode, messages, tools })).digest('hex');
}

/**
 * The entry a finished trace makes (undefined for a call that failed). In native mode its
 * tool calls were the provider's tool field, unless the model printed its call as text
 * (then the loop parses the text again, as it did).
 */
export function replayEntry(traceId: number, trace: Pick<ModelCallTrace, 'provider' | 'model' | 'mode' | 'messages' | 'tools' | 'completion' | 'toolCalls' | 'error'>): [string, ReplayedCall] | undefined {
  if (trace.error !== undefined) return undefined;
  const printed = trace.tools.length > 0 && parseTextToolCall(trace.completion, 'call_1', new Set(trace.tools)).kind !== 'answer';
  const native = trace.mode === 'native' && !printed;
  const offered = new Set(trace.tools);
  const toolCalls: ToolCall[] = native
    ? trace.toolCalls.map((c) => ({ id: c.id, name: offered.has(c.name) ? toolWireName(c.name) : c.name, arguments: c.arguments, ...(c.rawArguments === undefined ? {} : { rawArguments: c.rawArguments }) }))
    : [];
  return [replayKey(trace), { traceId, content: trace.completion, toolCalls }];
}

/**
 * The tool loop's `callModel` for a step that replays: a request found in `table` is
 * answered from it (no tokens, no cost, 0 HTTP attempts) and reported to `replayed` with
 * the call's number and the recorded trace; any other goes to `provider`.
 */
export function replayingCaller(table: ReplayTable, provider: Provider, ref: { provider: ProviderName }, tools: readonly string[], replayed: (seq: number, traceId: number) => void): NonNullable<ToolLoopOptions['callModel']> {
  return (request, at) => {
    const hit = table[replayKey({ provider: ref.provider, model: request.model, mode: at.mode, messages: request.messages, tools })];
    if (hit === undefined) return provider.chat(request);
    replayed(at.seq, hit.traceId);
    const response: ChatResponse = {
      content: hit.content, toolCalls: hit.toolCalls, stopReason: hit.toolCalls.length > 0 ? 'tool_calls' : 'end',
      usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, latencyMs: 0, attempts: 0,
    };
    return Promise.resolve(response);
  };
}
