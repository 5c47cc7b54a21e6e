/**
 * One process of a plugin, from its start to its exit: the folder checked, the process
 * launched (launch.ts), its tool modules loaded (the `init` message, answered `ready` or
 * `start-failed` within the start time limit), then its messages handed on and its end
 * described (exit code or signal, the end of its stderr). It does not restart itself:
 * plugin-process.ts decides that.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { KowalskiError, messageOf } from '../../../core/index.js';
import { BoundedCapture, killGroup } from '../../../steps/index.js';
import type { Clock } from '../../base/clock.js';
import type { Timers } from '../../base/timers.js';
import { checkFolder, checkPrivate, launchPlugin } from './launch.js';
import type { LaunchSpec } from './launch.js';
import { parseHostMessage } from './protocol.js';
import type { EngineMessage, HostMessage } from './protocol.js';
import { pluginError } from './refusal.js';
import type { Sandbox } from './sandbox.js';

export interface ChildSpec extends Omit<LaunchSpec, 'sandbox'> {
  /** How it is confined; awaited before the first start (finding out takes a trial run of bwrap). */
  sandbox: Sandbox | Promise<Sandbox>;
  tools: { name: string; entry: string; export: string }[];
  /** Its `[[adapters]]`: `entry` relative to `root`, `export` an object with `receive` and `send`. */
  adapters?: { name: string; entry: string; export: string }[];
  maxResultBytes: number;
  /** Time from launch to `ready`, ms. */
  startTimeoutMs: number;
  clock: Clock;
  timers: Timers;
}

export interface ChildEvents {
  /** A message after `ready` (a result, a fetch). */
  message(message: HostMessage): void;
  /** The process is gone; `how` says how (`exited with code 1: …stderr…`). Called once, also after kill(). */
  exit(how: string): void;
}

/** Bytes of the plugin's stderr kept to describe how it ended. */
const STDERR_KEPT = 4096;

export class PluginChild {
  /** Settles once the plugin's modules are loaded; rejects with KW_ERR_PLUGIN_START (the child is then killed). */
  readonly ready: Promise<void>;
  private proc: ChildProcess | undefined;
  private readonly stderr = new BoundedCapture(STDERR_KEPT);
  private gone = false;
  private isReady = false;
  private readonly exitListeners: (() => void)[] = [];

  constructor(private readonly spec: ChildSpec, private readonly events: ChildEvents) {
    this.ready = this.start();
    // A start failure is reported through `ready`; nothing else awaits it when no call is waiting.
    this.ready.catch(() => undefined);
  }

  get running(): boolean {
    return this.isReady && !this.gone;
  }

  /** Its tools were loaded (it may have ended since). */
  get started(): boolean {
    return this.isReady;
  }

  send(message: EngineMessage): void {
    const proc = this.proc;
    if (proc === undefined || !proc.connected) return;
    try {
      proc.send(message, (err) => void err); // a send to a process that just died: its exit reports it
    } catch {
      // gone: its exit reports it
    }
  }

  /** SIGKILL the plugin's whole process group; resolves once it has exited. */
  async kill(): Promise<void> {
    if (this.gone) return;
    const exited = new Promise<void>((resolve) => this.exitListeners.push(resolve));
    if (this.proc?.pid === undefined) this.finish('was stopped before it started');
    else killGroup(this.proc.pid, 'SIGKILL');
    await exited;
  }

  private finish(how: string): void {
    if (this.gone) return;
    this.gone = true;
    this.events.exit(how);
    for (const listener of this.exitListeners.splice(0)) listener();
  }

  private startError(message: string): KowalskiError {
    return new KowalskiError('KW_ERR_PLUGIN_START', `plugin ${this.spec.name}: ${message}`);
  }

  private async start(): Promise<void> {
    const { spec } = this;
    let launch: LaunchSpec;
    try {
      await fs.promises.mkdir(spec.dataDir, { recursive: true });
      await checkFolder(spec);
      launch = { ...spec, sandbox: await spec.sandbox, dataDir: await fs.promises.realpath(spec.dataDir) };
      checkPrivate(launch);
    } catch (err) {
      this.finish('was not started');
      throw err instanceof KowalskiError ? err : this.startError(messageOf(err));
    }
    if (this.gone) throw this.startError('it was stopped before it started');
    const proc = launchPlugin(launch);
    this.proc = proc;
    proc.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    let settle: ((err?: KowalskiError) => void) | undefined;
    const started = new Promise<void>((resolve, reject) => {
      settle = (err) => {
        settle = undefined;
        if (err === undefined) resolve();
        else reject(err);
      };
    });
    proc.on('message', (raw: unknown) => {
      const message = parseHostMessage(raw);
      if (message === undefined) return;
      if (message.type === 'ready') {
        this.isReady = true;
        settle?.();
      } else if (message.type === 'start-failed') {
        const { error } = message;
        settle?.(this.startError(error.code === 'ERR_ACCESS_DENIED' ? `${error.message} (${pluginError(spec.name, undefined, error).message})` : error.message));
      } else if (this.isReady) {
        this.events.message(message);
      }
    });
    proc.on('error', (err) => settle?.(this.startError(`its process could not start: ${err.message}`)));
    proc.once('close', (code, signal) => {
      const tail = this.stderr.result().text.trim();
      const how = `${signal !== null ? `was killed by ${signal}` : `exited with code ${code ?? '?'}`}${tail === '' ? '' : `: ${tail}`}`;
      settle?.(this.startError(`its process ${how} before its tools were loaded`));
      this.finish(how);
    });
    const cancelTimer = spec.timers.at(spec.clock.now() + spec.startTimeoutMs, () => {
      settle?.(this.startError(`its tools were not loaded within ${spec.startTimeoutMs} ms`));
    });
    this.send({
      type: 'init',
      plugin: spec.name,
      dataDir: spec.dataDir,
      env: spec.permissions.env,
      maxResultBytes: spec.maxResultBytes,
      tools: spec.tools.map((t) => ({ name: t.name, url: pathToFileURL(path.resolve(spec.root, t.entry)).href, export: t.export })),
      adapters: (spec.adapters ?? []).map((a) => ({ name: a.name, url: pathToFileURL(path.resolve(spec.root, a.entry)).href, export: a.export })),
    });
    try {
      await started;
    } catch (err) {
      await this.kill();
      throw err;
    } finally {
      cancelTimer();
    }
  }
}
