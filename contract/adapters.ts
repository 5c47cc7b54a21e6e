/** Adapters, the inbound channels (`GET /api/adapters`, docs/adapters.md). */

/** The adapters kowalski has. A configured `[adapters.<name>]` section picks one with `type` (default: its name). */
export type AdapterType = 'webhook' | 'slack' | 'discord' | 'email' | 'calendar' | 'plugin';

/** `running`: started and taking messages; `stopped`: switched off or not configured; `error`: its start (or its last poll) failed. */
export type AdapterState = 'running' | 'stopped' | 'error';

export interface AdapterStatus {
  name: string;
  type: AdapterType;
  /** Switched on (config.toml's `enabled`, or the operator's last enable/disable, which wins). */
  enabled: boolean;
  state: AdapterState;
  /** The last error's message (secrets never appear in it), until a later start succeeds. */
  lastError: string | null;
  lastErrorAt: number | null;
  lastActivityAt: number | null;
  errorCount: number;
  /** The agent its messages go to. */
  agent: string | null;
  /** Settings as they may be shown: every secret is replaced by `"(set)"` or `"(from $ENV_NAME)"`. */
  settings: Record<string, unknown>;
}
