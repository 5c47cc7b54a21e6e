/**
 * The model layer's one internal shape: messages, tool definitions, tool calls, usage
 * and stop reasons, the same for every provider. Plain data (structured-clone and JSON
 * safe) except the signal and the token callback of a request.
 */
import type { ChatMessage, ToolCall } from '../contract/traces.js';
export type { ChatMessage, ToolCall } from '../contract/traces.js';

/** A JSON Schema for a tool's arguments: always an object schema. */
export interface JsonSchemaObject {
  type: 'object';
  properties?: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean | Record<string, unknown>;
  [key: string]: unknown;
}

/** A tool as offered to a model: its name, what it does, the schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchemaObject;
}

export interface ChatRequest {
  /** The provider's own model name (no `provider:` prefix), e.g. `qwen2.5:7b`. */
  model: string;
  messages: ChatMessage[];
  /** Tools offered natively (in the provider's tool field); absent or empty = none. */
  tools?: ToolSpec[];
  maxTokens?: number;
  temperature?: number;
  /** Cancels the call, also mid-stream; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Streaming: called with each piece of text as it arrives. */
  onToken?: (text: string) => void;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export type StopReason = 'end' | 'tool_calls' | 'max_tokens' | 'other';

export interface ChatResponse {
  /** The text the model wrote (may be empty when it only called tools). */
  content: string;
  toolCalls: ToolCall[];
  stopReason: StopReason;
  usage: Usage;
  /** US dollars; 0 for local models; null when the price of this model is unknown. */
  costUsd: number | null;
  /** From the first byte sent to the last byte received, retries included. */
  latencyMs: number;
  /** HTTP attempts made (1 + retries). */
  attempts: number;
}

export type ProviderName = 'ollama' | 'anthropic' | 'openai' | 'gemini';

export interface EmbedRequest {
  /** The provider's own model name, e.g. `gemini-embedding-001`, `nomic-embed-text`. */
  model: string;
  texts: string[];
  signal?: AbortSignal;
}

export interface EmbedResponse {
  /** One vector per text, in the order of `texts`. */
  vectors: number[][];
  /** `inputTokens` is null when the provider does not say (Gemini's embedding API). */
  usage: { inputTokens: number | null };
  /** US dollars; 0 for local models; null when unknown. */
  costUsd: number | null;
  latencyMs: number;
  attempts: number;
}

export interface Provider {
  readonly name: ProviderName;
  /** Rejects with a KowalskiError whose code says what went wrong (KW_ERR_MODEL_*). */
  chat(request: ChatRequest): Promise<ChatResponse>;
  /** Embeddings, where the provider has them (Gemini, Ollama, OpenAI-compatible); same errors, retries and cancellation as `chat`. */
  embed?(request: EmbedRequest): Promise<EmbedResponse>;
}

/** `provider:model`, e.g. `ollama:qwen2.5:7b` → { provider: 'ollama', model: 'qwen2.5:7b' }. */
export interface ModelRef {
  provider: ProviderName;
  model: string;
}

/** How a model is asked to call tools: in the provider's tool field, or in a documented text format. */
export type ToolCallingMode = 'native' | 'text';
export type ToolCallingSetting = 'auto' | ToolCallingMode;

/** Everything a provider needs to be built; read from config.toml and the environment by the engine. */
export interface ProviderSettings {
  ollama: { host: string };
  anthropic: { apiKey?: string; baseUrl?: string };
  openai?: { baseUrl: string; apiKey?: string };
  /** Absent when neither a key nor a base URL is set (a `gemini:` model then fails with KW_ERR_MODEL_AUTH). */
  gemini?: { apiKey?: string; baseUrl?: string };
  /** Per HTTP attempt (default 120 000 ms); a stream that goes silent this long also fails. */
  timeoutMs: number;
  /** Retries on 429 / 5xx / connection reset (default 3), with exponential backoff from `retryBaseMs` (default 500 ms), honouring Retry-After. */
  maxRetries: number;
  retryBaseMs: number;
}

/** The result a tool gives back to the model. */
export interface ToolOutput {
  /** Text for the model. */
  content: string;
  /** Anything worth keeping in the trace (final URL, bytes, row count…), never shown to the model. */
  meta?: Record<string, unknown>;
  /** The tool's typed result (an MCP tool's `structuredContent`), for steps that read it rather than a model. */
  structured?: unknown;
}

/** Who asked for a tool call, when a chat agent did: what a tool that writes records beside its change (the vault's audit). */
export interface ToolCaller {
  sessionId: string;
  agent: string;
  /** The trace of the model call whose answer asked for this call (null only when its row could not be found). */
  traceId: number | null;
  /** The call's durable key (`<session>:<turn>:<node>:<seq>:<index>`): the same call made again after a crash has the same key. */
  key: string;
}

export interface ToolContext {
  signal: AbortSignal;
  /** Absent for a horde's model step. */
  caller?: ToolCaller;
}

/**
 * A tool: explicit, named, with a JSON schema. Arguments are checked against the schema
 * before `call` (by the registry); a failure throws a KowalskiError with a code and a
 * message the model can act on.
 */
export interface Tool {
  spec: ToolSpec;
  /** Safe to run again when a crash left a call's outcome unknown (it only reads). Absent: not safe. */
  idempotent?: boolean;
  call(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}
