/**
 * A step's side of the spawn helper: runs a command through the engine's helper
 * (spawner-main.ts) when the task names one, else (an isolated child, or no helper to
 * be had) in this process with `execCommand`. The result, the gate, the kill on abort
 * and the output bounds are the same either way: the helper runs `execCommand` itself.
 */
import net from 'node:net';
import { BroadcastChannel } from 'node:worker_threads';
import { KowalskiError, fromPlainError } from '../core/index.js';
import { execCommand } from './exec.js';
import type { ExecOptions, ExecResult } from './exec.js';
import { killGroup } from './kill-group.js';
import type { CommandSpec } from './protocol.js';
import { HELPER_DOWN, lineReader } from './spawner-wire.js';
import type { SpawnReply, SpawnRequest, SpawnerAddress } from './spawner-wire.js';

/** How long a step waits for a helper that is starting before it spawns the command itself, ms. */
const READY_WAIT_MS = 10_000;

/** Run `spec` through the helper at `spawner` (when given and reachable), else here. */
export async function runCommand(spec: CommandSpec, options: ExecOptions & { spawner?: SpawnerAddress | undefined }): Promise<ExecResult> {
  if (options.spawner === undefined) return execCommand(spec, options);
  if (options.signal.aborted) throw new KowalskiError('KW_ERR_STEP_CANCELLED', 'the step was stopped before its command started');
  const socket = await connect(options.spawner);
  // No helper answers: nothing was started, so the command may start here instead.
  if (socket === undefined) return execCommand(spec, options);
  return viaHelper(socket, spec, options);
}

function tryConnect(socketPath: string): Promise<net.Socket | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', () => resolve(undefined));
  });
}

/** Connect; while the helper is starting (no socket yet), wait for its `ready` once. */
async function connect(address: SpawnerAddress): Promise<net.Socket | undefined> {
  const first = await tryConnect(address.socket);
  if (first !== undefined) return first;
  const channel = new BroadcastChannel(address.channel);
  try {
    const news = new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), READY_WAIT_MS);
      channel.onmessage = (event) => {
        clearTimeout(timer);
        resolve(String((event as { data: unknown }).data));
      };
    });
    // Listening now: a `ready` sent before this try is seen by the try itself, a `down` by the state.
    const second = await tryConnect(address.socket);
    if (second !== undefined) return second;
    if (Atomics.load(address.state, 0) === HELPER_DOWN) return undefined;
    return (await news) === 'ready' ? await tryConnect(address.socket) : undefined;
  } finally {
    channel.close();
  }
}

function viaHelper(socket: net.Socket, spec: CommandSpec, options: ExecOptions): Promise<ExecResult> {
  const say = (message: SpawnRequest): void => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
  };
  return new Promise<ExecResult>((resolve, reject) => {
    let pgid: number | undefined;
    let settled = false;
    const onAbort = (): void => say({ type: 'abort' });
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      options.signal.removeEventListener('abort', onAbort);
      socket.destroy();
      outcome();
    };
    const onReply = (value: unknown): void => {
      const reply = value as SpawnReply | undefined;
      switch (reply?.type) {
        case 'spawned':
          pgid = reply.pgid;
          options.signal.addEventListener('abort', onAbort, { once: true });
          options.spawned(reply.pgid).then(
            () => say(options.signal.aborted ? { type: 'abort' } : { type: 'go' }),
            () => say({ type: 'abort' }), // not recorded (or cancelled): the gate must not open
          );
          return;
        case 'refused':
          finish(() => reject(fromPlainError(reply.error)));
          return;
        case 'exit':
          finish(() => resolve(reply.result));
          return;
        default:
          finish(() => reject(new KowalskiError('KW_ERR_INTERNAL', `the spawn helper answered ${JSON.stringify(value)}`)));
      }
    };
    socket.on('data', lineReader(onReply, () => onReply(undefined)));
    socket.on('error', () => undefined); // 'close' follows
    socket.once('close', () => finish(() => {
      // The helper went away before it started anything: the command starts here instead.
      if (pgid === undefined) {
        execCommand(spec, options).then(resolve, reject);
        return;
      }
      // It died under the command: its sentinel has killed the group (and so do we).
      killGroup(pgid, 'SIGKILL');
      reject(new KowalskiError('KW_ERR_COMMAND_LOST',
        `the spawn helper died while it ran ${JSON.stringify(spec.argv)} in ${spec.cwd} (process group ${pgid}); the command was killed with it`));
    }));
    const start: SpawnRequest = { type: 'start', argv: spec.argv, cwd: spec.cwd, env: options.env, outputBytes: options.outputBytes };
    if (options.killGraceMs !== undefined) start.killGraceMs = options.killGraceMs;
    if (options.drainMs !== undefined) start.drainMs = options.drainMs;
    say(start);
  });
}
