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
    this.input = created.input;
    this.workdir = path.join(runDir, created.horde.workdir);
  }
}
