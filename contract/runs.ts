/** Runs as the API shows them (`/api/runs`, `/api/runs/:id`, its review, its events). */
import type { BudgetView } from './budget.js';

/** The run states every client sees. */
export type RunState = 'queued' | 'running' | 'awaiting_input' | 'succeeded' | 'failed' | 'cancelled';

export interface RunRow {
  id: string;
  hordeId: string;
  hordeHash: string;
  state: RunState;
  provenance: string;
  input: Record<string, string>;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  errorCode: string | null;
  error: string | null;
  lastSeq: number;
}

/** `GET /api/runs`: newest first; `nextCursor` asks for the page after. */
export interface RunPage { runs: RunRow[]; nextCursor: string | null }

export type AttemptState = 'running' | 'passed' | 'failed' | 'interrupted' | 'cancelled';

export interface AttemptRow {
  step: string;
  attempt: number;
  state: AttemptState;
  startedAt: number;
  finishedAt: number | null;
  durationMs: number | null;
  /** Relative to the run's workdir. */
  artifact: string | null;
  summary: string | null;
  errorCode: string | null;
  error: string | null;
}

/** The command an approval binds to. */
export interface ApprovalCommand {
  argv: string[];
  cwd: string;
  /** Names only, never values. */
  env: string[];
}

export type ApprovalReason = 'confirm_command' | 'outcome_unknown' | 'review';

export interface ApprovalRow {
  step: string;
  seq: number;
  reason: ApprovalReason;
  command: ApprovalCommand;
  /** The command's hash; for a review, the sha256 of the artifact shown. */
  hash: string;
  state: 'pending' | 'granted' | 'denied' | 'void';
  requestedAt: number;
  decidedAt: number | null;
  decidedBy: string | null;
  denyReason: string | null;
  /** A review's file, workdir-relative (its sha256 is `hash`); null for a command. */
  artifact: string | null;
}

/** A step's latest attempt's state; `awaiting_approval` while the operator is asked; `pending` when it has not started. */
export type StepViewState = AttemptState | 'pending' | 'awaiting_approval';

export interface StepView {
  name: string;
  kind: string;
  state: StepViewState;
  attempt: number;
  outcome: 'pass' | 'fail' | null;
  durationMs: number | null;
  /** Relative to the run's workdir. */
  artifact: string | null;
  summary: string | null;
  error: { code: string; message: string | null } | null;
}

/** The run's main artifact: what the operator reads first. */
export interface Delivery {
  /** Workdir-relative. */
  artifact: string;
  /** Absolute. */
  path: string;
  /** The step whose artifact it is; null when no step names it (a file a step wrote beside its own). */
  step: string | null;
  /** The horde's `delivery_title`, when it has one. */
  title: string | null;
}

export interface RunView {
  run: RunRow;
  steps: StepView[];
  attempts: AttemptRow[];
  approvals: ApprovalRow[];
  /** Pending approvals only. */
  pending: ApprovalRow[];
  /** The run's workdir (absolute): step artifacts are relative to it. */
  workdir: string;
  /** Its limits, what it spent, and whether it is parked for its budget. */
  budget: BudgetView;
  /** The run's main artifact, once there is one. */
  delivery: Delivery | null;
  /** The chat session of each `agent` step that has run (its delegation tree, its traces); absent where the chat is not open (an offline read). */
  agentTurns?: AgentTurnLink[];
  /** The agent that started the run with `run_horde`, and its conversation; null when no agent did. */
  askedBy: AskedBy | null;
}

/** An agent that started a run (`run_horde`), and the conversation it did it in. */
export interface AskedBy {
  agent: string;
  sessionId: string;
}

/** An `agent` step's turn: the session it ran in. */
export interface AgentTurnLink {
  step: string;
  agent: string;
  sessionId: string;
}

/** `GET /api/runs/:id/review`: what the operator is shown for a review step waiting on them. */
export interface ReviewView {
  runId: string;
  step: string;
  /** Workdir-relative, and absolute. */
  path: string;
  file: string;
  /** sha256 of the content shown when the run parked: what an approval or an edit binds to. */
  hash: string;
  /** The file now (UTF-8); null when it is gone or too large to show. */
  content: string | null;
  bytes: number | null;
  /** The file changed since the run parked (approving would be refused when the step runs: deny, or cancel). */
  changed: boolean;
}

/** `POST /api/runs/:id/review`: what the edit-and-approve did. */
export interface ReviewEditResult {
  step: string;
  path: string;
  before: string;
  after: string;
  /** False when the content was unchanged: a plain approval. */
  edited: boolean;
}

/** An event as a client reads it: its `type` and its fields (the closed unions are the server's: actors/run.events.ts, actors/chat.events.ts). */
export interface WireEvent { type: string; [key: string]: unknown }

/** A run's event as stored and sent; the server fills in its own event union. */
export interface StoredEvent<E = WireEvent> {
  /** Global commit order. */
  gseq: number;
  runId: string;
  /** Per-run order, from 1. */
  seq: number;
  /** Engine clock at append, ms since epoch. */
  at: number;
  event: E;
}
