/** Chat sessions with the agent team (`/api/chat`): their summaries and their transcripts. */
import type { CodedError } from './errors.js';

export type ChatState = 'idle' | 'running' | 'exhausted';
/** How a turn ended. */
export type ChatStop = 'done' | 'budget_exhausted' | 'error';

export interface TurnUsage {
  calls: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** null when any call's price is unknown. */
  costUsd: number | null;
}

/** Work a turn stopped before finishing (its budget ran out). */
export interface UndoneWork {
  node: string;
  agent: string;
  /** What it was asked to do. */
  task: string;
}

export interface ChatSessionSummary {
  id: string;
  agent: string;
  title: string;
  state: ChatState;
  turns: number;
  lastStop: ChatStop | null;
  budget: { limit: number; used: number };
  usage: { calls: number; inputTokens: number; outputTokens: number };
  createdAt: number;
  updatedAt: number;
  /** The sequence number of the session's last event (follow it on the websocket from here). */
  lastSeq: number;
  /** Set on a session an `agent` step of a run made (in the session's view): the run and the step. */
  run?: { runId: string; step: string };
}

/**
 * A tool call's or a delegation's state: `stopped` when the turn ended (its budget ran out, or
 * an error) before it finished; more budget for the turn takes it up again (`running`).
 */
export type TurnItemStatus = 'running' | 'done' | 'failed' | 'stopped';

/** What the agents did in a turn, in the order it started. Node `r` is the root agent, `r/2.0` one it delegated to. */
export type TurnItem<Code extends string = string> =
  | {
      kind: 'tool';
      node: string;
      agent: string;
      name: string;
      arguments: Record<string, unknown>;
      status: TurnItemStatus;
      /** Cut at 2 000 characters (the trace keeps it whole). */
      result?: string;
      error?: CodedError<Code>;
      /** The run the call started (`run_horde`). */
      runId?: string;
      at: number;
    }
  | {
      kind: 'delegation';
      node: string;
      parent: string;
      agent: string;
      task: string;
      status: TurnItemStatus;
      /** The sub-agent's answer. */
      text?: string;
      error?: CodedError<Code>;
      at: number;
    };

export interface TurnView<Code extends string = string> {
  turn: number;
  /** The user's message. */
  text: string;
  at: number;
  agent: string;
  budget: { limit: number; used: number };
  items: TurnItem<Code>[];
  /** The memories given to the model before the turn (or why none could be found). */
  memories?: { notes: Array<{ path: string; text: string }>; error?: CodedError<Code> };
  /** Earlier turns up to `through` were folded into this summary before the turn. */
  summary?: { through: number; text: string };
  /** Set once the turn has ended (again, after more budget). */
  answer?: { text: string; stop: ChatStop; usage: TurnUsage; error?: CodedError<Code>; undone?: UndoneWork[]; at: number };
}

/** `GET /api/chat/:id`: a session and its transcript, folded from its log. */
export interface ChatSessionView<Code extends string = string> extends ChatSessionSummary { transcript: TurnView<Code>[] }
