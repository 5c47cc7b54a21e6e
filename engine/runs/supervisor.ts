/**
 * The run supervisor: feeds events to each run's actor, applies what the run's decisions
 * (actors/run.decide.ts) say it does next within the global limit on running steps, hands
 * every batch to the committer, and performs effects only once their batch is committed.
 */
import { KowalskiError, toPlainError } from '../../core/index.js';
import type { BudgetSpent } from '../../core/index.js';
import type { RunEffect, RunEvent, RunState } from '../../actors/index.js';
import { FINAL_RUN_STATES, decide, foldRun, isSettled, reusesResult } from '../../actors/index.js';
import type { StepKindInfo, StepResult, StepRunner } from '../../steps/index.js';
import type { Clock } from '../base/clock.js';
import type { Committer } from './committer.js';
import type { CrashHook } from '../base/crash.js';
import type { StoredEvent } from '../store/events.js';
import type { RunLeases } from '../store/leases.js';
import { LiveRun } from './live-run.js';
import { reuseStep } from './rerun-reuse.js';
import type { Reused } from './rerun-reuse.js';
import { reviewRequest } from './review.js';
import type { ModelHub } from '../models.js';
import type { Observers } from '../observers.js';
import { buildStepTask, commandFor, unknownKind } from './step-task.js';
import type { EventLog } from '../store/event-log.js';

export interface SupervisorDeps {
  committer: Committer;
  log: EventLog;
  /** Which runs this node may execute (with one node: all of them). */
  leases: RunLeases;
  runner: StepRunner;
  kinds: ReadonlyMap<string, StepKindInfo>;
  observers: Observers;
  clock: Clock;
  crash: CrashHook;
  runDir(runId: string): string;
  maxParallelSteps: number;
  stepTimeoutSecs: number;
  /** How many parked runs stay in memory, the most recently parked (default 256; 0: none). */
  parkedKept?: number;
  /** Models and tools for model steps (read at each dispatch: Setup may configure a model while the engine runs). */
  models: ModelHub;
  /** What a run has spent now (engine/runs/budget.ts): checked against its limits before a step starts. */
  spent(runId: string, createdAt: number): BudgetSpent;
}

type Created = Extract<RunEvent, { type: 'run.created' }>;

/** The events one input leads to, the run's state before them and right after each, and the effects to perform once they are committed. */
interface Batch {
  before: RunState;
  events: RunEvent[];
  states: RunState[];
  effects: RunEffect[];
}

const newBatch = (before: RunState): Batch => ({ before, events: [], states: [], effects: [] });

/** Parked runs kept in memory by default: a few MB, and an approval soon after parking skips reading and folding the log. */
const PARKED_KEPT = 256;

export class Supervisor {
  private readonly live = new Map<string, LiveRun>();
  /**
   * Runs that parked here lately, oldest first, their actors still built: an approval
   * takes one back after checking that no one wrote to the run since (another node, once
   * the lease was let go), which costs one query instead of reading and folding the log.
   */
  private readonly parked = new Map<string, LiveRun>();
  /** Runs with a ready step that found no free slot, oldest first. */
  private readonly waiting = new Set<string>();
  private slotsUsed = 0;
  private closing = false;

  constructor(private readonly deps: SupervisorDeps) {}

  get liveCount(): number {
    return this.live.size;
  }

  isLive(runId: string): boolean {
    return this.live.has(runId);
  }

  /** A run this node executes that is not settled even in memory (so not on disk either): its state as the machine says; undefined otherwise. */
  unsettledHere(runId: string): RunState | undefined {
    const state = this.live.get(runId)?.actor.state;
    return state === undefined || isSettled(state) ? undefined : state;
  }

  get runningSteps(): number {
    return this.slotsUsed;
  }

  /** Create a run; resolves once `run.created` (and whatever starts with it) is committed. */
  /** Start a run: its `run.created` (and `alsoWrite`, in the same transaction) committed, then its first steps. */
  create(runId: string, created: Created, alsoWrite?: () => void): Promise<void> {
    const result = foldRun(runId, [created]);
    if (!result.ok) throw new KowalskiError('KW_ERR_REPLAY_DIVERGED', result.reason);
    const run = new LiveRun(runId, result.actor, created, this.deps.runDir(runId), 1, this.deps.clock.now());
    this.deps.leases.created(runId);
    this.live.set(runId, run);
    // `run.created` writes the row queued.
    const batch = newBatch('queued');
    batch.events.push(created);
    batch.states.push(run.actor.state);
    this.decide(run, batch);
    return new Promise((resolve, reject) => this.commit(run, batch, () => resolve(), reject, alsoWrite));
  }

  /** The live run, or the run folded from its log (a parked run wakes up this way). */
  load(runId: string): LiveRun {
    const live = this.live.get(runId);
    if (live !== undefined) return live;
    // Taken before the log is read: the log then holds everything the previous holder committed.
    this.deps.leases.claim(runId);
    let run: LiveRun;
    try {
      run = this.unpark(runId) ?? this.fold(runId);
    } catch (err) {
      this.deps.leases.release(runId);
      throw err;
    }
    this.live.set(runId, run);
    return run;
  }

  /** The live run, a kept one, or the run folded from its log, to be read: not loaded, nothing claimed (it may be another node's). Hand it back with `putBack`. */
  peek(runId: string): LiveRun {
    return this.live.get(runId) ?? this.keptFresh(runId) ?? this.fold(runId);
  }

  /** Done reading a run from `peek`: a parked one is kept (an approval may well follow), anything else let go. */
  putBack(run: LiveRun): void {
    if (this.live.get(run.runId) === run || this.parked.get(run.runId) === run) return;
    this.letGo(run);
  }

  /** A run no longer loaded nor read: kept if parked (an approval may well follow), else its actor stopped. */
  private letGo(run: LiveRun): void {
    if (run.actor.state === 'awaiting_input' && !this.closing) this.keep(run);
    else run.actor.stop();
  }

  /** A kept parked run, unless its log has grown since it parked here. */
  private keptFresh(runId: string): LiveRun | undefined {
    const kept = this.parked.get(runId);
    if (kept === undefined || this.deps.log.lastSeq(runId) === kept.nextSeq - 1) return kept;
    this.parked.delete(runId);
    kept.actor.stop();
    return undefined;
  }

  /** Take a kept parked run back (fresh), out of the kept ones. */
  private unpark(runId: string): LiveRun | undefined {
    const kept = this.keptFresh(runId);
    if (kept !== undefined) this.parked.delete(runId);
    return kept;
  }

  /** Keep a run that just parked, letting the oldest kept one go past the bound. */
  private keep(run: LiveRun): void {
    this.parked.delete(run.runId);
    this.parked.set(run.runId, run);
    for (const [runId, old] of this.parked) {
      if (this.parked.size <= (this.deps.parkedKept ?? PARKED_KEPT)) break;
      this.parked.delete(runId);
      old.actor.stop();
    }
  }

  private fold(runId: string): LiveRun {
    const stored = this.deps.log.read(runId);
    if (stored.length === 0) throw new KowalskiError('KW_ERR_RUN_NOT_FOUND', `no run ${runId}`);
    const events = stored.map((s) => s.event);
    const result = foldRun(runId, events);
    if (!result.ok) {
      throw new KowalskiError('KW_ERR_REPLAY_DIVERGED', `run ${runId} does not replay: event ${stored[result.index]?.seq ?? '?'} (${events[result.index]?.type ?? '?'}): ${result.reason}`);
    }
    return new LiveRun(runId, result.actor, events[0] as Created, this.deps.runDir(runId), stored[stored.length - 1]!.seq + 1, stored[0]!.at);
  }

  /** Drop a loaded run that needs nothing now (finished, or parked with nothing running). */
  release(run: LiveRun): void {
    if (run.running.size > 0) return;
    const state = run.actor.state;
    if (FINAL_RUN_STATES.has(state) || state === 'awaiting_input') {
      this.live.delete(run.runId);
      this.waiting.delete(run.runId);
      this.deps.leases.release(run.runId);
      this.letGo(run);
    }
  }

  /**
   * Apply events to the run's actor, add the decisions they allow (start steps, ask
   * the operator), and commit them all in the next group commit. `after` runs once committed.
   */
  submit(run: LiveRun, events: RunEvent[], after?: (stored: StoredEvent[]) => void, failed?: (err: unknown) => void): void {
    const batch = newBatch(run.actor.state);
    for (const e of events) this.apply(run, e, batch);
    this.decide(run, batch);
    this.commit(run, batch, after, failed);
  }

  private commit(run: LiveRun, batch: Batch, after?: (stored: StoredEvent[]) => void, failed?: (err: unknown) => void, alsoWrite?: () => void): void {
    const { before, events: all, states, effects } = batch;
    if (all.length === 0) {
      after?.([]);
      return;
    }
    const firstSeq = run.nextSeq;
    run.nextSeq += all.length;
    const state = run.actor.state;
    this.deps.committer.enqueue({
      runId: run.runId,
      firstSeq,
      events: all,
      before,
      state,
      context: run.actor.context,
      onCommitted: (stored) => {
        for (const [i, s] of stored.entries()) this.deps.observers.emit('run:event', { stored: s, state: states[i] ?? state });
        for (const effect of effects) this.perform(run, effect);
        after?.(stored);
        this.release(run);
      },
      ...(failed === undefined ? {} : { onFailed: failed }),
      ...(alsoWrite === undefined ? {} : { alsoWrite }),
    });
  }

  private apply(run: LiveRun, event: RunEvent, batch: Batch): void {
    const r = run.actor.send(event);
    if (!r.ok) throw new KowalskiError('KW_ERR_REPLAY_DIVERGED', `run ${run.runId}: ${r.reason}`);
    batch.events.push(event);
    batch.states.push(run.actor.state);
    batch.effects.push(...r.effects);
  }

  /** What the run's steps allow now (actors/run.decide.ts), applied to its machine: starts within the free slots, requests to the operator, a park for the budget. */
  private decide(run: LiveRun, batch: Batch): void {
    if (FINAL_RUN_STATES.has(run.actor.state) || this.closing) return;
    const kindOf = (step: string): StepKindInfo | undefined => this.deps.kinds.get(run.horde.steps[step]!.kind);
    const decision = decide(run.actor.context, {
      slots: this.deps.maxParallelSteps - this.slotsUsed,
      command: (step) => commandFor(run, step, kindOf(step)),
      review: (step) => reviewRequest(run, step, kindOf(step)),
      spent: () => this.deps.spent(run.runId, run.createdAt),
    });
    for (const event of decision.events) {
      this.apply(run, event, batch);
      if (event.type === 'step.started') this.slotsUsed++;
    }
    if (decision.waitsForSlot) this.waiting.add(run.runId);
  }

  private perform(run: LiveRun, effect: RunEffect): void {
    switch (effect.type) {
      case 'dispatch':
        if (run.actor.context.steps[effect.step]?.edit !== undefined) this.deps.crash('review-before-edit-applied');
        this.dispatch(run, effect.step, effect.attempt);
        return;
      case 'kill':
        run.running.get(effect.step)?.handle.cancel(effect.reason === 'cancelled' ? 'the run was cancelled' : 'another step failed the run');
        return;
      default: {
        const never: never = effect;
        throw new Error(`unknown effect ${(never as { type: string }).type}`);
      }
    }
  }

  private dispatch(run: LiveRun, step: string, attempt: number): void {
    const def = run.horde.steps[step]!;
    const kind = this.deps.kinds.get(def.kind);
    const startedAt = this.deps.clock.now();
    const reuse = run.actor.context.policy[step]?.reuse;
    if (reuse !== undefined && reusesResult(run.actor.context, step)) {
      // A re-run's step before --from: nothing runs; the earlier run's result and files are taken.
      reuseStep(run, step, reuse, this.deps.runDir).then(
        (reused) => this.finished(run.runId, step, attempt, startedAt, reused.result, reused.reusedFrom),
        (err: unknown) => this.finished(run.runId, step, attempt, startedAt, { outcome: 'fail', error: toPlainError(err) }),
      );
      return;
    }
    if (kind === undefined) {
      this.finished(run.runId, step, attempt, startedAt, { outcome: 'fail', error: toPlainError(unknownKind(def)) });
      return;
    }
    const replayFrom = run.rerun?.replayModels === true ? run.rerun.run : undefined;
    const task = buildStepTask(run, step, attempt, kind, this.deps.models.taskExtras(def, kind.usesModel, replayFrom));
    const handle = this.deps.runner.start(task, kind, {
      onSpawned: (pgid, token) => {
        // A run that ended meanwhile never lets the command through its gate; the kill is on its way.
        if (FINAL_RUN_STATES.has(run.actor.state) || this.closing) return;
        this.submit(run, [{ type: 'step.spawned', step, attempt, pgid, token }], () => {
          this.deps.crash('after-spawn-commit');
          handle.go();
        });
      },
      onProgress: (message) => this.deps.observers.emit('step:progress', { runId: run.runId, step, attempt, message }),
      ...this.deps.models.handlers(task),
    }, { timeoutMs: (def.timeoutSecs ?? this.deps.stepTimeoutSecs) * 1000 });
    run.running.set(step, { attempt, handle, startedAt });
    this.deps.crash('after-dispatch');
    handle.result.then(
      (result) => (handle.interrupted ? this.interrupted(run.runId, step, attempt) : this.finished(run.runId, step, attempt, startedAt, result)),
      (err: unknown) => this.finished(run.runId, step, attempt, startedAt, { outcome: 'fail', error: toPlainError(err) }),
    );
  }

  /** The step's thread was stopped for another step: as after a crash, it runs again (or, not safe to repeat, asks the operator). */
  private interrupted(runId: string, step: string, attempt: number): void {
    this.stepOver(runId, step, () => ({ type: 'step.interrupted', step, attempt }));
  }

  private finished(runId: string, step: string, attempt: number, startedAt: number, result: StepResult, reusedFrom?: Reused['reusedFrom']): void {
    this.stepOver(runId, step, (run) => {
      // A step ran in its run's folders: the next ones need not make them (a reused result ran nowhere).
      if (result.outcome === 'pass' && reusedFrom === undefined) run.foldersMade = true;
      this.deps.crash('before-result-commit');
      const event: RunEvent = { type: 'step.finished', step, attempt, outcome: result.outcome, durationMs: Math.max(0, this.deps.clock.now() - startedAt) };
      if (result.artifact !== undefined) event.artifact = result.artifact;
      if (result.summary !== undefined) event.summary = result.summary;
      if (result.error !== undefined) event.error = { code: result.error.code, message: result.error.message };
      if (reusedFrom !== undefined) event.reusedFrom = reusedFrom;
      return event;
    });
  }

  /** A step is over: its slot is free; unless its run has ended (or the engine is closing), `record` says what to commit. */
  private stepOver(runId: string, step: string, record: (run: LiveRun) => RunEvent): void {
    this.slotsUsed--;
    const run = this.live.get(runId);
    if (run !== undefined) {
      run.running.delete(step);
      if (!FINAL_RUN_STATES.has(run.actor.state) && !this.closing) this.submit(run, [record(run)]);
      else this.release(run);
    }
    this.pump();
  }

  /** Give freed slots to runs that were waiting for one. */
  private pump(): void {
    for (const runId of this.waiting) {
      if (this.slotsUsed >= this.deps.maxParallelSteps) return;
      this.waiting.delete(runId);
      const run = this.live.get(runId);
      if (run !== undefined) this.submit(run, []);
    }
  }

  /** Operator and recovery entry points use this to wait for a commit. */
  submitAndWait(run: LiveRun, events: RunEvent[]): Promise<StoredEvent[]> {
    return new Promise((resolve, reject) => this.submit(run, events, resolve, reject));
  }

  /** Stop starting anything; stop every running step (their attempts stay open in the log and re-run on the next start). */
  async close(): Promise<void> {
    this.closing = true;
    const results: Promise<StepResult>[] = [];
    for (const run of this.live.values()) {
      for (const r of run.running.values()) {
        r.handle.cancel('kowalski is shutting down');
        results.push(r.handle.result);
      }
    }
    await Promise.allSettled(results);
    for (const run of this.live.values()) run.actor.stop();
    this.live.clear();
    for (const run of this.parked.values()) run.actor.stop();
    this.parked.clear();
  }
}
