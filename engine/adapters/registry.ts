/**
 * The adapters' registry: one status per configured `[adapters.<name>]`, the start of each
 * switched-on adapter (never blocking the engine: a start that throws or hangs past a bound
 * makes it `error`, never `running`), the operator's enable/disable at run time (kept in
 * `adapter_switches`, over config.toml's `enabled`, with who and when), and stop within a
 * bound. The records of inbound messages are inbound.ts's.
 */
import { KowalskiError, messageOf } from '../../core/index.js';
import type { Clock } from '../base/clock.js';
import type { AdapterQueries } from '../store/sql/adapters.js';
import type { Timers } from '../base/timers.js';
import { scrubSecrets } from '../secrets/secret-list.js';
import { adapterConfigError, secretSettingValues, settingAt, shownSettings } from './settings.js';
import type { AdapterConfig } from './settings.js';
import type { AdapterDefinition, AdapterHost, AdapterInstance, AdapterStatus, AdapterType, OutboundMessage, OutboundReceipt } from './types.js';

export interface RegistryDeps {
  queries: AdapterQueries;
  clock: Clock;
  timers: Timers;
  env: NodeJS.ProcessEnv;
  definitions: readonly AdapterDefinition<unknown>[];
  /** config.toml's `[adapters.<name>]` sections, as now. */
  configs(): readonly AdapterConfig[];
  /** The same, read from the file at this moment (a hand edit included): for `currentSettings()`. */
  currentConfigs(): readonly AdapterConfig[];
  /** Whether the team has this agent. */
  agentExists(name: string): boolean;
  /** The host an adapter is given (accept, activity, failed, the clock and timers). */
  hostFor(name: string): AdapterHost;
  /** An adapter started or stopped (its records go on; its tools changed). */
  onStarted(name: string, instance: AdapterInstance): void;
  onStopped(name: string, instance: AdapterInstance): void;
  /** A status changed (the app refreshes). */
  onChange(): void;
  /** Longest wait for an adapter's start, and for its stop, ms (default 10 000 and 5 000). */
  startTimeoutMs?: number;
  stopTimeoutMs?: number;
}

interface Entry {
  config: AdapterConfig;
  definition: AdapterDefinition<unknown> | undefined;
  status: AdapterStatus;
  instance?: AdapterInstance;
  settings?: unknown;
  /** The start or stop under way: the next switch waits for it. */
  busy: Promise<void>;
}

/** A running adapter, as a route or the host needs it. */
export interface RunningAdapter<S = unknown> {
  name: string;
  type: AdapterType;
  agent: string | null;
  settings: S;
  instance: AdapterInstance;
}


export class AdapterRegistry {
  private readonly entries = new Map<string, Entry>();
  private closed = false;
  /** Set by `startAll` (the server): until then a switch is only recorded (an embedded CLI runs no adapter). */
  private serving = false;

  constructor(private readonly deps: RegistryDeps) {
    for (const config of deps.configs()) {
      const definition = deps.definitions.find((d) => d.type === config.type);
      const switched = deps.queries.lastSwitch(config.name);
      this.entries.set(config.name, {
        config, definition, busy: Promise.resolve(),
        status: {
          name: config.name, type: config.type, enabled: switched === undefined ? config.enabled : switched.enabled === 1, state: 'stopped',
          lastError: null, lastErrorAt: null, lastActivityAt: deps.queries.lastActivity(config.name), errorCount: 0, agent: config.agent,
          settings: shownSettings(config.settings, definition?.secretKeys ?? []),
        },
      });
    }
  }

  list(): AdapterStatus[] {
    return [...this.entries.values()].map((e) => {
      this.switched(e);
      return { ...e.status };
    });
  }

  /** KW_ERR_ADAPTER_NOT_FOUND for a name config.toml does not configure. */
  status(name: string): AdapterStatus {
    const e = this.entry(name);
    this.switched(e);
    return { ...e.status };
  }

  /** Whether adapter `name` is switched on, by the newest switch the store holds (another node's, sharing it, included); a change is applied. */
  isOn(name: string): boolean {
    const e = this.entries.get(name);
    return e !== undefined && this.switched(e);
  }

  /** The adapter while it runs (switched off, it is being stopped: not any more). */
  running(name: string): RunningAdapter | undefined {
    const e = this.entries.get(name);
    if (e?.instance === undefined || e.status.state !== 'running' || !e.status.enabled) return undefined;
    return { name, type: e.config.type, agent: e.config.agent, settings: e.settings, instance: e.instance };
  }

  /**
   * Adapter `name`'s settings as the config.toml file holds them at this moment, read by its
   * definition: what its host's `currentSettings()` answers. KW_ERR_ADAPTER_CONFIG when the
   * section is gone, changed type, or became bad; KW_ERR_CONFIG_INVALID when the file is.
   */
  currentSettings(name: string): unknown {
    const e = this.entry(name);
    const config = this.deps.currentConfigs().find((c) => c.name === name);
    if (config === undefined || config.type !== e.config.type || e.definition === undefined) {
      throw adapterConfigError(name, '(section)', `is no longer a ${e.config.type} adapter in config.toml`);
    }
    return e.definition.settings(config.settings, this.deps.env, name);
  }

  /** Every running adapter (their tools). */
  allRunning(): RunningAdapter[] {
    return [...this.entries.keys()].map((n) => this.running(n)).filter((r): r is RunningAdapter => r !== undefined);
  }

  /** The adapter `name` of `type` for a route: KW_ERR_ADAPTER_NOT_FOUND, KW_ERR_ADAPTER_DISABLED when it does not run. */
  target(type: AdapterType, name: string): RunningAdapter {
    const e = this.entries.get(name);
    if (e === undefined || e.config.type !== type) throw new KowalskiError('KW_ERR_ADAPTER_NOT_FOUND', `no ${type} adapter "${name}" is configured ([adapters.${name}] in config.toml)`);
    const running = this.switched(e) ? this.running(name) : undefined;
    if (running === undefined) {
      throw new KowalskiError('KW_ERR_ADAPTER_DISABLED', `the adapter "${name}" is ${e.status.enabled ? `not running (${e.status.state}${e.status.lastError === null ? '' : `: ${e.status.lastError}`})` : 'switched off'}: turn it on in the app or with kowalski adapters enable ${name}`);
    }
    return running;
  }

  /**
   * Deliver a horde's `send` step's message through adapter `name`, with the settings
   * config.toml holds now; it need not be running (the CLI's embedded engine starts none), but
   * it must be switched on. KW_ERR_ADAPTER_NOT_FOUND, KW_ERR_ADAPTER_NO_OUTBOUND (its type
   * sends nothing), KW_ERR_ADAPTER_DISABLED, KW_ERR_ADAPTER_CONFIG; then what its `send` throws.
   */
  async send(name: string, message: OutboundMessage): Promise<OutboundReceipt> {
    const e = this.entry(name);
    const send = e.definition?.send;
    if (send === undefined) {
      const senders = [...this.entries.values()].filter((x) => x.definition?.send !== undefined).map((x) => x.config.name);
      throw new KowalskiError('KW_ERR_ADAPTER_NO_OUTBOUND', `the adapter "${name}" is of type ${e.config.type}, which sends nothing of its own (slack and email adapters do)${senders.length === 0 ? '' : `; configured: ${senders.join(', ')}`}`);
    }
    if (!this.switched(e)) throw new KowalskiError('KW_ERR_ADAPTER_DISABLED', `the adapter "${name}" is switched off: turn it on in the app or with kowalski adapters enable ${name}`);
    const settings = this.currentSettings(name);
    try {
      const receipt = await send(settings, message, this.deps.hostFor(name));
      this.activity(name);
      return receipt;
    } catch (err) {
      this.failed(name, err);
      const redacted = this.redact(e, messageOf(err));
      throw err instanceof KowalskiError ? new KowalskiError(err.code, redacted, { cause: err }) : new Error(redacted, { cause: err });
    }
  }

  /** Start every switched-on adapter; resolves when each has started or failed (bounded). */
  async startAll(): Promise<void> {
    this.serving = true;
    await Promise.all([...this.entries.values()].filter((e) => e.status.enabled).map((e) => this.switchTo(e, true)));
  }

  async setEnabled(name: string, enabled: boolean, by: string): Promise<AdapterStatus> {
    const e = this.entry(name);
    this.deps.queries.addSwitch(name, enabled, by, this.deps.clock.now());
    e.status.enabled = enabled;
    this.deps.onChange();
    await this.switchTo(e, enabled);
    return { ...e.status };
  }

  /** Record an error without stopping: counted, shown as the last error. */
  failed(name: string, err: unknown): void {
    const e = this.entries.get(name);
    if (e === undefined) return;
    e.status.errorCount += 1;
    e.status.lastError = this.redact(e, messageOf(err));
    e.status.lastErrorAt = this.deps.clock.now();
    this.deps.onChange();
  }

  activity(name: string): void {
    const e = this.entries.get(name);
    if (e === undefined) return;
    e.status.lastActivityAt = this.deps.clock.now();
    this.deps.onChange();
  }

  /** Stop every adapter, each within the bound. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.entries.values()].map((e) => this.switchTo(e, false)));
  }

  private entry(name: string): Entry {
    const e = this.entries.get(name);
    if (e === undefined) {
      const known = [...this.entries.keys()];
      throw new KowalskiError('KW_ERR_ADAPTER_NOT_FOUND', `no adapter "${name}" is configured${known.length === 0 ? ' (config.toml has no [adapters.<name>] section)' : `; configured: ${known.join(', ')}`}`);
    }
    return e;
  }

  /**
   * Whether the adapter is switched on, by the newest switch the store holds: nodes sharing a
   * Postgres store share the switches, so another node's may be newer than this one's. A
   * change found here is applied as this node's own would be (the adapter started or stopped).
   */
  private switched(e: Entry): boolean {
    const last = this.deps.queries.lastSwitch(e.config.name);
    if (last !== undefined && (last.enabled === 1) !== e.status.enabled) {
      e.status.enabled = last.enabled === 1;
      this.deps.onChange();
      void this.switchTo(e, e.status.enabled);
    }
    return e.status.enabled;
  }

  /** One start or stop at a time per adapter. */
  private switchTo(e: Entry, on: boolean): Promise<void> {
    e.busy = e.busy.then(() => (on ? this.start(e) : this.stop(e)));
    return e.busy;
  }

  private async start(e: Entry): Promise<void> {
    if (e.instance !== undefined || this.closed || !this.serving || !e.status.enabled) return;
    const { config } = e;
    let instance: AdapterInstance;
    try {
      if (e.definition === undefined) throw new KowalskiError('KW_ERR_ADAPTER_CONFIG', `[adapters.${config.name}] type: this build has no ${config.type} adapter`);
      e.settings = e.definition.settings(config.settings, this.deps.env, config.name);
      if (config.agent !== null && !this.deps.agentExists(config.agent)) throw adapterConfigError(config.name, 'agent', `the team has no agent "${config.agent}" (kowalski agents lists them)`);
      instance = await this.bounded(e.definition.start(e.settings, this.deps.hostFor(config.name)), this.deps.startTimeoutMs ?? 10_000, 'start');
    } catch (err) {
      e.status.state = 'error';
      const error = err instanceof KowalskiError && err.code === 'KW_ERR_ADAPTER_CONFIG' ? err
        : new KowalskiError('KW_ERR_ADAPTER_START', `adapter ${config.name} did not start: ${messageOf(err)}`, { cause: err });
      this.failed(config.name, error);
      return;
    }
    if (this.closed || !e.status.enabled) {
      await this.bounded(instance.stop(), this.deps.stopTimeoutMs ?? 5000, 'stop').catch(() => undefined);
      return;
    }
    e.instance = instance;
    e.status.state = 'running';
    e.status.lastError = null;
    e.status.lastErrorAt = null;
    this.deps.onChange();
    this.deps.onStarted(config.name, instance);
  }

  private async stop(e: Entry): Promise<void> {
    const instance = e.instance;
    if (instance === undefined) {
      if (e.status.state === 'error' && !e.status.enabled) {
        e.status.state = 'stopped';
        this.deps.onChange();
      }
      return;
    }
    e.instance = undefined;
    e.status.state = 'stopped';
    try {
      await this.bounded(instance.stop(), this.deps.stopTimeoutMs ?? 5000, 'stop');
    } catch (err) {
      this.failed(e.config.name, err);
    }
    this.deps.onChange();
    this.deps.onStopped(e.config.name, instance);
  }

  /** `p`, or KW_ERR_ADAPTER_START once `ms` have passed (a start that resolves later is stopped at once). */
  private bounded<T extends AdapterInstance | void>(p: Promise<T>, ms: number, what: 'start' | 'stop'): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let late = false;
      const cancel = this.deps.timers.at(this.deps.clock.now() + ms, () => {
        late = true;
        reject(new KowalskiError('KW_ERR_ADAPTER_START', `it did not ${what} within ${ms / 1000} s`));
      });
      p.then((v) => {
        cancel();
        if (!late) resolve(v);
        else if (what === 'start') (v as AdapterInstance).stop().catch(() => undefined);
      }, (err: unknown) => {
        cancel();
        reject(err instanceof Error ? err : new Error(String(err)));
      });
    });
  }

  /** A message as the status shows it: a secret setting's value (from the file or the environment) never appears in it. */
  private redact(e: Entry, message: string): string {
    const keys = e.definition?.secretKeys ?? [];
    const parsed = keys.map((key) => settingAt(e.settings, key)).filter((v): v is string => typeof v === 'string');
    return scrubSecrets(message, [...parsed, ...secretSettingValues(e.config.settings, keys, this.deps.env)]);
  }
}
