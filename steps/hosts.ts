/**
 * Where a step runs: a thread of the Piscina pool, or an isolated child process of
 * kowalski. Both speak the same protocol and end the same way: with the step's result,
 * or with a description of how the host died.
 */
import { fork } from 'node:child_process';
import { messageOf } from '../core/index.js';
import type { HordeDef } from '../core/index.js';
import { BoundedCapture } from './capture.js';
import { killGroup } from './kill-group.js';
import { LIFELINE_FD, holdLifeline, stdioWithLifeline } from './lifeline.js';
import type { StepBus } from './bus.js';
import type { StepPool } from './pool.js';
import { HORDES_KEPT } from './protocol.js';
import type { ChildInbound, EngineMessage, StepMessage, StepResult, StepTask } from './protocol.js';
import type { WorkerOutput, WorkerTask } from './worker.js';

/** `evicted`: the step's thread was terminated to stop another step that ignored its cancel. */
export type HostEnd = { type: 'result'; result: StepResult } | { type: 'crashed'; message: string } | { type: 'evicted'; message: string };

export interface StepHost {
  /** Settles when the step is over (never rejects). */
  readonly ended: Promise<HostEnd>;
  send(message: EngineMessage): void;
  /** Stop the host by force (terminate the thread, SIGKILL the child's group); `ended` follows. */
  kill(): void;
}

type Listener = (message: StepMessage) => void;

/**
 * Each horde object a runner hands to its pool, as JSON text under a key: serialized
 * once (a run's steps share one horde object), then copied to a thread as a string,
 * which costs a fraction of cloning the object (see worker.ts). The same text (the runs
 * of one horde version) has the same key, so a thread parses it once, not once per run.
 */
export class HordeTexts {
  private readonly texts = new WeakMap<HordeDef, { key: string; json: string }>();
  private readonly keys = new Map<string, string>();
  private next = 0;

  textOf(horde: HordeDef): { key: string; json: string } {
    let text = this.texts.get(horde);
    if (text === undefined) {
      const json = JSON.stringify(horde);
      let key = this.keys.get(json);
      if (key === undefined) {
        key = `h${++this.next}`;
        if (this.keys.size >= HORDES_KEPT) this.keys.delete(this.keys.keys().next().value!);
        this.keys.set(json, key);
      }
      text = { key, json };
      this.texts.set(horde, text);
    }
    return text;
  }
}

/**
 * Run a step in a pool thread; its messages travel on the runner's step bus. It has
 * ended when the task returned and every message it posted before returning has arrived.
 */
export function startInPool(pool: StepPool, bus: StepBus, hordes: HordeTexts, task: StepTask, kindModule: string, listener: Listener): StepHost {
  let received = 0;
  let expected = Infinity;
  let allReceived: (() => void) | undefined;
  let killed = false;
  let evicted = false;
  const unlisten = bus.listen(task.token, (message: StepMessage) => {
    received += 1;
    if (message.type !== 'done') listener(message);
    if (received >= expected) allReceived?.();
  });
  const { horde, ...slim } = task;
  const { key, json } = hordes.textOf(horde);
  const run = pool.run<WorkerOutput>(
    (slot): WorkerTask => ({ task: slim, hordeKey: key, hordeJson: json, kindModule, bus: bus.name, slot }),
    () => { evicted = true; },
  );
  // Settled by the task's end, or at once when it is stopped while it waits for a thread
  // (Piscina's queue lets its task go later, and it returns without beginning).
  let settle!: (end: HostEnd) => void;
  const ended = new Promise<HostEnd>((resolve) => {
    settle = resolve;
  });
  void run.done.then(
    async ({ result, messages }) => {
      if (received < messages) {
        expected = messages;
        await new Promise<void>((resolve) => {
          allReceived = resolve;
        });
      }
      unlisten();
      settle({ type: 'result', result });
    },
    (err: unknown) => {
      unlisten();
      if (evicted) settle({ type: 'evicted', message: 'its worker thread was stopped by force, to stop another step on the same thread that ignored its cancel' });
      else settle({ type: 'crashed', message: killed ? 'the worker thread was stopped by force' : `the worker thread died: ${messageOf(err)}` });
    },
  );
  return {
    ended,
    send: (message) => {
      if (message.type === 'cancel') run.cancelIfWaiting();
      bus.send(task.token, message);
    },
    kill: () => {
      killed = true;
      if (run.stopThread()) {
        unlisten();
        settle({ type: 'crashed', message: 'it was stopped while it waited for a thread' });
      }
    },
  };
}

export interface ChildHostOptions {
  /** Absolute path of the child entry (`child.ts` / `child.js`). */
  entry: string;
  /** Its Node flags (OwnCode's). */
  execArgv: readonly string[];
  /** After `done`, how long the child gets to exit before it is killed, ms. */
  exitGraceMs: number;
}

/** Run a step in a child process of its own, in its own process group. */
export function startInChild(task: StepTask, kindModule: string, listener: Listener, options: ChildHostOptions): StepHost {
  const child = fork(options.entry, [], {
    execArgv: [...options.execArgv],
    detached: true,
    stdio: stdioWithLifeline('pipe'),
    // The child itself carries the token, so a restart's leftover sweep finds it too.
    env: { ...process.env, KOWALSKI_STEP_TOKEN: task.token },
  });
  holdLifeline(child);
  const stderr = new BoundedCapture(4096);
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  let result: StepResult | undefined;
  let exitTimer: NodeJS.Timeout | undefined;
  const killChild = (): void => {
    if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
  };
  child.on('message', (message: StepMessage) => {
    if (message.type === 'done') {
      result = message.result;
      exitTimer = setTimeout(killChild, options.exitGraceMs);
      return;
    }
    listener(message);
  });
  const ended = new Promise<HostEnd>((resolve) => {
    let spawnError: Error | undefined;
    child.on('error', (err) => {
      spawnError = err;
      if (child.pid === undefined) resolve({ type: 'crashed', message: `the step's child process could not start: ${err.message}` });
    });
    child.once('close', (code, signal) => {
      if (exitTimer !== undefined) clearTimeout(exitTimer);
      if (result !== undefined) {
        resolve({ type: 'result', result });
        return;
      }
      const how = signal !== null ? `was killed by ${signal}` : `exited with code ${code ?? '?'}`;
      const tail = stderr.result().text.trim();
      const cause = spawnError === undefined ? '' : ` (${spawnError.message})`;
      resolve({ type: 'crashed', message: `the step's child process ${how} before reporting a result${cause}${tail === '' ? '' : `:\n${tail}`}` });
    });
  });
  const first: ChildInbound = { type: 'task', task: { ...task, lifeline: LIFELINE_FD }, kindModule };
  const send = (message: ChildInbound): void => {
    if (!child.connected) return;
    try {
      child.send(message, (err) => {
        void err; // the child is gone: 'close' reports it
      });
    } catch {
      // the child is gone: 'close' reports it
    }
  };
  send(first);
  return { ended, send, kill: killChild };
}
