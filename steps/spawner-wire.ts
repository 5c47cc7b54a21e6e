/**
 * What the spawn helper (spawner-main.ts) and a step (spawner-client.ts) say to each
 * other: one connection per command, one JSON object per line.
 */
import type { PlainError } from '../core/index.js';
import type { ExecResult } from './exec.js';

/** Where the engine's spawn helper listens, and the BroadcastChannel that says when it is up. */
export interface SpawnerAddress {
  /** Path of the helper's Unix socket (in a folder only this user can enter). */
  socket: string;
  /** BroadcastChannel name: `ready` when a helper listens, `down` when starting one failed. */
  channel: string;
  /** The same news as a value in shared memory (`HELPER_STARTING`…), for a step that begins listening after it was told. */
  state: Int32Array;
}

/** `SpawnerAddress.state[0]`: a helper is starting; it listens; starting it failed. */
export const HELPER_STARTING = 0;
export const HELPER_UP = 1;
export const HELPER_DOWN = 2;

/** Step → helper. */
export type SpawnRequest =
  | { type: 'start'; argv: string[]; cwd: string; env: Record<string, string>; outputBytes: number; killGraceMs?: number; drainMs?: number }
  /** The engine has recorded the group: open the gate. */
  | { type: 'go' }
  /** Stop the command (SIGTERM, then SIGKILL after the grace), or keep its gate shut. */
  | { type: 'abort' };

/** Helper → step. */
export type SpawnReply =
  | { type: 'spawned'; pgid: number }
  /** The command could not be started (no such folder, an empty argv, spawn failed). */
  | { type: 'refused'; error: PlainError }
  | { type: 'exit'; result: ExecResult };

/** Split a stream into lines and hand each parsed line on; a line that is not JSON ends the talk (`onBad`). */
export function lineReader(onLine: (value: unknown) => void, onBad: () => void): (chunk: Buffer) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk.toString('utf8');
    let at = pending.indexOf('\n');
    while (at >= 0) {
      const line = pending.slice(0, at);
      pending = pending.slice(at + 1);
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        onBad();
        return;
      }
      onLine(value);
      at = pending.indexOf('\n');
    }
  };
}
