/**
 * `kowalski review <run-id>`: show the artifact a review step waits on, with the hash an
 * approval binds to; `--edit` opens it in $VISUAL / $EDITOR and, once the editor exits
 * with status 0, approves the edited file (the edit recorded with its diff) or, unchanged,
 * the file as shown. Then the run is followed like after `approve`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import { withRuns } from './backend.js';
import { EXIT } from './common.js';
import type { JsonFlag } from './run.js';
import { decide } from './run.js';

export function reviewCommand(runId: string, opts: JsonFlag & { step?: string; edit?: boolean }): Promise<number> {
  return withRuns(async (runs) => {
    const view = await runs.review(runId, opts.step === undefined ? {} : { step: opts.step });
    const stepFlag = `--step ${view.step}`;
    if (opts.edit !== true) {
      if (opts.json === true) {
        process.stdout.write(`${JSON.stringify(view)}\n`);
        return EXIT.ok;
      }
      const lines = [
        `run ${runId}: step "${view.step}" waits for your review of ${view.path} (${view.bytes ?? 0} bytes, sha256 ${view.hash})`,
        ...(view.changed ? ['the file changed since the run parked: approving it would fail the step; deny it, or cancel the run'] : []),
        `----- ${view.path} -----`,
        view.content ?? (view.bytes === null ? '(the file is gone)' : '(too large to show here: open it in the run folder)'),
        '-----',
        `approve: kowalski approve ${runId} ${stepFlag} --hash ${view.hash}`,
        `edit:    kowalski review ${runId} ${stepFlag} --edit`,
        `deny:    kowalski deny ${runId} ${stepFlag} --reason "…"`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
      return EXIT.ok;
    }
    if (view.content === null) {
      throw new KowalskiError('KW_ERR_USAGE', `${view.path} of run ${runId} ${view.bytes === null ? 'is gone' : 'is too large to edit here'}; approve or deny it instead`);
    }
    const edited = editInEditor(view.path, view.content);
    return decide(runs, runId, opts.json === true, async () => {
      if (edited === view.content) {
        process.stderr.write(`no change to ${view.path}: approving it as shown\n`);
        await runs.approve(runId, { step: view.step, hash: view.hash });
        return;
      }
      const r = await runs.reviewEdit(runId, { step: view.step, hash: view.hash, content: edited });
      process.stderr.write(`${view.path} edited (sha256 ${r.before.slice(0, 12)} → ${r.after.slice(0, 12)}) and approved; the edit is recorded with its diff\n`);
    });
  });
}

/** Open a copy of the artifact in the operator's editor; its content once the editor exits 0. */
function editInEditor(rel: string, content: string): string {
  const editor = [process.env.VISUAL, process.env.EDITOR].find((e) => e !== undefined && e.trim() !== '') ?? 'vi';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-review-'));
  try {
    const file = path.join(dir, path.basename(rel));
    fs.writeFileSync(file, content, { mode: 0o600 });
    // Through the shell, as git does: $EDITOR may carry arguments ("code --wait").
    const r = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'kowalski-review', file], { stdio: 'inherit' });
    if (r.error !== undefined || r.status !== 0) {
      throw new KowalskiError('KW_ERR_USAGE', `the editor (${editor}) ${r.error === undefined ? `exited with ${r.status === null ? `signal ${r.signal ?? '?'}` : `status ${r.status}`}` : `did not start: ${r.error.message}`}; nothing was approved`);
    }
    return fs.readFileSync(file, 'utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
