/** The approvals projection on Postgres: the same functions as ../../sql/approvals.ts. */
import type { ApprovalReads, ApprovalRecord, ApprovalWrites } from '../../sql/approvals.js';
import type { PgSession } from '../session.js';

export function pgApprovalReads(s: PgSession): ApprovalReads {
  return { ofRun: (runId) => s.all<ApprovalRecord>('SELECT * FROM approvals WHERE run_id = $1 ORDER BY seq', [runId]) };
}

export function pgApprovalWrites(s: PgSession): ApprovalWrites {
  return {
    request: (a) => s.write(
      "INSERT INTO approvals (run_id, seq, step, reason, command, hash, state, requested_at, artifact) VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8)",
      [a.runId, a.seq, a.step, a.reason, a.command, a.hash, a.at, a.artifact]),
    decide: (d) => s.write(
      "UPDATE approvals SET state = $1, decided_at = $2, decided_by = $3, deny_reason = $4 WHERE run_id = $5 AND step = $6 AND state = 'pending'",
      [d.state, d.at, d.by, d.denyReason, d.runId, d.step]),
    voidPending: (runId, at) => s.write("UPDATE approvals SET state = 'void', decided_at = $1 WHERE run_id = $2 AND state = 'pending'", [at, runId]),
  };
}
