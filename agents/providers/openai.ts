/**
 * OpenAI-compatible servers (LM Studio, llama.cpp, vLLM, OpenAI itself): streaming
 * `POST {base_url}/chat/completions`, read as server-sent events, and `POST
 * {base_url}/embeddings`. Spoken with undici's fetch because the `openai` package needs Node 22.
 */
import type { Response } from 'undici';
import { KowalskiError, messageOf } from '../../core/index.js';
import type { ChatMessage, ChatRequest, ChatResponse, EmbedRequest, EmbedResponse, Provider, ProviderSettings, StopReason, ToolCall } from '../types.js';
import type { Attempt } from './attempt.js';
import { RetryableFailure, connectionFailure, httpFailure } from './errors.js';
import type { Endpoint } from './errors.js';

/** undici, loaded at the first request: a process that never asks such a server (every CLI command) does not load it. */
const undici = () => import('undici');
import { costOf } from './pricing.js';
import { retryAfterMs, withRetry } from './retry.js';
import { parseToolArguments } from './tool-args.js';

type OpenAIMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> }
  | { role: 'tool'; tool_call_id: string; content: string };

function toOpenAIMessage(m: ChatMessage): OpenAIMessage {
  switch (m.role) {
    case 'system':
    case 'user':
      return { role: m.role, content: m.content };
    case 'assistant':
      if (m.toolCalls === undefined || m.toolCalls.length === 0) return { role: 'assistant', content: m.content };
      return {
        role: 'assistant',
        content: m.content,
        tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
      };
    case 'tool':
      // The format has no error flag: the tool loop's wording of the result says it failed.
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    default: {
      const never: never = m;
      return never;
    }
  }
}

/** The parts of a streamed chunk this provider reads. */
interface Chunk {
  choices?: Array<{
    delta?: {
      content?: string | null;
      tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
    };
    finish_reason?: string | null;
  }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string };
}

function stopReasonOf(reason: string | null, calledTools: boolean): StopReason {
  if (calledTools || reason === 'tool_calls' || reason === 'function_call') return 'tool_calls';
  if (reason === 'stop') return 'end';
  if (reason === 'length') return 'max_tokens';
  return 'other';
}

/** Each event's `data`, joined across its lines; ends at `[DONE]` or the end of the body. */
async function* sseData(response: Response, attempt: Attempt): AsyncGenerator<string> {
  if (response.body === null) return;
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  for await (const bytes of response.body) {
    attempt.touch();
    buffer += decoder.decode(bytes as Uint8Array, { stream: true });
    const lines = buffer.split(/\r?\n/);
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') {
        if (data.length > 0) {
          const payload = data.join('\n');
          data = [];
          if (payload === '[DONE]') return;
          yield payload;
        }
      } else if (line.startsWith('data:')) {
        data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
    }
  }
  if (data.length > 0 && data.join('\n') !== '[DONE]') yield data.join('\n');
}

async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    const message = typeof body.error === 'string' ? body.error : body.error?.message ?? body.message;
    if (typeof message === 'string' && message !== '') return message;
  } catch {
    // not JSON: the text itself is the message
  }
  return text.trim() === '' ? response.statusText : text.trim();
}

interface Collected {
  content: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
  inputTokens: number;
  outputTokens: number;
}

async function collect(response: Response, attempt: Attempt, at: Endpoint): Promise<Collected> {
  const out: Collected = { content: '', toolCalls: [], finishReason: null, inputTokens: 0, outputTokens: 0 };
  const calls = new Map<number, { id: string; name: string; args: string }>();
  for await (const data of sseData(response, attempt)) {
    let chunk: Chunk;
    try {
      chunk = JSON.parse(data) as Chunk;
    } catch {
      throw new KowalskiError('KW_ERR_MODEL_BAD_RESPONSE', `${at.label} at ${at.url} sent an event that is not JSON: ${data.slice(0, 200)}`);
    }
    if (chunk.error !== undefined) throw new RetryableFailure(500, `error in the answer stream: ${chunk.error.message ?? JSON.stringify(chunk.error)}`);
    if (chunk.usage != null) {
      out.inputTokens = chunk.usage.prompt_tokens ?? out.inputTokens;
      out.outputTokens = chunk.usage.completion_tokens ?? out.outputTokens;
    }
    const choice = chunk.choices?.[0];
    if (choice === undefined) continue;
    const text = choice.delta?.content ?? '';
    out.content += text;
    attempt.emit(text);
    for (const piece of choice.delta?.tool_calls ?? []) {
      const index = piece.index ?? calls.size;
      const call = calls.get(index) ?? { id: '', name: '', args: '' };
      call.id ||= piece.id ?? '';
      call.name += piece.function?.name ?? '';
      call.args += piece.function?.arguments ?? '';
      calls.set(index, call);
    }
    if (choice.finish_reason != null) out.finishReason = choice.finish_reason;
  }
  if (out.finishReason === null) throw new RetryableFailure('reset', `the answer from ${at.label} at ${at.url} ended before its finish_reason`);
  [...calls].sort(([a], [b]) => a - b).forEach(([, c], i) => {
    out.toolCalls.push({ id: c.id === '' ? `call_${i + 1}` : c.id, name: c.name, ...parseToolArguments(c.args) });
  });
  return out;
}

export class OpenAICompatibleProvider implements Provider {
  readonly name = 'openai';
  readonly #settings: ProviderSettings;
  readonly #server: NonNullable<ProviderSettings['openai']>;

  constructor(settings: ProviderSettings) {
    if (settings.openai === undefined) {
      throw new KowalskiError('KW_ERR_NO_MODEL', 'an openai: model needs an OpenAI-compatible server: set [providers.openai] base_url in config.toml (e.g. "http://127.0.0.1:1234/v1" for LM Studio)');
    }
    this.#settings = settings;
    this.#server = settings.openai;
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const { baseUrl } = this.#server;
    const at: Endpoint = { label: 'the OpenAI-compatible server', url: baseUrl, model: request.model };
    const body = JSON.stringify({
      model: request.model,
      messages: request.messages.map(toOpenAIMessage),
      stream: true,
      stream_options: { include_usage: true },
      ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(request.tools !== undefined && request.tools.length > 0
        ? { tools: request.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } })) }
        : {}),
    });
    const headers = this.#headers('text/event-stream');
    const started = performance.now();
    const { value, attempts } = await withRetry(
      { at, settings: this.#settings, signal: request.signal, onToken: request.onToken },
      async (attempt) => {
        const response = await (await undici()).fetch(`${baseUrl}/chat/completions`, { method: 'POST', headers, body, signal: attempt.signal });
        attempt.touch();
        if (!response.ok) {
          const message = await errorMessage(response);
          if (response.status === 404) {
            throw new KowalskiError('KW_ERR_MODEL_NOT_FOUND', `${at.label} at ${baseUrl} has no model ${JSON.stringify(request.model)} (404 ${message}): load or download it there first`);
          }
          throw httpFailure(response.status, message, retryAfterMs(response.headers), at);
        }
        return collect(response, attempt, at);
      },
      (err) => connectionFailure(err, at)
        ?? new KowalskiError('KW_ERR_MODEL_BAD_RESPONSE', `${at.label} at ${baseUrl} sent an answer that cannot be read: ${messageOf(err)}`, { cause: err }),
    );
    const usage = { inputTokens: value.inputTokens, outputTokens: value.outputTokens };
    return {
      content: value.content,
      toolCalls: value.toolCalls,
      stopReason: stopReasonOf(value.finishReason, value.toolCalls.length > 0),
      usage,
      costUsd: costOf({ provider: 'openai', model: request.model }, usage),
      latencyMs: Math.round(performance.now() - started),
      attempts,
    };
  }
  /** `POST {base_url}/embeddings` with every text; the vectors come back in the order of `texts` (by each one's `index`). */
  async embed(request: EmbedRequest): Promise<EmbedResponse> {
    const { baseUrl } = this.#server;
    const at: Endpoint = { label: 'the OpenAI-compatible server', url: baseUrl, model: request.model };
    if (request.texts.length === 0) return { vectors: [], usage: { inputTokens: 0 }, costUsd: 0, latencyMs: 0, attempts: 0 };
    const body = JSON.stringify({ model: request.model, input: request.texts, encoding_format: 'float' });
    const started = performance.now();
    const { value, attempts } = await withRetry(
      { at, settings: this.#settings, signal: request.signal },
      async (attempt) => {
        const response = await (await undici()).fetch(`${baseUrl}/embeddings`, { method: 'POST', headers: this.#headers('application/json'), body, signal: attempt.signal });
        attempt.touch();
        if (!response.ok) {
          const message = await errorMessage(response);
          if (response.status === 404) {
            throw new KowalskiError('KW_ERR_MODEL_NOT_FOUND', `${at.label} at ${baseUrl} has no embedding model ${JSON.stringify(request.model)} (404 ${message}): load or download it there first`);
          }
          throw httpFailure(response.status, message, retryAfterMs(response.headers), at);
        }
        const answer = (await response.json()) as { data?: Array<{ index?: number; embedding?: unknown }>; usage?: { prompt_tokens?: number } };
        const data = [...(answer.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
        const vectors = data.map((d) => d.embedding);
        if (vectors.length !== request.texts.length || !vectors.every((v): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number'))) {
          throw new KowalskiError('KW_ERR_MODEL_BAD_RESPONSE', `${at.label} at ${baseUrl} sent ${vectors.length} embeddings (as arrays of numbers) for ${request.texts.length} texts`);
        }
        return { vectors, inputTokens: answer.usage?.prompt_tokens ?? null };
      },
      (err) => connectionFailure(err, at)
        ?? new KowalskiError('KW_ERR_MODEL_BAD_RESPONSE', `${at.label} at ${baseUrl} sent an answer that cannot be read: ${messageOf(err)}`, { cause: err }),
    );
    return {
      vectors: value.vectors,
      usage: { inputTokens: value.inputTokens },
      costUsd: value.inputTokens === null ? null : costOf({ provider: 'openai', model: request.model }, { inputTokens: value.inputTokens, outputTokens: 0 }),
      latencyMs: Math.round(performance.now() - started),
      attempts,
    };
  }

  #headers(accept: string): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept };
    if (this.#server.apiKey !== undefined) headers.authorization = `Bearer ${this.#server.apiKey}`;
    return headers;
  }
}
