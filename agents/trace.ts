/**
 * What is recorded about each provider call: one row per call, with the prompt as sent,
 * the completion, the tool calls it asked for and what each returned, tokens, cost,
 * latency and the error if it failed. Plain data: it travels from a step's thread to
 * the engine, which stores it.
 */
import type { ChatMessage, ProviderName, ToolCallingMode, Usage } from './types.js';
import type { TracedToolCall } from '../contract/traces.js';
export type { TracedToolCall } from '../contract/traces.js';

export interface ModelCallTrace {
  /** 1, 2, … within the step attempt. */
  seq: number;
  provider: ProviderName;
  model: string;
  /** How tools were offered in this call. */
  mode: ToolCallingMode;
  /** The whole prompt as sent. */
  messages: ChatMessage[];
  /** Names of the tools offered. */
  tools: string[];
  completion: string;
  toolCalls: TracedToolCall[];
  usage: Usage;
  costUsd: number | null;
  latencyMs: number;
  attempts: number;
  error?: { code: string; message: string };
  /** ms since the epoch. */
  startedAt: number;
  /** The call was not made: its answer is the one recorded in this trace of an earlier run (`kowalski rerun --replay-models`). */
  replayedFrom?: number;
}
