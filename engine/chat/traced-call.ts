/**
 * One model call outside a turn's tool loop, with its trace: the bookkeeping calls of
 * memory (a summary of earlier turns, consolidation). The caller stores the trace row
 * where it belongs (with the event that records the answer), or at once.
 */
import type { ChatMessage, ChatResponse, ModelCallTrace } from '../../agents/index.js';
import type { ChatModel } from './turn-run.js';
import { messageOf } from '../../core/index.js';

export interface TracedAnswer {
  /** Undefined when the call failed (the trace has the error). */
  response?: ChatResponse;
  trace: ModelCallTrace;
  error?: unknown;
}

/** Make the call (no tools, no streaming); never throws for a failed call: the answer says so. Rejects only when `signal` stops it. */
export async function tracedCall(m: ChatModel, messages: ChatMessage[], now: () => number, signal?: AbortSignal): Promise<TracedAnswer> {
  const startedAt = now();
  const trace: ModelCallTrace = {
    seq: 0, provider: m.ref.provider, model: m.ref.model, mode: 'native', messages, tools: [], completion: '', toolCalls: [],
    usage: { inputTokens: 0, outputTokens: 0 }, costUsd: null, latencyMs: 0, attempts: 0, startedAt,
  };
  try {
    const response = await m.provider.chat({ model: m.ref.model, messages, ...(signal === undefined ? {} : { signal }) });
    Object.assign(trace, { completion: response.content, usage: response.usage, costUsd: response.costUsd, latencyMs: response.latencyMs, attempts: response.attempts });
    return { response, trace };
  } catch (err) {
    if (signal?.aborted === true) throw signal.reason;
    const code = (err as { code?: unknown } | null)?.code;
    trace.error = { code: typeof code === 'string' ? code : 'KW_ERR_INTERNAL', message: messageOf(err) };
    trace.latencyMs = now() - startedAt;
    return { trace, error: err };
  }
}
