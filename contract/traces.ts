/** Traces of model calls as the API shows them (`GET /api/traces`, `/api/traces/:id`). */

/** One tool call a model asked for. */
export interface ToolCall {
  /** The provider's id for the call (Anthropic `toolu_…`), or one made up (`call_1`) where the provider has none. */
  id: string;
  name: string;
  /** The parsed arguments; `{}` when they did not parse (see `argumentsError`). */
  arguments: Record<string, unknown>;
  /** Set when the model's arguments were not a JSON object: what was wrong. */
  argumentsError?: string;
  /** The arguments exactly as the model wrote them, when they arrived as text. */
  rawArguments?: string;
  /** Opaque data the provider wants back with this call in later turns (Gemini's `thoughtSignature`). */
  signature?: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean };

/** A tool call the model made in a traced call, and what came of it. */
export interface TracedToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** As the model wrote them, when they were not valid JSON. */
  rawArguments?: string;
  /** What the model was given back (a result, or an error it can correct). */
  result: string;
  error?: { code: string; message: string };
  durationMs: number;
  /** Extra data the tool reported (final URL, bytes, …). */
  meta?: Record<string, unknown>;
}

/** A trace without its prompt and completion: what lists show. */
export interface TraceSummary {
  id: number;
  runId: string;
  step: string;
  attempt: number;
  /** 1, 2, … within the step attempt. */
  seq: number;
  /** `ollama`, `anthropic`, `openai`, `gemini`, as the server stores it. */
  provider: string;
  model: string;
  /** How tools were offered: `native` or `text`. */
  mode: string;
  inputTokens: number;
  outputTokens: number;
  /** US dollars; 0 for a local model, null when the price is unknown. */
  costUsd: number | null;
  latencyMs: number;
  /** HTTP attempts, 1 + retries. */
  attempts: number;
  toolCalls: number;
  error: { code: string; message: string } | null;
  startedAt: number;
  /** A chat model call: its session (then `runId` is the session, `step` the node of the delegation tree, `attempt` the turn). */
  sessionId: string | null;
  /** The trace of the model call that delegated to this agent. */
  parentId: number | null;
  /** The agent profile that made a chat call. */
  agent: string | null;
  /** The call was not made: its answer was replayed from an earlier run's trace (a re-run with --replay-models; no HTTP attempt, no tokens). */
  replayed: boolean;
}

export interface TraceDetail extends TraceSummary {
  /** The prompt as sent. */
  messages: ChatMessage[];
  /** Names of the tools offered. */
  tools: string[];
  completion: string;
  calls: TracedToolCall[];
  /** The earlier run's trace whose answer this call replayed. */
  replayedFrom?: number;
}

/** `GET /api/traces`: newest first; `nextBefore` asks for the page after. */
export interface TracePage { traces: TraceSummary[]; nextBefore: number | null }
