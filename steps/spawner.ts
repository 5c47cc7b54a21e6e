/**
 * The engine's handle on its spawn helper (spawner-main.ts): started at the first
 * command, restarted at once when it dies, stopped with the runner. Steps reach it
 * through a Unix socket in a fresh folder only this user can enter; a BroadcastChannel
 * tells the steps of every pool thread when it is up.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';
import { LIFELINE_FD, holdLifeline, stdioWithLifeline } from './lifeline.js';
import { HELPER_DOWN, HELPER_STARTING, HELPER_UP } from './spawner-wire.js';
import type { SpawnerAddress } from './spawner-wire.js';

/** After a helper failed to start, how long commands spawn themselves before another try, ms. */
const RETRY_AFTER_MS = 30_000;
/** How long a closing helper gets to exit before it is SIGKILLed, ms. */
const CLOSE_GRACE_MS = 2000;

export class Spawner {
  private readonly channelName = `kowalski-spawner-${process.pid}-${crypto.randomUUID()}`;
  private readonly channel = new BroadcastChannel(this.channelName);
  private readonly state = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  private dir: string | undefined;
  private child: ChildProcess | undefined;
  private failedAt = -Infinity;
  private closed = false;

  /** `entry`: the helper's module (spawner-main.ts or .js); `execArgv`: its Node flags. */
  constructor(private readonly entry: string, private readonly execArgv: readonly string[]) {
    this.channel.unref();
  }

  /**
   * Where a step's command goes: the helper's address (it may still be starting: the
   * step waits for `ready` on the channel), or undefined when there is none to be had
   * (the runner is closed, or the helper failed to start a moment ago): the step then
   * spawns its command itself.
   */
  address(): SpawnerAddress | undefined {
    if (this.closed) return undefined;
    if (this.child === undefined) {
      if (performance.now() - this.failedAt < RETRY_AFTER_MS) return undefined;
      this.start();
    }
    return { socket: this.socketPath(), channel: this.channelName, state: this.state };
  }

  /** The helper's pid while one runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  private socketPath(): string {
    this.dir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'kw-spawn-'));
    return path.join(this.dir, 'helper.sock');
  }

  private start(): void {
    const child = fork(this.entry, [this.socketPath(), String(LIFELINE_FD)], {
      execArgv: [...this.execArgv],
      // Its own group: a terminal's Ctrl-C reaches the engine, which stops its steps in order.
      detached: true,
      stdio: stdioWithLifeline('inherit'),
    });
    holdLifeline(child);
    this.child = child;
    Atomics.store(this.state, 0, HELPER_STARTING);
    // The helper must never keep the engine's process alive; it leaves when the engine does.
    child.unref();
    child.channel?.unref();
    child.on('message', (message: { type?: string }) => {
      if (message.type !== 'ready' || this.child !== child) return;
      Atomics.store(this.state, 0, HELPER_UP);
      this.channel.postMessage('ready');
    });
    child.on('error', () => undefined); // 'exit' (or nothing, when it never started: see below)
    const gone = (): void => {
      if (this.child !== child) return;
      const wasReady = Atomics.load(this.state, 0) === HELPER_UP;
      this.child = undefined;
      if (this.closed) return;
      if (wasReady) {
        this.start(); // it died under us: the next command finds a new one
      } else {
        this.failedAt = performance.now();
        Atomics.store(this.state, 0, HELPER_DOWN);
        this.channel.postMessage('down');
      }
    };
    child.once('exit', gone);
    if (child.pid === undefined) queueMicrotask(gone);
  }

  /** Stop the helper (its commands are over by now) and remove its folder. */
  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    this.child = undefined;
    if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        child.disconnect();
      } catch {
        child.kill('SIGKILL');
      }
      const timer = setTimeout(() => child.kill('SIGKILL'), CLOSE_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
    this.channel.close();
    if (this.dir !== undefined) fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
