/**
 * The pool of step threads (Piscina). A thread runs several steps at once when the
 * engine allows more steps than it has threads: steps mostly wait (on a command, a model,
 * a file), and a thread costs ~10 MB. Tasks carry no abort signal: Piscina would run an
 * abortable task alone on its thread. A step is stopped by its cancel message; one that
 * ignores it has its thread terminated here, and the other steps on that thread are told
 * they were evicted (the engine runs them again: `step.interrupted`).
 */
import os from 'node:os';
import { Piscina } from 'piscina';
import { threadExecArgv } from './own-code.js';
import { ThreadSlots } from './thread-slots.js';
import type { Slot } from './thread-slots.js';

type Balancer = NonNullable<NonNullable<ConstructorParameters<typeof Piscina>[0]>['loadBalancer']>;

export interface StepPoolOptions {
  /** The worker module (worker.ts / worker.js). */
  filename: string;
  /** Node flags for the threads (OwnCode's). */
  execArgv: readonly string[];
  /** Threads at most, each started when a step finds every started one busy, then kept. */
  threads: number;
  /** Steps one thread runs at once. */
  stepsPerThread: number;
}

/**
 * The pool for a limit of `maxParallelSteps` steps at once: `threads` (default one per
 * core, at least 4 and at most 8), never more than the limit, each running its share.
 */
export function poolSize(maxParallelSteps: number, threads = Math.min(8, Math.max(4, os.availableParallelism()))): Pick<StepPoolOptions, 'threads' | 'stepsPerThread'> {
  const n = Math.max(1, Math.min(threads, maxParallelSteps));
  return { threads: n, stepsPerThread: Math.ceil(maxParallelSteps / n) };
}

/** A task on its way through the pool. */
export interface PoolTask<T> {
  /** Settles when the task is over: its return value, or the error that ended its thread. */
  readonly done: Promise<T>;
  /** If no thread has begun the task, it will not begin: it returns at once when it gets one. */
  cancelIfWaiting(): void;
  /**
   * Terminate the thread running the task (every task on it ends). True when the task
   * never began and never will (it was waiting for a thread): `done` settles only once it
   * gets one and returns at once.
   */
  stopThread(): boolean;
}

export class StepPool {
  private piscina: Piscina | undefined;
  private readonly slots = new ThreadSlots();
  /** Tasks given to a thread and not over, by slot: what to tell each if its thread is stopped for another. */
  private readonly live = new Map<Slot, () => void>();

  constructor(private readonly options: StepPoolOptions) {}

  /** Threads started so far (each is kept). */
  get started(): number {
    return this.piscina?.threads.length ?? 0;
  }

  /**
   * Run `make(slot)` (the task's input, carrying its slot) on a thread. `onEvicted` is
   * called if the task's thread is terminated to stop another task, before `done` rejects.
   */
  run<T>(make: (slot: Slot) => unknown, onEvicted: () => void): PoolTask<T> {
    const pool = this.pool();
    const slot = this.slots.acquire();
    this.live.set(slot, onEvicted);
    let over = false;
    const done = (pool.run(make(slot)) as Promise<T>).finally(() => {
      over = true;
      this.live.delete(slot);
      this.slots.release(slot);
    });
    return {
      done,
      cancelIfWaiting: () => {
        if (!over) this.slots.cancelIfWaiting(slot);
      },
      stopThread: () => {
        if (over) return false;
        if (this.slots.cancelIfWaiting(slot)) return true;
        const threadId = this.slots.threadOf(slot);
        if (threadId !== undefined) this.terminate(threadId, slot);
        return false;
      },
    };
  }

  private terminate(threadId: number, cause: Slot): void {
    const worker = this.piscina?.threads.find((w) => w.threadId === threadId);
    if (worker === undefined) return; // gone already: Piscina ends its tasks
    for (const [slot, onEvicted] of this.live) {
      if (slot !== cause && this.slots.threadOf(slot) === threadId) onEvicted();
    }
    void worker.terminate();
  }

  private pool(): Piscina {
    this.piscina ??= new Piscina({
      filename: this.options.filename,
      // One thread to begin with: a thread's start costs ~100 ms of CPU, and most engines run
      // a step at a time. The balancer starts the others as steps overlap.
      minThreads: 1,
      maxThreads: this.options.threads,
      concurrentTasksPerWorker: this.options.stepsPerThread,
      loadBalancer: this.spreadFirst,
      idleTimeout: Infinity,
      // Node 20's require() of an ES module (on by default since 20.19) can abort the whole
      // process ("v8::Module::IsGraphAsync must be used on an instantiated module") when it meets
      // a module an import() is still loading; Piscina loads the worker file with require() first.
      // Off in the workers, that require() fails at once and Piscina import()s the file instead.
      execArgv: [...threadExecArgv(this.options.execArgv), '--no-experimental-require-module'],
    });
    return this.piscina;
  }

  /**
   * An idle thread takes a step; when every started thread is busy, a new thread does
   * (Piscina starts one when the balancer names none, and hands the step to the first
   * thread that is free or ready) until there are `threads`; only then do steps share a
   * thread, the least busy one, up to `stepsPerThread`. `workers` may leave out threads
   * still starting: the step waits for one of them rather than share. Piscina's own
   * balancer would stack steps on the started threads before starting another.
   */
  private readonly spreadFirst: Balancer = (_task, workers) => {
    let least: (typeof workers)[number] | null = null;
    for (const worker of workers) {
      if (worker.currentUsage === 0) return worker;
      if (worker.currentUsage < this.options.stepsPerThread && (least === null || worker.currentUsage < least.currentUsage)) least = worker;
    }
    return this.started < this.options.threads || workers.length < this.started ? null : least;
  };

  async destroy(): Promise<void> {
    const pool = this.piscina;
    this.piscina = undefined;
    await pool?.destroy();
  }
}
