/** Triggers as `GET /api/triggers` shows them, with the operator's switch and their last firing. */
import type { CatchUp, Overlap, TriggerKind } from './horde.js';

/** What became of a firing. */
export type FiringOutcome = 'started' | 'skipped' | 'queued' | 'missed' | 'overflow' | 'failed';

/** One time a trigger fired (or was held back). */
export interface TriggerFiring {
  /** When it was handled, ms. */
  at: number;
  /** Cron: the scheduled instant; webhook: the delivery id; watch: path + content hash. */
  key: string;
  outcome: FiringOutcome;
  runId: string | null;
  detail: string | null;
}

/** A trigger as the API, the app and the CLI show it. */
export interface TriggerView {
  hordeId: string;
  name: string;
  kind: TriggerKind;
  /** The operator's switch (built-in and imported hordes' triggers arrive off). */
  enabled: boolean;
  overlap: Overlap;
  schedule?: string;
  timezone?: string;
  catchUp?: CatchUp;
  path?: string;
  globs?: string[];
  debounceMs?: number;
  /** Webhook: `/hooks/<horde>/<name>`. */
  hookPath?: string;
  /** Webhook: a secret is configured, so deliveries must be signed. */
  signed?: boolean;
  /** Cron, switched on: the next scheduled instant (ms). */
  nextFireAt: number | null;
  lastFiring: TriggerFiring | null;
  /** Runs of this trigger not finished. */
  active: number;
  /** Why it cannot fire (a missing secret, a path that is not there, …). */
  error?: string;
}
