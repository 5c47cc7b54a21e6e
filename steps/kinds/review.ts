/**
 * `review`: a human gate with no command. The engine parks the run on the previous step's
 * artifact; this attempt runs only once the operator approved it (by its sha256). It
 * checks that the file is what was approved — putting the operator's staged edit in
 * place first when there is one — and passes the file on as its own artifact, so the
 * steps after it read the reviewed (or edited) file. Safe to run again: after a crash,
 * a file already edited is found with the approved hash.
 */
import { KowalskiError } from '../../core/index.js';
import { resolveInside } from '../paths.js';
import type { StepContext, StepResult } from '../protocol.js';
import { applyStagedEdit, fileState } from '../review-file.js';

export default function review(ctx: StepContext): Promise<StepResult> {
  const { task } = ctx;
  const r = task.review;
  if (r === undefined) throw new KowalskiError('KW_ERR_INTERNAL', `review step \`${task.step.name}\` started with no approved artifact`);
  const target = resolveInside(task.workdir, r.path, 'KW_ERR_PATH_ESCAPES', 'the reviewed artifact', { file: task.step.file });
  let now = fileState(target);
  if (r.edit !== undefined && now?.sha256 !== r.hash) {
    const staged = fileState(r.edit.staged);
    if (now?.sha256 !== r.edit.before || staged?.sha256 !== r.hash) {
      throw new KowalskiError('KW_ERR_REVIEW_EDIT_INTERRUPTED',
        `the approved edit of ${r.path} (step \`${task.step.name}\`) cannot be put in place: the file is ${now === null ? 'gone' : `at sha256 ${now.sha256.slice(0, 12)}`}, ` +
        `expected ${r.edit.before.slice(0, 12)} as reviewed or ${r.hash.slice(0, 12)} as edited, and the staged edit ${staged === null ? 'is gone' : 'does not match'} (${r.edit.staged})`);
    }
    ctx.progress(`putting the operator's edit of ${r.path} in place`);
    applyStagedEdit(r.edit.staged, target);
    now = fileState(target);
  }
  if (now?.sha256 !== r.hash) {
    throw new KowalskiError('KW_ERR_REVIEW_STALE',
      `${r.path} changed after it was reviewed (approved sha256 ${r.hash.slice(0, 12)}, now ${now === null ? 'gone' : now.sha256.slice(0, 12)}); step \`${task.step.name}\` passes on only what the operator saw`);
  }
  return Promise.resolve({ outcome: 'pass', artifact: r.path, summary: r.edit === undefined ? 'approved as shown' : 'approved with the operator\'s edit' });
}
