/**
 * Re-run from a step (`kowalski rerun <run-id> --from <step>`): a new run of the horde (as
 * it is now, or an edited folder) with the earlier run's input, whose steps before
 * `<step>` in the pipeline take the earlier run's results instead of running
 * (`StepPolicy.reuse`, performed by rerun-reuse.ts), and whose `run.created` says where it
 * comes from (`provenance: rerun:<run-id>`, `rerun`). The plan is made here, once, from
 * the earlier run's log, and kept in the new run's first event: the new run never reads
 * the earlier log again, so it resumes after a crash like any run.
 */
import fs from 'node:fs';
import { KowalskiError } from '../../core/index.js';
import type { HordeDef } from '../../core/index.js';
import type { RerunOrigin, ReusedResult, RunEvent, RunState } from '../../actors/index.js';

type Created = Extract<RunEvent, { type: 'run.created' }>;
type Finished = Extract<RunEvent, { type: 'step.finished' }>;

export interface RerunOptions {
  /** The first step that runs again. */
  from: string;
  /** The horde to run (default: the earlier run's horde as its folder is now). */
  horde?: HordeDef;
  /** Answer model calls whose request is unchanged from the earlier run's traces. */
  replayModels?: boolean;
}

export interface RerunPlan {
  origin: RerunOrigin;
  /** The steps that take the earlier run's result, by name. */
  reuse: Record<string, ReusedResult>;
  /** The earlier run's answers that are form inputs of `horde`, and the rest (what a trigger added), kept as they were. */
  input: Record<string, string>;
  extraInput: Record<string, string>;
}

/**
 * Plan a re-run of `runId` (whose log is `events`, now in `state`) from `from` with `horde`.
 * Refuses a run still queued or running (KW_ERR_RUN_ACTIVE), a `from` not in the horde
 * (KW_ERR_RERUN_STEP_UNKNOWN), and an earlier step that does not match
 * (KW_ERR_RERUN_MISMATCH): not in the earlier run's horde, or of another kind there, or
 * whose first attempt there broke (an error, no verdict). A step the earlier run never
 * finished (a branch not taken) reuses nothing: it runs if the new run reaches it.
 */
export function planRerun(runId: string, state: RunState, events: readonly RunEvent[], horde: HordeDef, options: RerunOptions): RerunPlan {
  if (state === 'queued' || state === 'running') {
    throw new KowalskiError('KW_ERR_RUN_ACTIVE', `run ${runId} is still ${state}: a re-run reuses the results of a run that has ended or is parked; wait for it, or cancel it first`);
  }
  const created = events[0];
  if (created?.type !== 'run.created') throw new KowalskiError('KW_ERR_RUN_NOT_FOUND', `run ${runId} has no run.created event`);
  const at = horde.pipeline.indexOf(options.from);
  if (at < 0) {
    throw new KowalskiError('KW_ERR_RERUN_STEP_UNKNOWN', `step "${options.from}" is not in the pipeline of ${horde.id} (${horde.dir}); its steps: ${horde.pipeline.join(', ')}`, { where: { file: 'horde.md', key: 'pipeline' } });
  }
  const first = firstResults(events);
  const reuse: Record<string, ReusedResult> = {};
  for (const name of horde.pipeline.slice(0, at)) {
    const old = created.horde.steps[name];
    if (old === undefined) throw mismatch(runId, name, options.from, 'is not a step of that run\'s horde');
    const kind = horde.steps[name]!.kind;
    if (old.kind !== kind) throw mismatch(runId, name, options.from, `was of kind "${old.kind}" there, and is "${kind}" now`);
    const done = first.get(name);
    if (done === undefined) continue;
    if (done.error !== undefined || (done.outcome === 'fail' && done.artifact === undefined)) {
      throw mismatch(runId, name, options.from, `failed there (${done.error?.code ?? 'no verdict'}: ${done.error?.message ?? done.summary ?? 'no artifact'}), so it has no result to reuse`);
    }
    const r: ReusedResult = { run: runId, attempt: done.attempt, outcome: done.outcome };
    if (done.artifact !== undefined) r.artifact = done.artifact;
    if (done.summary !== undefined) r.summary = done.summary;
    reuse[name] = r;
  }
  const known = new Set(horde.inputs.map((f) => f.id));
  const input: Record<string, string> = {};
  const extraInput: Record<string, string> = {};
  for (const [k, v] of Object.entries(created.input)) (known.has(k) ? input : extraInput)[k] = v;
  return {
    origin: { run: runId, from: options.from, workdir: created.horde.workdir, replayModels: options.replayModels === true },
    reuse,
    input,
    extraInput,
  };
}

/** The first finished attempt of each step (a loop's later passes are not what the steps after it were first given). */
function firstResults(events: readonly RunEvent[]): Map<string, Finished> {
  const out = new Map<string, Finished>();
  for (const e of events) if (e.type === 'step.finished' && !out.has(e.step)) out.set(e.step, e);
  return out;
}

function mismatch(runId: string, step: string, from: string, why: string): KowalskiError {
  return new KowalskiError('KW_ERR_RERUN_MISMATCH', `cannot re-run ${runId} from "${from}": the earlier step "${step}" ${why}; re-run from "${step}" (or an earlier step) instead`);
}

/** The created event of a re-run, as planned: the reused steps' policy and where it comes from. */
export function withRerun(created: Created, plan: Pick<RerunPlan, 'origin' | 'reuse'>): Created {
  const policy = { ...created.policy };
  for (const [name, r] of Object.entries(plan.reuse)) if (policy[name] !== undefined) policy[name] = { ...policy[name], reuse: r };
  return { ...created, policy, rerun: plan.origin };
}

/** The earlier run's horde as its folder is now (by folder while it exists, else by id). */
export async function hordeOfRun(created: RunEvent | undefined, resolve: (ref: string) => Promise<{ horde: HordeDef }>): Promise<HordeDef> {
  if (created?.type !== 'run.created') throw new KowalskiError('KW_ERR_RUN_NOT_FOUND', 'the run has no run.created event');
  const ref = fs.existsSync(created.horde.dir) ? created.horde.dir : created.hordeId;
  return (await resolve(ref)).horde;
}
