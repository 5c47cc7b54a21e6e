/** `GET /api/health`: liveness, version, and what the last start recovered. */
import type { VaultRecovery } from './vault.js';

/** What the engine's last start recovered. */
export interface RecoverySummary {
  /** Runs replayed and continued. */
  resumed: string[];
  /** Steps that were running at the stop and start again as a new attempt. */
  retried: { runId: string; step: string; attempt: number }[];
  /** Runs that are waiting for the operator (left parked; nothing was loaded for them). */
  parked: number;
  /** Runs whose step was interrupted and is not safe to repeat: now parked with outcome unknown. */
  outcomeUnknown: { runId: string; step: string }[];
  /** Leftover processes of interrupted steps that were killed. */
  killedProcesses: number;
  /** Chat sessions whose turn was under way: it goes on from its log. */
  chats: string[];
  /** Vault writes a crash cut in two, settled at the start: completed, or failed (reported in the writes list). */
  vault: VaultRecovery;
  /** Runs that could not be replayed (an altered or foreign log); they are left untouched. */
  failed: { runId: string; message: string }[];
}

export interface HealthInfo {
  version: string;
  /** Always `token` (kept for clients that read it: every route needs the token). */
  auth: 'token';
  startedAt: number;
  /** Null when nothing was recovered at the last start. */
  recovery: RecoverySummary | null;
}

/** What `GET /api/health` answers. */
export type Health = { ok: true } & HealthInfo;
