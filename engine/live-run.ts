/** A run that has a live actor in memory: running, or about to. Parked and finished runs have none. */
import path from 'node:path';
import type { HordeDef } from '../core/index.js';
import type { RunActor, RunEvent } from '../actors/index.js';
import type { RunningStep } from '../steps/index.js';

export interface RunningAttempt {
  attempt: number;
  handle: RunningStep;
  startedAt: number;
}

export class LiveRun {
  readonly horde: HordeDef;
  /** The horde as a step needs it: the documentation bodies and display copy left out (it is copied to a worker for every step). */
  readonly taskHorde: HordeDef;
  readonly input: Record<string, string>;
  readonly workdir: string;
  /** The workdir exists (created once, at the first dispatch). */
  workdirReady = false;
  /** Steps handed to a worker and not yet finished. */
  readonly running = new Map<string, RunningAttempt>();

  constructor(
    readonly runId: string,
    readonly actor: RunActor,
    created: Extract<RunEvent, { type: 'run.created' }>,
    readonly runDir: string,
    /** The seq the next event of this run gets. */
    public nextSeq: number,
  ) {
    this.horde = created.horde;
    this.taskHorde = slimHorde(created.horde);
    this.input = created.input;
    this.workdir = path.join(runDir, created.horde.workdir);
  }
}

function slimHorde(h: HordeDef): HordeDef {
  const steps: HordeDef['steps'] = {};
  for (const [name, step] of Object.entries(h.steps)) steps[name] = { ...step, body: '', extra: {} };
  return { ...h, steps, body: '', description: '', display: {}, extra: {}, triggers: [] };
}
