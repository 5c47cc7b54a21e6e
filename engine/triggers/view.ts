/** A trigger as the API, the app and the CLI show it. */
import type { CatchUp, Overlap, TriggerKind } from '../../core/index.js';
import type { TriggerFiring } from '../store/triggers.js';

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
