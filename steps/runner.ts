/**
 * The engine's handle on running steps: starts a step in a pool thread or an isolated
 * child, relays its messages, enforces the timeout, carries out cancel, and makes sure
 * nothing the step started outlives a timeout, a cancel or a crash.
 */
import { ERROR_CODES, toPlainError, KowalskiError, messageOf } from '../core/index.js';
import type { ErrorCode } from '../core/index.js';
import { StepBus } from './bus.js';
import { HordeTexts, startInChild, startInPool } from './hosts.js';
import type { HostEnd, StepHost } from './hosts.js';
import { killLeftovers } from './leftovers.js';
import { StepPool } from './pool.js';
import { Spawner } from './spawner.js';
import type { ModelCallTrace, ToolCallingMode } from '../agents/index.js';
import type { EngineMessage, StepMessage, StepRequest, StepResult, StepTask } from './protocol.js';
import { thisBuild } from './own-code.js';
import type { OwnCode } from './own-code.js';
import type { StepKindInfo } from './registry.js';

export interface StepRunnerOptions {
  /** Threads for in-process steps, started with the first one. */
  threads: number;
  /**
   * Steps one thread runs at once (default 1). Above 1, a step that ignores its cancel is
   * stopped with its thread, and the other steps on that thread end as `interrupted`.
   */
  stepsPerThread?: number;
  /** After cancel or timeout, how long the step gets to stop by itself before its thread or child is killed, ms (default 2500). */
  stopGraceMs?: number;
  /** The spawn helper's module (default steps/spawner-main); tests give one that fails to start. */
  spawnerEntry?: string;
  /** Where the worker, the child entry and the spawn helper are, and their Node flags (default: this build's). */
  code?: OwnCode;
}

export interface StepHandlers {
  /** The step started a command in process group `pgid`; record it durably, then call `go()`. */
  onSpawned(pgid: number, token: string): void;
  onProgress(message: string): void;
  /** The step asks the engine for something (a tool); `signal` aborts when the step is stopped or over. Absent: every request fails. */
  onRequest?(request: StepRequest, signal: AbortSignal): Promise<unknown>;
  /** The step made a provider call; record it. */
  onTrace?(trace: ModelCallTrace): void;
  /** The step found how a model calls tools. */
  onLearned?(model: string, mode: ToolCallingMode): void;
}

export interface StartOptions {
  /** The step's time limit, ms. */
  timeoutMs: number;
}

export interface RunningStep {
  /** The step's result; never rejects (timeouts, cancels and crashes are `fail` results with an error). */
  result: Promise<StepResult>;
  /** The `spawned` record is committed: let the command run. */
  go(): void;
  /** Stop the step; its result becomes KW_ERR_STEP_CANCELLED. */
  cancel(reason: string): void;
  /**
   * Once `result` settles: true when the step did not end on its own account: its thread
   * was terminated to stop another step sharing it. Whatever it did may be half done, as
   * after a crash; the engine records `step.interrupted`, not its result.
   */
  readonly interrupted: boolean;
}

export interface StepRunner {
  start(task: StepTask, kind: StepKindInfo, handlers: StepHandlers, options: StartOptions): RunningStep;
  /** Cancel every running step, wait for them, and stop the pool. */
  close(): Promise<void>;
}

function failure(code: ErrorCode, message: string, where?: { file?: string; key?: string }): StepResult {
  const error = toPlainError(new KowalskiError(code, message, where === undefined ? {} : { where }));
  delete error.stack;
  return { outcome: 'fail', error, summary: message.split('\n', 1)[0] ?? ERROR_CODES[code].summary };
}

/** Longest timer Node accepts. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function supervise(
  task: StepTask,
  handlers: StepHandlers,
  options: StartOptions,
  stopGraceMs: number,
  startHost: (listener: (message: StepMessage) => void) => StepHost,
): RunningStep {
  let stopped: StepResult | undefined;
  let settled = false;
  let pgid: number | undefined;
  let forceTimer: NodeJS.Timeout | undefined;
  // Made at the first request only: most steps ask nothing, and an AbortController per step shows in W1.
  let requests: AbortController | undefined;

  const stop = (result: StepResult, reason: string): void => {
    if (settled || stopped !== undefined) return;
    stopped = result;
    requests?.abort(new KowalskiError('KW_ERR_STEP_CANCELLED', reason));
    host.send({ type: 'cancel', reason });
    forceTimer = setTimeout(() => host.kill(), stopGraceMs);
  };
  const listener = (message: StepMessage): void => {
    switch (message.type) {
      case 'spawned':
        pgid = message.pgid;
        try {
          handlers.onSpawned(message.pgid, message.token);
        } catch (err) {
          const why = messageOf(err);
          stop(failure('KW_ERR_INTERNAL', `recording the process group of step \`${task.step.name}\` failed: ${why}`), 'the engine could not record the command');
        }
        return;
      case 'progress':
        try {
          handlers.onProgress(message.message);
        } catch {
          // an observer's failure is not the step's
        }
        return;
      case 'request': {
        if (stopped !== undefined) return; // the step is being stopped: nothing it asks for runs now
        const { id } = message;
        const answer = (reply: EngineMessage): void => {
          if (!settled && stopped === undefined) host.send(reply);
        };
        let pending: Promise<unknown>;
        try {
          if (handlers.onRequest === undefined) throw new KowalskiError('KW_ERR_INTERNAL', `this step runner answers no requests (${message.request.op})`);
          requests ??= new AbortController();
          pending = handlers.onRequest(message.request, requests.signal);
        } catch (err) {
          pending = Promise.reject(err);
        }
        pending.then(
          (value) => answer({ type: 'response', id, ok: true, value }),
          (err: unknown) => {
            const error = toPlainError(err, 'KW_ERR_TOOL_FAILED');
            delete error.stack;
            answer({ type: 'response', id, ok: false, error });
          },
        );
        return;
      }
      case 'trace':
      case 'learned':
        try {
          if (message.type === 'trace') handlers.onTrace?.(message.trace);
          else handlers.onLearned?.(message.model, message.mode);
        } catch {
          // recording is the engine's concern; the step goes on
        }
        return;
      case 'done':
        return; // the host reports the result
      default: {
        const never: never = message;
        void never;
      }
    }
  };
  // Messages arrive asynchronously, so `host` is set before the listener or a stop uses it.
  const host: StepHost = startHost(listener);

  const seconds = Math.round(options.timeoutMs / 100) / 10;
  const timeout = setTimeout(() => {
    stop(failure('KW_ERR_STEP_TIMEOUT', `step \`${task.step.name}\` ran longer than its timeout of ${seconds} s and was stopped`,
      { file: task.step.file, key: 'timeout_secs' }), `timed out after ${seconds} s`);
  }, Math.max(0, Math.min(options.timeoutMs, MAX_TIMER_MS)));

  let interrupted = false;
  const finish = async (end: HostEnd): Promise<StepResult> => {
    settled = true;
    interrupted = end.type === 'evicted' && stopped === undefined;
    requests?.abort(new KowalskiError('KW_ERR_STEP_CANCELLED', 'the step is over'));
    clearTimeout(timeout);
    if (forceTimer !== undefined) clearTimeout(forceTimer);
    const abnormal = stopped !== undefined || end.type !== 'result';
    if (abnormal) {
      // Whatever the step started and left behind (also outside its process group) goes now.
      // After a clean exit exec.ts has already killed the command's whole group; a /proc sweep
      // per step would cost milliseconds on the engine's thread.
      await killLeftovers(pgid !== undefined ? { pgid, token: task.token } : { token: task.token });
    }
    if (stopped !== undefined) return stopped;
    if (end.type !== 'result') return failure('KW_ERR_STEP_CRASHED', `step \`${task.step.name}\`: ${end.message}`);
    return end.result;
  };
  const result = host.ended.then(finish).catch((err: unknown) => ({
    outcome: 'fail' as const,
    error: toPlainError(err),
    summary: 'the step runner failed while finishing the step',
  }));

  return {
    result,
    go: () => host.send({ type: 'go' }),
    cancel: (reason) => stop(failure('KW_ERR_STEP_CANCELLED', `step \`${task.step.name}\` was cancelled: ${reason}`), reason),
    get interrupted() {
      return interrupted;
    },
  };
}

export function createStepRunner(options: StepRunnerOptions): StepRunner {
  const stopGraceMs = options.stopGraceMs ?? 2500;
  const running = new Set<RunningStep>();
  let closed = false;
  const code = options.code ?? thisBuild();
  const childEntry = code.file('steps/child');
  // Commands of pool-thread steps start in this small helper, not by forking the engine;
  // an isolated child is a small process itself and starts its commands directly.
  const spawner = new Spawner(options.spawnerEntry ?? code.file('steps/spawner-main'), code.execArgv);

  const bus = new StepBus();
  const hordes = new HordeTexts();
  const pool = new StepPool({
    filename: code.file('steps/worker'),
    execArgv: code.execArgv,
    threads: Math.max(1, options.threads),
    stepsPerThread: Math.max(1, options.stepsPerThread ?? 1),
  });

  return {
    start(task, kind, handlers, startOptions) {
      if (closed) {
        const result = Promise.resolve(failure('KW_ERR_STEP_CANCELLED', `step \`${task.step.name}\` was not started: the step runner is closed`));
        return { result, go: () => undefined, cancel: () => undefined, interrupted: false };
      }
      if (kind.runsCommand && task.step.isolation !== 'process') {
        const address = spawner.address();
        if (address !== undefined) task.spawner = address;
      }
      const step = supervise(task, handlers, startOptions, stopGraceMs, (listener) =>
        task.step.isolation === 'process'
          ? startInChild(task, kind.module, listener, { entry: childEntry, execArgv: code.execArgv, exitGraceMs: stopGraceMs })
          : startInPool(pool, bus, hordes, task, kind.module, listener));
      running.add(step);
      void step.result.finally(() => running.delete(step));
      return step;
    },
    async close() {
      closed = true;
      const steps = [...running];
      for (const step of steps) step.cancel('the step runner was closed');
      await Promise.all(steps.map((step) => step.result));
      await pool.destroy();
      await spawner.close();
      bus.close();
    },
  };
}
