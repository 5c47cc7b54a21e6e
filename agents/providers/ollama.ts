/**
 * Ollama over the official `ollama` client, always streaming. The client offers no way
 * to cancel a request before its answer starts (its own abort controller only exists
 * once the stream does), so every attempt gets a client whose `fetch` also carries the
 * attempt's signal: cancelling or the silence watchdog then closes the connection at once.
 */
import { Ollama } from 'ollama';
import type { ChatResponse as OllamaChunk, Message as OllamaMessage, Tool as OllamaTool, ToolCall as OllamaToolCall } from 'ollama';
import { KowalskiError, messageOf } from '../../core/index.js';
import type { ChatMessage, ChatRequest, ChatResponse, EmbedRequest, EmbedResponse, Provider, ProviderSettings, StopReason, ToolSpec } from '../types.js';
import type { Attempt } from './attempt.js';
import { RetryableFailure, connectionFailure, httpFailure } from './errors.js';
import type { Endpoint } from './errors.js';
import { costOf } from './pricing.js';
import { retryAfterMs, withRetry } from './retry.js';
import { parseToolArguments } from './tool-args.js';

function toOllamaMessage(m: ChatMessage): OllamaMessage {
  switch (m.role) {
    case 'system':
    case 'user':
      return { role: m.role, content: m.content };
    case 'assistant': {
      if (m.toolCalls === undefined || m.toolCalls.length === 0) return { role: 'assistant', content: m.content };
      const toolCalls: OllamaToolCall[] = m.toolCalls.map((c) => ({ function: { name: c.name, arguments: c.arguments } }));
      return { role: 'assistant', content: m.content, tool_calls: toolCalls };
    }
    case 'tool':
      // Ollama has no call ids and no error flag: a result is matched to its call by name.
      return { role: 'tool', content: m.content, tool_name: m.toolName };
    default: {
      const never: never = m;
      return never;
    }
  }
}

function toOllamaTool(spec: ToolSpec): OllamaTool {
  return { type: 'function', function: { name: spec.name, description: spec.description, parameters: spec.inputSchema as NonNullable<OllamaTool['function']['parameters']> } };
}

function stopReasonOf(doneReason: string | undefined, calledTools: boolean): StopReason {
  if (calledTools) return 'tool_calls';
  if (doneReason === 'stop') return 'end';
  if (doneReason === 'length') return 'max_tokens';
  return 'other';
}

/** Ollama's client throws a ResponseError for an HTTP error status; it is not exported, so it is recognised by shape. */
function responseError(err: unknown): { status: number; message: string } | undefined {
  if (!(err instanceof Error) || err.name !== 'ResponseError') return undefined;
  const status = (err as { status_code?: unknown }).status_code;
  return typeof status === 'number' ? { status, message: err.message } : undefined;
}

function classify(err: unknown, at: Endpoint, headers: Headers | undefined): KowalskiError | RetryableFailure {
  const http = responseError(err);
  if (http !== undefined) {
    if (http.status === 404) {
      return new KowalskiError('KW_ERR_MODEL_NOT_FOUND', `Ollama at ${at.url} has no model ${JSON.stringify(at.model)} (${http.message}): run \`ollama pull ${at.model}\``);
    }
    if (http.status === 400 && /does not support tools/i.test(http.message)) {
      return new KowalskiError('KW_ERR_MODEL_NO_TOOLS', `the Ollama model ${at.model} does not support native tool calls (${http.message})`);
    }
    return httpFailure(http.status, http.message, retryAfterMs(headers), at);
  }
  const connection = connectionFailure(err, at);
  if (connection !== undefined) return connection;
  if (err instanceof Error && err.message === 'Did not receive done or success response in stream.') {
    return new RetryableFailure('reset', `the answer from Ollama at ${at.url} stopped before it was done`);
  }
  // A line `{"error": …}` in the middle of the stream (the model runner failed) becomes a plain Error.
  if (err instanceof Error && err.constructor === Error && err.message !== 'Missing body') {
    return new RetryableFailure(500, `error in the answer stream: ${err.message}`);
  }
  return new KowalskiError('KW_ERR_MODEL_BAD_RESPONSE', `Ollama at ${at.url} sent an answer that cannot be read: ${messageOf(err)}`, { cause: err });
}

interface Collected {
  content: string;
  calls: OllamaToolCall[];
  done: OllamaChunk;
}

export class OllamaProvider implements Provider {
  readonly name = 'ollama';
  readonly #settings: ProviderSettings;

  constructor(settings: ProviderSettings) {
    this.#settings = settings;
  }

  /** A client for one attempt: its `fetch` carries the attempt's signal and keeps the answer's headers (for Retry-After). */
  #client(attempt: Attempt, keep: (headers: Headers) => void): Ollama {
    return new Ollama({
      host: this.#settings.ollama.host,
      fetch: async (input, init) => {
        const signal = init?.signal == null ? attempt.signal : AbortSignal.any([init.signal, attempt.signal]);
        const response = await fetch(input, { ...init, signal });
        keep(response.headers);
        return response;
      },
    });
  }

  #endpoint(model: string): Endpoint {
    return { label: 'Ollama', url: this.#settings.ollama.host, model, refusedHint: ': is `ollama serve` running?' };
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const host = this.#settings.ollama.host;
    const at = this.#endpoint(request.model);
    const options: Record<string, number> = {};
    if (request.temperature !== undefined) options.temperature = request.temperature;
    if (request.maxTokens !== undefined) options.num_predict = request.maxTokens;
    const body = {
      model: request.model,
      messages: request.messages.map(toOllamaMessage),
      ...(request.tools !== undefined && request.tools.length > 0 ? { tools: request.tools.map(toOllamaTool) } : {}),
      ...(Object.keys(options).length > 0 ? { options } : {}),
      stream: true as const,
    };
    let headers: Headers | undefined;
    const once = async (attempt: Attempt): Promise<Collected> => {
      headers = undefined;
      const client = this.#client(attempt, (h) => (headers = h));
      const stream = await client.chat(body);
      let content = '';
      const calls: OllamaToolCall[] = [];
      for await (const chunk of stream) {
        attempt.emit(chunk.message?.content ?? '');
        content += chunk.message?.content ?? '';
        calls.push(...(chunk.message?.tool_calls ?? []));
        if (chunk.done) return { content, calls, done: chunk };
      }
      throw new KowalskiError('KW_ERR_MODEL_BAD_RESPONSE', `the answer from Ollama at ${host} ended without its last message`);
    };
    const started = performance.now();
    const { value, attempts } = await withRetry(
      { at, settings: this.#settings, signal: request.signal, onToken: request.onToken },
      once,
      (err) => classify(err, at, headers),
    );
    const toolCalls = value.calls.map((c, i) => ({ id: `call_${i + 1}`, name: c.function.name, ...parseToolArguments(c.function.arguments) }));
    const usage = { inputTokens: value.done.prompt_eval_count ?? 0, outputTokens: value.done.eval_count ?? 0 };
    return {
      content: value.content,
      toolCalls,
      stopReason: stopReasonOf(value.done.done_reason, toolCalls.length > 0),
      usage,
      costUsd: costOf({ provider: 'ollama', model: request.model }, usage),
      latencyMs: Math.round(performance.now() - started),
      attempts,
    };
  }

  /** `POST /api/embed` with every text; local, so free. */
  async embed(request: EmbedRequest): Promise<EmbedResponse> {
    const at = this.#endpoint(request.model);
    if (request.texts.length === 0) return { vectors: [], usage: { inputTokens: 0 }, costUsd: 0, latencyMs: 0, attempts: 0 };
    const started = performance.now();
    let headers: Headers | undefined;
    const { value, attempts } = await withRetry(
      { at, settings: this.#settings, signal: request.signal },
      async (attempt) => {
        headers = undefined;
        const answer = await this.#client(attempt, (h) => (headers = h)).embed({ model: request.model, input: request.texts });
        attempt.touch();
        if (answer.embeddings.length !== request.texts.length) {
          throw new KowalskiError('KW_ERR_MODEL_BAD_RESPONSE', `Ollama at ${at.url} sent ${answer.embeddings.length} embeddings for ${request.texts.length} texts`);
        }
        return answer;
      },
      (err) => classify(err, at, headers),
    );
    return {
      vectors: value.embeddings,
      usage: { inputTokens: value.prompt_eval_count ?? null },
      costUsd: 0,
      latencyMs: Math.round(performance.now() - started),
      attempts,
    };
  }
}
