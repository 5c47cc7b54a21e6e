/**
 * Bench phases that must run in a process of their own (a fresh start after a close or
 * a SIGKILL): the parent forks `child.js` (or `child.ts` under tsx, with the same
 * execArgv) and talks to it over Node IPC.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { benchModule } from './setup.js';

/** What a phase sends back: a `type` and whatever it measured. */
export interface PhaseMessage {
  type: string;
  [key: string]: unknown;
}

export interface PhaseOptions {
  env?: Record<string, string>;
  /** Called for each message as it arrives (e.g. to SIGKILL the child at the right moment). */
  onMessage?: (message: PhaseMessage, child: ChildProcess) => void;
  /** Kill the child and fail after this long, ms (default 120000). */
  limitMs?: number;
}

export interface PhaseEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  messages: PhaseMessage[];
}

/** Fork `child` with `args`; resolves when it has exited, with every message it sent. */
export function runPhase(args: string[], options: PhaseOptions = {}): Promise<PhaseEnd> {
  return new Promise((resolve, reject) => {
    const child = fork(benchModule('child'), args, {
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const messages: PhaseMessage[] = [];
    const limit = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`bench phase ${args[0] ?? '?'} did not finish within ${(options.limitMs ?? 120_000) / 1000} s`));
    }, options.limitMs ?? 120_000);
    child.on('message', (m: PhaseMessage) => {
      messages.push(m);
      options.onMessage?.(m, child);
    });
    child.once('error', (err) => {
      clearTimeout(limit);
      reject(err);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(limit);
      resolve({ code, signal, messages });
    });
  });
}

/** The phase's `result` message; throws with the phase's own `error` message if there is one. */
export function resultOf(end: PhaseEnd, phase: string): PhaseMessage {
  const failed = end.messages.find((m) => m.type === 'error');
  if (failed !== undefined) throw new Error(`bench phase ${phase} failed: ${String(failed.message)}`);
  const result = end.messages.find((m) => m.type === 'result');
  if (result === undefined) throw new Error(`bench phase ${phase} ended (code ${end.code ?? '-'}, signal ${end.signal ?? '-'}) without a result`);
  return result;
}

/** Child side: send one message and wait until it has left. */
export function send(message: PhaseMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    if (process.send === undefined) {
      reject(new Error('this bench phase must be started by bench/run (no IPC channel)'));
      return;
    }
    process.send(message, undefined, {}, (err) => (err === null ? resolve() : reject(err)));
  });
}

/** Child side: the next message of `type` from the parent (e.g. `go` once every node is ready). */
export function receive(type: string): Promise<PhaseMessage> {
  return new Promise((resolve) => {
    const on = (message: PhaseMessage) => {
      if (message.type !== type) return;
      process.off('message', on);
      resolve(message);
    };
    process.on('message', on);
  });
}
