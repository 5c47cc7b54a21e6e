/**
 * Projection tables (runs, step_attempts, approvals), written in the same transaction
 * as the events that change them. Folding a run's events gives exactly what they hold.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { RunContext, RunEvent, RunState } from '../../actors/index.js';
import { FINAL_RUN_STATES } from '../../actors/index.js';

export class Projections {
  private readonly s: Record<string, Statement>;

  constructor(db: Database) {
    this.s = {
      insertRun: db.prepare(
        `INSERT INTO runs (id, horde_id, horde_hash, state, provenance, input, created_at, updated_at, last_seq)
         VALUES (@id, @hordeId, @hash, @state, @provenance, @input, @at, @at, @seq)`,
      ),
      updateRun: db.prepare(
        `UPDATE runs SET state = @state, updated_at = @at, last_seq = @seq,
           finished_at = CASE WHEN @final THEN @at ELSE NULL END, error_code = @errorCode, error = @error WHERE id = @id`,
      ),
      startAttempt: db.prepare('INSERT INTO step_attempts (run_id, step, attempt, state, started_at) VALUES (?, ?, ?, \'running\', ?)'),
      spawnedAttempt: db.prepare('UPDATE step_attempts SET pgid = ?, token = ? WHERE run_id = ? AND step = ? AND attempt = ?'),
      finishAttempt: db.prepare(
        `UPDATE step_attempts SET state = @state, finished_at = @at, duration_ms = @durationMs, artifact = @artifact,
           summary = @summary, error_code = @errorCode, error = @error WHERE run_id = @runId AND step = @step AND attempt = @attempt`,
      ),
      interruptAttempt: db.prepare('UPDATE step_attempts SET state = \'interrupted\', finished_at = ? WHERE run_id = ? AND step = ? AND attempt = ?'),
      stopRunning: db.prepare('UPDATE step_attempts SET state = \'cancelled\', finished_at = ? WHERE run_id = ? AND state = \'running\''),
      request: db.prepare(
        `INSERT INTO approvals (run_id, seq, step, reason, command, hash, state, requested_at)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)`,
      ),
      decide: db.prepare(
        `UPDATE approvals SET state = @state, decided_at = @at, decided_by = @by, deny_reason = @reason
         WHERE run_id = @runId AND step = @step AND state = 'pending'`,
      ),
      voidPending: db.prepare('UPDATE approvals SET state = \'void\', decided_at = ? WHERE run_id = ? AND state = \'pending\''),
    };
  }

  /** Apply one event's row changes (inside the caller's transaction). */
  apply(runId: string, seq: number, at: number, event: RunEvent): void {
    const s = this.s;
    switch (event.type) {
      case 'run.created':
        s.insertRun!.run({ id: runId, hordeId: event.hordeId, hash: event.horde.hash, state: 'queued', provenance: event.provenance, input: JSON.stringify(event.input), at, seq });
        return;
      case 'step.started':
        s.startAttempt!.run(runId, event.step, event.attempt, at);
        return;
      case 'step.spawned':
        s.spawnedAttempt!.run(event.pgid, event.token, runId, event.step, event.attempt);
        return;
      case 'step.finished':
        s.finishAttempt!.run({
          runId, step: event.step, attempt: event.attempt, at, state: event.outcome === 'pass' ? 'passed' : 'failed',
          durationMs: event.durationMs, artifact: event.artifact ?? null, summary: event.summary ?? null,
          errorCode: event.error?.code ?? null, error: event.error?.message ?? null,
        });
        return;
      case 'step.interrupted':
        s.interruptAttempt!.run(at, runId, event.step, event.attempt);
        return;
      case 'approval.requested':
        s.request!.run(runId, seq, event.step, event.reason, JSON.stringify(event.command), event.hash, at);
        return;
      case 'approval.granted':
        s.decide!.run({ state: 'granted', at, by: event.by, reason: null, runId, step: event.step });
        return;
      case 'approval.denied':
        s.decide!.run({ state: 'denied', at, by: event.by, reason: event.reason, runId, step: event.step });
        return;
      case 'run.cancelled':
        return;
      default: {
        const never: never = event;
        throw new Error(`unprojected event ${(never as { type: string }).type}`);
      }
    }
  }

  /** The run row after a batch of its events: its state as the machine now says. */
  settle(runId: string, lastSeq: number, at: number, state: RunState, ctx: RunContext): void {
    const final = FINAL_RUN_STATES.has(state);
    this.s.updateRun!.run({ id: runId, state, at, seq: lastSeq, final: final ? 1 : 0, errorCode: ctx.error?.code ?? (ctx.cancelled ? 'KW_ERR_RUN_CANCELLED' : null), error: ctx.error?.message ?? ctx.cancelled?.reason ?? null });
    if (final) {
      this.s.stopRunning!.run(at, runId);
      this.s.voidPending!.run(at, runId);
    }
  }
}
