/** A run that has a live actor in memory: running, or about to. Parked and finished runs have none. */
import path from 'node:path';
import type { HordeDef } from '../../core/index.js';
import type { RerunOrigin, RunActor, RunEvent } from '../../actors/index.js';
import { resolveProject } from '../../steps/index.js';
import type { CommandSpec, ProjectFolder, RunningStep } from '../../steps/index.js';

export interface RunningAttempt {
  attempt: number;
  handle: RunningStep;
  startedAt: number;
}

export class LiveRun {
  readonly horde: HordeDef;
  /** The horde as a step's task carries it: the documentation bodies left out (a pool thread receives it once per run, as text: see steps/hosts.ts). */
  readonly taskHorde: HordeDef;
  readonly input: Record<string, string>;
  /** Workdir-relative output of every step, for `@step:<name>@`. */
  readonly stepOutputs: Record<string, string> = {};
  readonly workdir: string;
  /** The run's project folder (steps/project.ts), found once when the run is loaded. */
  readonly project: ProjectFolder | undefined;
  /** A re-run: the earlier run whose results its first steps reuse. */
  readonly rerun: RerunOrigin | undefined;
  /** A re-run: the copy of the earlier run's workdir into this one, made once per load (engine/runs/rerun-reuse.ts). */
  seeded: Promise<void> | undefined;
  /** Each step's command as resolved and hashed (engine/runs/step-task.ts `commandFor`), by step and the output that led to it. */
  readonly commands = new Map<string, Readonly<CommandSpec & { hash: string }>>();
  /** A step of this run passed since it was loaded: the run's folders exist (a step's task says so, steps/workdir.ts). */
  foldersMade = false;
  /** Steps handed to a worker and not yet finished. */
  readonly running = new Map<string, RunningAttempt>();

  constructor(
    readonly runId: string,
    readonly actor: RunActor,
    created: Extract<RunEvent, { type: 'run.created' }>,
    readonly runDir: string,
    /** The seq the next event of this run gets. */
    public nextSeq: number,
    /** When `run.created` was appended (engine clock, ms): wall time counts from here. */
    readonly createdAt: number,
  ) {
    this.horde = created.horde;
    this.taskHorde = slimHorde(created.horde);
    this.input = created.input;
    for (const [name, step] of Object.entries(created.horde.steps)) this.stepOutputs[name] = step.output;
    this.workdir = path.join(runDir, created.horde.workdir);
    this.project = resolveProject(created.horde, created.input);
    this.rerun = created.rerun;
  }
}

function slimHorde(h: HordeDef): HordeDef {
  const steps: HordeDef['steps'] = {};
  for (const [name, step] of Object.entries(h.steps)) steps[name] = { ...step, body: '', extra: {} };
  // `display` stays: an `ask` step falls back to its `default_question`.
  return { ...h, steps, body: '', description: '', extra: {}, triggers: [] };
}
