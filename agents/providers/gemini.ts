/**
 * Google Gemini over the official `@google/genai` SDK (the Gemini API, never Vertex),
 * streaming. The SDK's own retries stay off (no `retryOptions`), and so do its automatic
 * stream continuation and automatic function calling: retry.ts retries, the tool loop
 * calls tools. Each request carries the attempt's signal, and a `fetch` that keeps the
 * answer's headers for Retry-After (the SDK's ApiError has only a status and the body).
 */
import { ApiError, GoogleGenAI } from '@google/genai';
import type { GenerateContentConfig, GenerateContentResponse } from '@google/genai';
import { KowalskiError, messageOf } from '../../core/index.js';
import type { ChatRequest, ChatResponse, EmbedRequest, EmbedResponse, Provider, ProviderSettings, StopReason, ToolCall } from '../types.js';
import type { Attempt } from './attempt.js';
import { RetryableFailure, connectionFailure, httpFailure } from './errors.js';
import type { Endpoint } from './errors.js';
import { toGeminiContents, toGeminiTools } from './gemini-messages.js';
import { costOf } from './pricing.js';
import { retryAfterMs, withRetry } from './retry.js';
import { parseToolArguments } from './tool-args.js';

export const DEFAULT_GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';

/** The `error` object of a Gemini error body (google.rpc.Status). */
interface GeminiError {
  message?: string;
  status?: string;
  details?: Array<{ '@type'?: string; reason?: string; retryDelay?: string }>;
}

/** The SDK puts the whole error body, as JSON, in the message (after "got status: …. " for an error inside a stream). */
function errorOf(err: ApiError): GeminiError {
  const text = err.message;
  try {
    const body = JSON.parse(text.slice(Math.max(0, text.indexOf('{')))) as { error?: unknown };
    if (typeof body.error === 'object' && body.error !== null) return body.error as GeminiError;
  } catch {
    // not JSON: the text is the message
  }
  return { message: text };
}

/** google.rpc.RetryInfo's `retryDelay` ("12s", "0.5s"), which Gemini sends with a 429 instead of Retry-After. */
function retryDelayMs(error: GeminiError): number | undefined {
  const delay = error.details?.find((d) => d['@type']?.endsWith('google.rpc.RetryInfo') === true)?.retryDelay;
  const secs = delay === undefined ? undefined : /^(\d+(?:\.\d+)?)s$/.exec(delay)?.[1];
  return secs === undefined ? undefined : Number(secs) * 1000;
}

const NO_TOOLS = /function calling is not enabled|does not support (function calling|tools)|tool use .*not (supported|enabled)/i;

function classify(err: unknown, at: Endpoint, headers: Headers | undefined): KowalskiError | RetryableFailure {
  if (err instanceof ApiError) {
    const error = errorOf(err);
    const message = error.status === undefined ? error.message ?? err.message : `${error.status}: ${error.message ?? ''}`;
    const badKey = error.details?.some((d) => d.reason === 'API_KEY_INVALID') === true || /API key not valid/i.test(message);
    if (err.status === 401 || err.status === 403 || (err.status === 400 && badKey)) {
      return new KowalskiError('KW_ERR_MODEL_AUTH', `Gemini refused the API key (${err.status} ${message}): set GEMINI_API_KEY or the key in Setup`);
    }
    if (err.status === 404) {
      return new KowalskiError('KW_ERR_MODEL_NOT_FOUND', `Gemini at ${at.url} has no model ${JSON.stringify(at.model)} (404 ${message}): check the model name`);
    }
    if (err.status === 400 && NO_TOOLS.test(message)) {
      return new KowalskiError('KW_ERR_MODEL_NO_TOOLS', `the Gemini model ${at.model} does not support native tool calls (${message})`);
    }
    return httpFailure(err.status, message, retryAfterMs(headers) ?? retryDelayMs(error), at);
  }
  return connectionFailure(err, at)
    ?? new KowalskiError('KW_ERR_MODEL_BAD_RESPONSE', `Gemini at ${at.url} sent an answer that cannot be read: ${messageOf(err)}`, { cause: err });
}

interface Collected {
  content: string;
  toolCalls: ToolCall[];
  finishReason: string | undefined;
  inputTokens: number;
  outputTokens: number;
}

async function collect(stream: AsyncGenerator<GenerateContentResponse>, attempt: Attempt, at: Endpoint): Promise<Collected> {
  const out: Collected = { content: '', toolCalls: [], finishReason: undefined, inputTokens: 0, outputTokens: 0 };
  for await (const chunk of stream) {
    attempt.touch();
    const usage = chunk.usageMetadata;
    if (usage !== undefined) {
      // Running totals; thinking tokens are billed as output.
      out.inputTokens = usage.promptTokenCount ?? out.inputTokens;
      out.outputTokens = (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0);
    }
    const blocked = chunk.promptFeedback?.blockReason;
    if (blocked !== undefined) {
      throw new KowalskiError('KW_ERR_MODEL_REQUEST', `Gemini refused the prompt for ${at.model} (${blocked}${chunk.promptFeedback?.blockReasonMessage === undefined ? '' : `: ${chunk.promptFeedback.blockReasonMessage}`})`);
    }
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall !== undefined) {
        const { id, name = '', args } = part.functionCall;
        out.toolCalls.push({
          id: id ?? `call_${out.toolCalls.length + 1}`,
          name,
          ...parseToolArguments(args ?? {}),
          ...(part.thoughtSignature === undefined ? {} : { signature: part.thoughtSignature }),
        });
      } else if (part.text !== undefined && part.thought !== true) {
        out.content += part.text;
        attempt.emit(part.text);
      }
    }
    if (candidate?.finishReason !== undefined) out.finishReason = candidate.finishReason;
  }
  if (out.finishReason === undefined) throw new RetryableFailure('reset', `the answer from Gemini at ${at.url} ended before its finishReason`);
  return out;
}

function stopReasonOf(reason: string | undefined, calledTools: boolean): StopReason {
  if (calledTools) return 'tool_calls';
  if (reason === 'STOP') return 'end';
  if (reason === 'MAX_TOKENS') return 'max_tokens';
  return 'other';
}

export class GeminiProvider implements Provider {
  readonly name = 'gemini';
  readonly #settings: ProviderSettings;
  #client: GoogleGenAI | undefined;

  constructor(settings: ProviderSettings) {
    this.#settings = settings;
  }

  #connect(model: string): { client: GoogleGenAI; at: Endpoint } {
    const { apiKey, baseUrl = DEFAULT_GEMINI_BASE_URL } = this.#settings.gemini ?? {};
    if (apiKey === undefined || apiKey === '') {
      throw new KowalskiError('KW_ERR_MODEL_AUTH', 'no Gemini API key: set GEMINI_API_KEY or the key in Setup');
    }
    // vertexai: false, so that GOOGLE_GENAI_USE_VERTEXAI in the environment cannot switch the backend.
    this.#client ??= new GoogleGenAI({ apiKey, vertexai: false, httpOptions: { baseUrl } });
    return { client: this.#client, at: { label: 'Gemini', url: baseUrl, model } };
  }

  /** A `fetch` for one request that keeps the answer's headers (for Retry-After). */
  static #keepingHeaders(keep: (headers: Headers) => void): typeof fetch {
    return async (input, init) => {
      const response = await fetch(input, init);
      keep(response.headers);
      return response;
    };
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const { client, at } = this.#connect(request.model);
    const { systemInstruction, contents } = toGeminiContents(request.messages);
    const tools = toGeminiTools(request.tools);
    let headers: Headers | undefined;
    const config = (attempt: Attempt): GenerateContentConfig => ({
      abortSignal: attempt.signal,
      httpOptions: { fetch: GeminiProvider.#keepingHeaders((h) => (headers = h)) },
      automaticFunctionCalling: { disable: true },
      automaticContinuation: false,
      ...(systemInstruction === undefined ? {} : { systemInstruction }),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      ...(request.maxTokens === undefined ? {} : { maxOutputTokens: request.maxTokens }),
      ...(tools === undefined ? {} : { tools }),
    });
    const started = performance.now();
    const { value, attempts } = await withRetry(
      { at, settings: this.#settings, signal: request.signal, onToken: request.onToken },
      async (attempt) => {
        headers = undefined;
        return collect(await client.models.generateContentStream({ model: request.model, contents, config: config(attempt) }), attempt, at);
      },
      (err) => classify(err, at, headers),
    );
    const usage = { inputTokens: value.inputTokens, outputTokens: value.outputTokens };
    return {
      content: value.content,
      toolCalls: value.toolCalls,
      stopReason: stopReasonOf(value.finishReason, value.toolCalls.length > 0),
      usage,
      costUsd: costOf({ provider: 'gemini', model: request.model }, usage),
      latencyMs: Math.round(performance.now() - started),
      attempts,
    };
  }

  /** `batchEmbedContents`: one request for every text. Gemini reports no token count for it, so usage and cost are unknown (null). */
  async embed(request: EmbedRequest): Promise<EmbedResponse> {
    const { client, at } = this.#connect(request.model);
    if (request.texts.length === 0) return { vectors: [], usage: { inputTokens: 0 }, costUsd: 0, latencyMs: 0, attempts: 0 };
    const started = performance.now();
    let headers: Headers | undefined;
    const { value, attempts } = await withRetry(
      { at, settings: this.#settings, signal: request.signal },
      async (attempt) => {
        headers = undefined;
        const answer = await client.models.embedContent({
          model: request.model,
          // One Content per text (plain strings could be joined into one content by the SDK).
          contents: request.texts.map((text) => ({ role: 'user', parts: [{ text }] })),
          config: { abortSignal: attempt.signal, httpOptions: { fetch: GeminiProvider.#keepingHeaders((h) => (headers = h)) } },
        });
        attempt.touch();
        const vectors = (answer.embeddings ?? []).map((e) => e.values ?? []);
        if (vectors.length !== request.texts.length || vectors.some((v) => v.length === 0)) {
          throw new KowalskiError('KW_ERR_MODEL_BAD_RESPONSE', `Gemini at ${at.url} sent ${vectors.length} embeddings for ${request.texts.length} texts`);
        }
        return vectors;
      },
      (err) => classify(err, at, headers),
    );
    return { vectors: value, usage: { inputTokens: null }, costUsd: null, latencyMs: Math.round(performance.now() - started), attempts };
  }
}
