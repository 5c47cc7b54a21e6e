/**
 * Anthropic over the official `@anthropic-ai/sdk`, streaming. The SDK's retries are off
 * (retry.ts retries, so `attempts` is honest). Note that the SDK ends a stream quietly,
 * without throwing, when its request is aborted: withRetry checks the signal afterwards.
 */
import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import { KowalskiError, messageOf } from '../../core/index.js';
import type { ChatMessage, ChatRequest, ChatResponse, Provider, ProviderSettings, StopReason, ToolCall } from '../types.js';
import type { Attempt } from './attempt.js';
import { RetryableFailure, connectionFailure, httpFailure, timeoutError } from './errors.js';
import type { Endpoint } from './errors.js';
import { costOf } from './pricing.js';
import { retryAfterMs, withRetry } from './retry.js';
import { parseToolArguments } from './tool-args.js';
import { toTurns } from './turns.js';

type MessageParam = Anthropic.Messages.MessageParam;
type ContentBlockParam = Anthropic.Messages.ContentBlockParam;
type StreamEvent = Anthropic.Messages.RawMessageStreamEvent;

export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_MAX_TOKENS = 4096;

/** System messages go to `system`; our tool results become `tool_result` blocks of a user turn (turns.ts merges the turns). */
export function toAnthropicMessages(messages: ChatMessage[]): { system: string | undefined; messages: MessageParam[] } {
  // The API refuses empty text blocks.
  const text = (t: string): ContentBlockParam[] => (t === '' ? [] : [{ type: 'text', text: t }]);
  const { system, turns } = toTurns<ContentBlockParam>(messages, (m) => {
    switch (m.role) {
      case 'user':
        return text(m.content);
      case 'assistant':
        return [...text(m.content), ...(m.toolCalls ?? []).map((c): ContentBlockParam => ({ type: 'tool_use', id: c.id, name: c.name, input: c.arguments }))];
      case 'tool':
        return [{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content, ...(m.isError === true ? { is_error: true } : {}) }];
      default: {
        const never: never = m;
        return never;
      }
    }
  });
  return { system, messages: turns.map((t) => ({ role: t.role, content: t.blocks })) };
}

function stopReasonOf(reason: string | null): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'end';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    default:
      return 'other';
  }
}

/** The error types of an `error` event inside a stream, as the HTTP status they stand for. */
const STREAM_ERROR_STATUS: Record<string, number> = {
  overloaded_error: 529,
  api_error: 500,
  rate_limit_error: 429,
  invalid_request_error: 400,
  request_too_large: 413,
};

function classify(err: unknown, at: Endpoint, timeoutMs: number): KowalskiError | RetryableFailure {
  if (err instanceof APIConnectionTimeoutError) return timeoutError(at, timeoutMs, false);
  if (err instanceof APIConnectionError) {
    return connectionFailure(err, at) ?? new KowalskiError('KW_ERR_MODEL_UNREACHABLE', `cannot reach Anthropic at ${at.url} (${err.message})`, { cause: err });
  }
  if (err instanceof APIError) {
    const message = err.type === null ? err.apiMessage ?? err.message : `${err.type}: ${err.apiMessage ?? err.message}`;
    const status = err.status ?? (err.type === null ? undefined : STREAM_ERROR_STATUS[err.type]);
    if (status === 401 || status === 403) {
      return new KowalskiError('KW_ERR_MODEL_AUTH', `Anthropic refused the API key (${status} ${message}): set ANTHROPIC_API_KEY or the key in Setup`);
    }
    if (status === 404) {
      return new KowalskiError('KW_ERR_MODEL_NOT_FOUND', `Anthropic at ${at.url} has no model ${JSON.stringify(at.model)} (404 ${message}): check the model name`);
    }
    if (status !== undefined) return httpFailure(status, message, retryAfterMs(err.headers), at);
  }
  const connection = connectionFailure(err, at);
  if (connection !== undefined) return connection;
  return new KowalskiError('KW_ERR_MODEL_BAD_RESPONSE', `Anthropic at ${at.url} sent an answer that cannot be read: ${messageOf(err)}`, { cause: err });
}

interface Collected {
  content: string;
  toolCalls: ToolCall[];
  stopReason: string | null;
  inputTokens: number;
  outputTokens: number;
}

interface ToolBlock {
  id: string;
  name: string;
  input: unknown;
  json: string;
}

async function collect(stream: AsyncIterable<StreamEvent>, attempt: Attempt, at: Endpoint): Promise<Collected> {
  const out: Collected = { content: '', toolCalls: [], stopReason: null, inputTokens: 0, outputTokens: 0 };
  const tools = new Map<number, ToolBlock>();
  let stopped = false;
  for await (const event of stream) {
    attempt.touch();
    switch (event.type) {
      case 'message_start':
        out.inputTokens = event.message.usage.input_tokens;
        out.outputTokens = event.message.usage.output_tokens;
        break;
      case 'content_block_start':
        if (event.content_block.type === 'tool_use') {
          const { id, name, input } = event.content_block;
          tools.set(event.index, { id, name, input, json: '' });
        }
        break;
      case 'content_block_delta':
        if (event.delta.type === 'text_delta') {
          out.content += event.delta.text;
          attempt.emit(event.delta.text);
        } else if (event.delta.type === 'input_json_delta') {
          const tool = tools.get(event.index);
          if (tool !== undefined) tool.json += event.delta.partial_json;
        }
        break;
      case 'message_delta':
        out.stopReason = event.delta.stop_reason;
        out.outputTokens = event.usage.output_tokens;
        if (event.usage.input_tokens != null) out.inputTokens = event.usage.input_tokens;
        break;
      case 'message_stop':
        stopped = true;
        break;
      case 'content_block_stop':
        break;
      default: {
        const never: never = event;
        return never;
      }
    }
  }
  if (!stopped) throw new RetryableFailure('reset', `the answer from Anthropic at ${at.url} ended before message_stop`);
  for (const [, t] of [...tools].sort(([a], [b]) => a - b)) {
    out.toolCalls.push({ id: t.id, name: t.name, ...parseToolArguments(t.json === '' ? t.input : t.json) });
  }
  return out;
}

export class AnthropicProvider implements Provider {
  readonly name = 'anthropic';
  readonly #settings: ProviderSettings;
  #client: Anthropic | undefined;

  constructor(settings: ProviderSettings) {
    this.#settings = settings;
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const { apiKey, baseUrl = DEFAULT_ANTHROPIC_BASE_URL } = this.#settings.anthropic;
    const { timeoutMs } = this.#settings;
    if (apiKey === undefined || apiKey === '') {
      throw new KowalskiError('KW_ERR_MODEL_AUTH', 'no Anthropic API key: set ANTHROPIC_API_KEY or the key in Setup');
    }
    this.#client ??= new Anthropic({ apiKey, baseURL: baseUrl, maxRetries: 0, timeout: timeoutMs });
    const client = this.#client;
    const at: Endpoint = { label: 'Anthropic', url: baseUrl, model: request.model };
    const { system, messages } = toAnthropicMessages(request.messages);
    const body: Anthropic.Messages.MessageCreateParamsStreaming = {
      model: request.model,
      max_tokens: request.maxTokens ?? DEFAULT_MAX_TOKENS,
      messages,
      stream: true,
      ...(system === undefined ? {} : { system }),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(request.tools !== undefined && request.tools.length > 0
        ? { tools: request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })) }
        : {}),
    };
    const started = performance.now();
    const { value, attempts } = await withRetry(
      { at, settings: this.#settings, signal: request.signal, onToken: request.onToken },
      async (attempt) => collect(await client.messages.create(body, { signal: attempt.signal }), attempt, at),
      (err) => classify(err, at, timeoutMs),
    );
    const usage = { inputTokens: value.inputTokens, outputTokens: value.outputTokens };
    return {
      content: value.content,
      toolCalls: value.toolCalls,
      stopReason: stopReasonOf(value.stopReason),
      usage,
      costUsd: costOf({ provider: 'anthropic', model: request.model }, usage),
      latencyMs: Math.round(performance.now() - started),
      attempts,
    };
  }
}
