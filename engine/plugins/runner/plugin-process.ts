/**
 * A plugin's process over its life: calls sent to it and bounded in time and size, its
 * fetches carried out by the engine (plugin-fetch.ts), a hung process killed and a
 * crashed one started again at the next call (at most `maxRestarts` in `restartWindowMs`,
 * then `failed` until a new PluginProcess replaces it: a grant, a rescan), every failure
 * counted and reported with its phase.
 */
import type { ToolOutput } from '../../../agents/index.js';
import { KowalskiError, messageOf } from '../../../core/index.js';
import { systemClock } from '../../base/clock.js';
import type { Clock } from '../../base/clock.js';
import type { Timers } from '../../base/timers.js';
import type { PluginPermissions } from '../types.js';
import { PluginChild } from './plugin-child.js';
import { hostAllowed, pluginFetch } from './plugin-fetch.js';
import type { AdapterMethod, HostMessage, WireError } from './protocol.js';
import { pluginError } from './refusal.js';
import { RestartBudget } from './restart-budget.js';
import type { Sandbox } from './sandbox.js';

export interface PluginProcessOptions {
  name: string;
  /** The plugin's folder (absolute, a real path). */
  root: string;
  /** Each tool: `entry` is its module, relative to `root`; `export` the function it exports. */
  tools: { name: string; entry: string; export: string }[];
  /** Its `[[adapters]]`: `entry` relative to `root`; `export` an object with `receive` and `send`. */
  adapters?: { name: string; entry: string; export: string }[];
  permissions: PluginPermissions;
  /** The plugin's own data folder (made if missing): readable and writable without a grant. */
  dataDir: string;
  /** How its process is confined (detectSandbox: bubblewrap where it works, else Node's permission model only). */
  sandbox: Sandbox | Promise<Sandbox>;
  /** Folders it may never see, whatever it was granted: kowalski's data folder. */
  privateDirs: readonly string[];
  timers: Timers;
  /** Default: the system clock. */
  clock?: Clock;
  /** A call's time limit, and the start's, ms (default 30 000). */
  callTimeoutMs?: number;
  /** Bytes of a call's answer as JSON (default 1 MiB). */
  maxResultBytes?: number;
  /** Restarts allowed in `restartWindowMs` (default 3); one more and the plugin is `failed`. */
  maxRestarts?: number;
  /** Default 600 000 ms (10 minutes). */
  restartWindowMs?: number;
  /** Hosts its `kowalski.fetch` may reach (default: `permissions.net`, `*.example.com` for subdomains). */
  fetchAllow?: (host: string) => boolean;
  /** Test only: `ip:port` pairs its fetch may reach although web_fetch's rules refuse them. */
  testOnlyFetchAllow?: readonly string[];
  /** Each failure as it happens: a start that failed, a call that crashed, hung, or was refused a permission. */
  onFailure(phase: 'start' | 'call', err: Error): void;
}

export interface PluginProcess {
  /** A tool's call; with `adapter`, a call of adapter `tool`'s `receive` or `send` (its value is the answer's `structured`). */
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal, adapter?: AdapterMethod): Promise<ToolOutput>;
  stats(): { restarts: number; failures: number; running: boolean };
  /** Kill the process; waiting calls fail with KW_ERR_PLUGIN_STOPPED and later ones too. */
  stop(): Promise<void>;
}

/** A plugin's `kowalski.fetch` calls the engine carries out at the same time; one more is refused (KW_ERR_FETCH_LIMIT). */
const MAX_FETCHES_AT_ONCE = 8;

export const PLUGIN_DEFAULTS = { callTimeoutMs: 30_000, maxResultBytes: 1024 * 1024, maxRestarts: 3, restartWindowMs: 10 * 60_000 } as const;

interface Pending {
  /** The callee as messages name it: `greet`, or `adapter relay's receive`. */
  tool: string;
  /** The same with its kind: `tool greet`, `adapter relay's receive`. */
  what: string;
  resolve(output: ToolOutput): void;
  reject(err: Error): void;
}

class Runner implements PluginProcess {
  private child: PluginChild | undefined;
  private readonly calls = new Map<number, Pending>();
  private readonly fetches = new AbortController();
  private fetchesInFlight = 0;
  private nextId = 0;
  private starts = 0;
  private restarts = 0;
  private failures = 0;
  private failed: KowalskiError | undefined;
  private stopped = false;
  private readonly clock: Clock;
  private readonly budget: RestartBudget;
  private readonly fetchAllow: (host: string) => boolean;

  constructor(private readonly o: PluginProcessOptions) {
    this.clock = o.clock ?? systemClock;
    this.budget = new RestartBudget(this.clock, o.maxRestarts ?? PLUGIN_DEFAULTS.maxRestarts, o.restartWindowMs ?? PLUGIN_DEFAULTS.restartWindowMs);
    this.fetchAllow = o.fetchAllow ?? hostAllowed(o.permissions.net);
  }

  private get timeoutMs(): number {
    return this.o.callTimeoutMs ?? PLUGIN_DEFAULTS.callTimeoutMs;
  }

  private get maxResultBytes(): number {
    return this.o.maxResultBytes ?? PLUGIN_DEFAULTS.maxResultBytes;
  }

  stats(): { restarts: number; failures: number; running: boolean } {
    return { restarts: this.restarts, failures: this.failures, running: this.child?.running ?? false };
  }

  private fail(phase: 'start' | 'call', err: Error): void {
    this.failures += 1;
    this.o.onFailure(phase, err);
  }

  /** The running child, or a new one: the first start, or a restart while the budget allows (startPluginProcess calls it for the first). */
  ensureChild(): PluginChild {
    if (this.stopped) throw new KowalskiError('KW_ERR_PLUGIN_STOPPED', `plugin ${this.o.name} was stopped`);
    if (this.failed !== undefined) throw this.failed;
    if (this.child !== undefined) return this.child;
    if (this.starts > 0) {
      if (!this.budget.take()) {
        const windowMin = Math.round((this.o.restartWindowMs ?? PLUGIN_DEFAULTS.restartWindowMs) / 60_000);
        this.failed = new KowalskiError('KW_ERR_PLUGIN_FAILED', `plugin ${this.o.name} failed ${this.failures} times and was restarted ${this.restarts} times in ${windowMin} minutes; it is not started again until it is granted again or rescanned`);
        this.fail('start', this.failed);
        throw this.failed;
      }
      this.restarts += 1;
    }
    this.starts += 1;
    const child = new PluginChild({
      ...this.o,
      maxResultBytes: this.maxResultBytes,
      startTimeoutMs: this.timeoutMs,
      clock: this.clock,
    }, {
      message: (message) => this.onMessage(message),
      exit: (how) => this.onExit(child, how),
    });
    this.child = child;
    child.ready.catch((err: unknown) => {
      if (!this.stopped) this.fail('start', err as Error);
    });
    return child;
  }

  async call(name: string, args: Record<string, unknown>, signal: AbortSignal, adapter?: AdapterMethod): Promise<ToolOutput> {
    const tool = adapter === undefined ? name : `adapter ${name}'s ${adapter}`;
    const what = adapter === undefined ? `tool ${name}` : tool;
    signal.throwIfAborted();
    const child = this.ensureChild();
    await child.ready;
    signal.throwIfAborted();
    if (this.child !== child) throw new KowalskiError('KW_ERR_PLUGIN_CRASHED', `plugin ${this.o.name}: its process ended before the call to ${tool} could be sent`);
    const id = ++this.nextId;
    return new Promise<ToolOutput>((resolve, reject) => {
      let cancelTimer = (): void => undefined;
      const done = (): void => {
        this.calls.delete(id);
        cancelTimer();
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = (): void => {
        done();
        child.send({ type: 'cancel', id });
        reject(signal.reason as Error);
      };
      const onTimeout = (): void => {
        // An older call still waiting on this process has the same deadline (to the clock's millisecond, and a
        // timer can fire a millisecond early): that one did not answer, and this one fails with it, or times out itself a moment later.
        const oldest = this.calls.keys().next().value;
        if (this.child === child && oldest !== undefined && oldest < id) {
          cancelTimer = this.o.timers.at(this.clock.now() + 1, onTimeout);
          return;
        }
        done();
        const err = new KowalskiError('KW_ERR_PLUGIN_TIMEOUT', `plugin ${this.o.name}: ${what} did not answer within ${this.timeoutMs} ms; its process was killed and starts again at the next call`);
        this.fail('call', err);
        reject(err);
        this.killChild(child, tool);
      };
      cancelTimer = this.o.timers.at(this.clock.now() + this.timeoutMs, onTimeout);
      signal.addEventListener('abort', onAbort, { once: true });
      this.calls.set(id, {
        tool, what,
        resolve: (output) => { done(); resolve(output); },
        reject: (err) => { done(); reject(err); },
      });
      child.send({ type: 'call', id, tool: name, args, ...(adapter === undefined ? {} : { adapter }) });
    });
  }

  /**
   * A hung child is let go at once, before it has exited: the next call starts a new process
   * rather than being sent to one that is dying, and the calls it still held fail now.
   */
  private killChild(child: PluginChild, tool: string): void {
    if (this.child === child) {
      this.child = undefined;
      const err = new KowalskiError('KW_ERR_PLUGIN_CRASHED', `plugin ${this.o.name}: its process was killed because a call to ${tool} did not answer in time`);
      this.rejectWaiting(err);
    }
    void child.kill();
  }

  private rejectWaiting(err: KowalskiError): Pending[] {
    const waiting = [...this.calls.values()];
    this.calls.clear();
    for (const pending of waiting) pending.reject(err);
    return waiting;
  }

  private onMessage(message: HostMessage): void {
    if (message.type === 'result') {
      const pending = this.calls.get(message.id);
      if (pending === undefined) return;
      if (message.ok) this.settleOutput(pending, message.output);
      else this.settleError(pending, message.error);
    } else if (message.type === 'fetch') {
      void this.fetchFor(message.id, message.url, message.init);
    }
  }

  private settleOutput(pending: Pending, output: unknown): void {
    const o = output as Partial<ToolOutput> | null;
    const size = Buffer.byteLength(JSON.stringify(output) ?? '');
    if (o === null || typeof o !== 'object' || typeof o.content !== 'string' || size > this.maxResultBytes) {
      const why = size > this.maxResultBytes ? `answered ${size} bytes, more than the limit of ${this.maxResultBytes}` : 'answered with something that is not a tool output';
      const err = new KowalskiError('KW_ERR_PLUGIN_RESULT_LIMIT', `plugin ${this.o.name}: ${pending.what} ${why}`);
      this.fail('call', err);
      pending.reject(err);
      return;
    }
    const out: ToolOutput = { content: o.content };
    if (o.meta !== undefined && typeof o.meta === 'object') out.meta = o.meta;
    if (o.structured !== undefined) out.structured = o.structured;
    pending.resolve(out);
  }

  private settleError(pending: Pending, error: WireError): void {
    const err = pluginError(this.o.name, pending.what, error);
    // A tool's own error is its answer; Node's refusal or an answer too large is a failure of the plugin
    // (a refused fetch was counted when the engine refused it, although the plugin may have swallowed it).
    if (error.code === 'ERR_ACCESS_DENIED' || err.code === 'KW_ERR_PLUGIN_RESULT_LIMIT') this.fail('call', err);
    pending.reject(err);
  }

  private async fetchFor(id: number, url: string, init: Parameters<typeof pluginFetch>[2]): Promise<void> {
    const child = this.child;
    if (this.fetchesInFlight >= MAX_FETCHES_AT_ONCE) {
      const message = `plugin ${this.o.name}: more than ${MAX_FETCHES_AT_ONCE} fetches at once; wait for one to finish`;
      child?.send({ type: 'fetched', id, ok: false, error: { code: 'KW_ERR_FETCH_LIMIT', message } });
      return;
    }
    this.fetchesInFlight += 1;
    try {
      const response = await pluginFetch({
        plugin: this.o.name,
        fetchAllow: this.fetchAllow,
        ...(this.o.testOnlyFetchAllow === undefined ? {} : { testOnlyFetchAllow: this.o.testOnlyFetchAllow }),
        timeoutMs: this.timeoutMs,
      }, url, init, this.fetches.signal);
      child?.send({ type: 'fetched', id, ok: true, response });
    } catch (err) {
      const e = err instanceof KowalskiError ? err : new KowalskiError('KW_ERR_FETCH_FAILED', `${url}: ${messageOf(err)}`);
      if (e.code === 'KW_ERR_PLUGIN_PERMISSION' || e.code === 'KW_ERR_FETCH_BLOCKED') this.fail('call', e);
      child?.send({ type: 'fetched', id, ok: false, error: { code: e.code, message: e.message } });
    } finally {
      this.fetchesInFlight -= 1;
    }
  }

  private onExit(child: PluginChild, how: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    if (this.stopped) {
      this.rejectWaiting(new KowalskiError('KW_ERR_PLUGIN_STOPPED', `plugin ${this.o.name} was stopped`));
      return;
    }
    const waiting = [...this.calls.values()];
    const err = new KowalskiError('KW_ERR_PLUGIN_CRASHED', `plugin ${this.o.name}: its process ${how}${waiting.length === 0 ? ' between calls' : ` during a call to ${waiting.map((p) => p.tool).join(', ')}`}; it starts again at the next call`);
    // A start that failed was counted by its `ready`; a process that was running and ended by itself is counted here.
    if (child.started || waiting.length > 0) this.fail('call', err);
    this.rejectWaiting(err);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.fetches.abort(new KowalskiError('KW_ERR_PLUGIN_STOPPED', `plugin ${this.o.name} was stopped`));
    const child = this.child;
    if (child === undefined) return;
    await child.kill();
  }
}

/** Start a plugin's process now (its start failing is reported through `onFailure('start', …)`, and started again at the next call). */
export function startPluginProcess(o: PluginProcessOptions): PluginProcess {
  const runner = new Runner(o);
  try {
    runner.ensureChild();
  } catch {
    // reported through onFailure
  }
  return runner;
}
