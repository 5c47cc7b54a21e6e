/**
 * The effect of a re-run's reused step (its `StepPolicy.reuse`), performed after its
 * `step.started` is committed, instead of handing the step to a worker: the earlier run's
 * workdir is copied into the new run's (once per load, never over a file that is there
 * already, and without the outputs of the steps that run again), then the step's own
 * artifact is copied over whatever is there and hashed. Copying is safe to repeat, so a
 * crash in the middle makes the next attempt copy again.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import type { ReusedResult } from '../../actors/index.js';
import { resolveInside } from '../../steps/index.js';
import type { StepResult } from '../../steps/index.js';
import type { LiveRun } from './live-run.js';

export interface Reused {
  result: StepResult;
  reusedFrom: { run: string; attempt: number; hash?: string };
}

/** Take the earlier run's result of `step`; `runDir` gives a run's folder. */
export async function reuseStep(run: LiveRun, step: string, reuse: ReusedResult, runDir: (runId: string) => string): Promise<Reused> {
  const origin = run.rerun;
  if (origin === undefined) throw new KowalskiError('KW_ERR_INTERNAL', `step "${step}" of run ${run.runId} reuses a result, but the run is not a re-run`);
  const oldRunDir = runDir(origin.run);
  const oldWorkdir = path.join(oldRunDir, origin.workdir);
  run.seeded ??= seed(run, oldRunDir, oldWorkdir);
  await run.seeded;
  const reusedFrom: Reused['reusedFrom'] = { run: origin.run, attempt: reuse.attempt };
  const result: StepResult = { outcome: reuse.outcome };
  if (reuse.summary !== undefined) result.summary = reuse.summary;
  if (reuse.artifact !== undefined) {
    const where = { file: run.horde.steps[step]?.file ?? step, key: 'output' };
    const from = resolveInside(oldWorkdir, reuse.artifact, 'KW_ERR_PATH_ESCAPES', 'the reused artifact', where);
    if (!fs.existsSync(from)) {
      throw new KowalskiError('KW_ERR_ARTIFACT_NOT_FOUND', `step "${step}" reuses ${reuse.artifact} of run ${origin.run}, which is no longer in that run's workdir (${oldWorkdir})`);
    }
    const to = resolveInside(run.workdir, reuse.artifact, 'KW_ERR_PATH_ESCAPES', 'the reused artifact', where, true);
    await fs.promises.mkdir(path.dirname(to), { recursive: true });
    await fs.promises.copyFile(from, to);
    reusedFrom.hash = createHash('sha256').update(await fs.promises.readFile(to)).digest('hex');
    result.artifact = reuse.artifact;
  }
  return { result, reusedFrom };
}

/** Copy the earlier workdir into the new one, leaving out what the steps that run again write and the per-attempt copies. */
async function seed(run: LiveRun, oldRunDir: string, oldWorkdir: string): Promise<void> {
  await fs.promises.mkdir(run.workdir, { recursive: true });
  if (!fs.existsSync(oldWorkdir)) return;
  const policy = run.actor.context.policy;
  const skip = new Set([path.join(oldRunDir, 'attempts')]);
  for (const [name, def] of Object.entries(run.horde.steps)) {
    if (policy[name]?.reuse === undefined) skip.add(path.resolve(oldWorkdir, def.output));
  }
  await fs.promises.cp(oldWorkdir, run.workdir, { recursive: true, force: false, errorOnExist: false, filter: (src) => !skip.has(path.resolve(src)) });
}
