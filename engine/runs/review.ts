/**
 * Review steps, engine side: the request a ready review step parks with (the previous
 * step's artifact and its sha256), what the operator is shown, and an edit-and-approve:
 * the edited content is staged beside the run, then `artifact.edited` (with its diff) and
 * the approval of the edited hash are committed together, and only then does the review
 * step's attempt put the staged file in place (steps/kinds/review.ts). After a crash
 * between the commit and the rename, the attempt runs again and finishes the edit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import type { RunEvent } from '../../actors/index.js';
import { MISSING_ARTIFACT, fileState, sha256Of, stageEdit, stagedEditPath } from '../../steps/index.js';
import type { StepKindInfo } from '../../steps/index.js';
import type { LiveRun } from './live-run.js';
import { commandFor } from './step-task.js';
import { unified } from '../vault/write-diff.js';
import type { ReviewEditResult as EditResult, ReviewView } from '../../contract/runs.js';
export type { ReviewEditResult as EditResult, ReviewView } from '../../contract/runs.js';

/** Larger artifacts are shown by path only: the app and the CLI do not load them to edit. */
export const MAX_REVIEW_BYTES = 512 * 1024;

/** `approval.requested` for a ready review step: the artifact it shows, hashed as it is now. */
export function reviewRequest(run: LiveRun, step: string, kind: StepKindInfo | undefined): Extract<RunEvent, { type: 'approval.requested' }> {
  const rel = run.horde.steps[step]!.output;
  const now = fileState(path.join(run.workdir, rel));
  const { hash: _commandHash, ...command } = commandFor(run, step, kind);
  return {
    type: 'approval.requested', step, reason: 'review', command,
    hash: now?.sha256 ?? MISSING_ARTIFACT, artifact: { path: rel, bytes: now?.bytes ?? null },
  };
}

/** The review pending on `step`; KW_ERR_NOT_A_REVIEW when it waits for something else. */
function pendingReview(run: LiveRun, step: string): { path: string; hash: string } {
  const pending = run.actor.context.steps[step]?.pending;
  if (pending?.reason !== 'review' || pending.artifact === undefined) {
    throw new KowalskiError('KW_ERR_NOT_A_REVIEW', `step "${step}" of run ${run.runId} waits for ${pending === undefined ? 'nothing' : `approval of a command (${pending.reason})`}, not for a review of an artifact`);
  }
  return { path: pending.artifact.path, hash: pending.hash };
}

export function reviewOf(run: LiveRun, step: string): ReviewView {
  const p = pendingReview(run, step);
  const file = path.join(run.workdir, p.path);
  let data: Buffer | null = null;
  try {
    data = fs.readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return {
    runId: run.runId, step, path: p.path, file, hash: p.hash,
    content: data === null || data.length > MAX_REVIEW_BYTES ? null : data.toString('utf8'),
    bytes: data?.length ?? null,
    changed: (data === null ? MISSING_ARTIFACT : sha256Of(data)) !== p.hash,
  };
}

/** An approval sent with the hash the operator saw: refused when it is not the one waiting. */
export function checkSeen(run: LiveRun, step: string, seen: string | undefined): void {
  const pending = run.actor.context.steps[step]?.pending;
  if (seen === undefined || pending === undefined || seen === pending.hash) return;
  if (pending.reason === 'review') {
    throw new KowalskiError('KW_ERR_REVIEW_STALE', `the review of "${step}" (run ${run.runId}) waits on ${pending.artifact?.path ?? '?'} at sha256 ${pending.hash.slice(0, 12)}, not the ${seen.slice(0, 12)} you saw; read it again`);
  }
  throw new KowalskiError('KW_ERR_APPROVAL_STALE', `step "${step}" of run ${run.runId} waits with command hash ${pending.hash}, not ${seen}: read the command again before approving`);
}

/**
 * Approve the review of `step` with the artifact replaced by `content`. `seen` is the hash the
 * operator edited from: refused (KW_ERR_REVIEW_STALE) when it is not the one waiting, or when
 * the file changed since. Resolves once the edit and the approval are committed.
 */
export async function editAndApprove(supervisor: { submitAndWait(run: LiveRun, events: RunEvent[]): Promise<unknown> }, run: LiveRun, step: string, edit: { seen: string; content: string; by: string }): Promise<EditResult> {
  const p = pendingReview(run, step);
  checkSeen(run, step, edit.seen);
  const file = path.join(run.workdir, p.path);
  const now = fileState(file);
  if (now === null || now.sha256 !== p.hash) {
    throw new KowalskiError('KW_ERR_REVIEW_STALE', `${p.path} changed on disk since the run parked on it (sha256 ${p.hash.slice(0, 12)}, now ${now === null ? 'gone' : now.sha256.slice(0, 12)}); the edit was not applied`);
  }
  const after = sha256Of(content(edit.content));
  if (after === p.hash) {
    await supervisor.submitAndWait(run, [{ type: 'approval.granted', step, hash: p.hash, by: edit.by }]);
    return { step, path: p.path, before: p.hash, after, edited: false };
  }
  const before = fs.readFileSync(file, 'utf8');
  stageEdit(stagedEditPath(run.runDir, step, after), edit.content);
  const diff = unified(p.path, before, edit.content, `as reviewed (${p.hash.slice(0, 12)})`, `as edited by ${edit.by} (${after.slice(0, 12)})`);
  await supervisor.submitAndWait(run, [
    { type: 'artifact.edited', step, path: p.path, before: p.hash, after, diff, by: edit.by },
    { type: 'approval.granted', step, hash: after, by: edit.by },
  ]);
  return { step, path: p.path, before: p.hash, after, edited: true };
}

function content(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}
