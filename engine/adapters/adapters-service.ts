/**
 * `engine.adapters`: the registry of configured adapters (registry.ts) joined to the durable
 * records of their inbound messages (inbound.ts). The server calls `start()`; a one-shot CLI
 * never does (it lists and switches only). Routes reach a running adapter with `target()`.
 */
import type { Tool } from '../../agents/index.js';
import { Inbound } from './inbound.js';
import type { InboundDeps } from './inbound.js';
import { AdapterRegistry } from './registry.js';
import type { RegistryDeps, RunningAdapter } from './registry.js';
import type { Accepted, AdapterHost, AdapterStatus, AdapterType, InboundMessage, InboundRecord, OutboundMessage, OutboundReceipt, PluginAdapterCalls } from './types.js';

export interface Adapters {
  /** Every configured adapter's status (secrets masked). */
  list(): AdapterStatus[];
  /** KW_ERR_ADAPTER_NOT_FOUND. */
  status(name: string): AdapterStatus;
  /** Switch on (persisted, audited with `by`) and start it; resolves once it runs or failed (`error`). */
  enable(name: string, by: string): Promise<AdapterStatus>;
  /** Switch off (persisted, audited) and stop it; its unfinished records wait for its next start. */
  disable(name: string, by: string): Promise<AdapterStatus>;
  /** The running adapter `name` of `type`, for its route: KW_ERR_ADAPTER_NOT_FOUND, KW_ERR_ADAPTER_DISABLED. */
  target<S = unknown>(type: AdapterType, name: string): RunningAdapter<S>;
  /** Deliver a horde's `send` step's message through adapter `name` (registry.ts `send`: switched on, of a type that sends). */
  send(name: string, message: OutboundMessage): Promise<OutboundReceipt>;
  /** Record an inbound message for adapter `name` (what its host's `accept` does). */
  accept(name: string, message: InboundMessage): Accepted;
  record(id: number): InboundRecord | undefined;
  /** The tools of the running adapters (the calendar's), offered to agents. */
  tools(): Tool[];
  /** Start every switched-on adapter, each going on with its unfinished records; resolves once each has started or failed. The server calls it. */
  start(): Promise<void>;
  /** On a shared store, at each beat of the cluster: the running adapters go on with the conversations no node answers (their node died). */
  pickUpOpen(): void;
  close(): Promise<void>;
}

/** What the registry and the inbound records are given, from the engine; the rest they get from here. */
export interface AdaptersDeps
  extends Pick<RegistryDeps, 'clock' | 'timers' | 'env' | 'definitions' | 'configs' | 'currentConfigs' | 'agentExists' | 'onChange' | 'startTimeoutMs' | 'stopTimeoutMs'>,
    Pick<InboundDeps, 'queries' | 'chat' | 'crash' | 'replyBackoffMs'> {
  /** The running adapters' tools changed (the tool registry is rebuilt). */
  onToolsChanged(): void;
  /** A plugin's adapter, for `type = "plugin"` adapters (the engine's plugins). */
  pluginAdapter?(plugin: string, adapter: string): PluginAdapterCalls;
}

export function createAdapters(deps: AdaptersDeps): Adapters {
  const hostFor = (name: string): AdapterHost => ({
    accept: (message) => {
      // Switched off by another node sharing the store: stopped here too, and the message waits for its next start.
      registry.isOn(name);
      return inbound.accept(name, message);
    },
    activity: () => registry.activity(name),
    failed: (err) => registry.failed(name, err),
    now: () => deps.clock.now(),
    setTimeout(fn, ms) {
      const cancel = deps.timers.at(deps.clock.now() + ms, fn);
      return { cancel };
    },
    currentSettings: () => registry.currentSettings(name),
    ...(deps.pluginAdapter === undefined ? {} : { pluginAdapter: deps.pluginAdapter }),
  });
  const { queries, chat, crash, replyBackoffMs, onToolsChanged, pluginAdapter: _pluginAdapter, ...registryDeps } = deps;
  const registry: AdapterRegistry = new AdapterRegistry({
    ...registryDeps, queries, hostFor,
    onStarted(name, instance) {
      inbound.resume(name);
      if (instance.tools !== undefined) onToolsChanged();
    },
    onStopped(_name, instance) {
      if (instance.tools !== undefined) onToolsChanged();
    },
  });
  const inbound: Inbound = new Inbound({
    queries, chat, clock: deps.clock, timers: deps.timers, crash,
    target: (name) => registry.running(name),
    activity: (name) => registry.activity(name),
    failed: (name, err) => registry.failed(name, err),
    ...(replyBackoffMs === undefined ? {} : { replyBackoffMs }),
  });
  let closing: Promise<void> | undefined;
  return {
    list: () => registry.list(),
    status: (name) => registry.status(name),
    enable: (name, by) => registry.setEnabled(name, true, by),
    disable: (name, by) => registry.setEnabled(name, false, by),
    target: <S>(type: AdapterType, name: string) => registry.target(type, name) as RunningAdapter<S>,
    send: (name, message) => registry.send(name, message),
    accept: (name, message) => inbound.accept(name, message),
    record: (id) => inbound.record(id),
    tools: () => registry.allRunning().flatMap((r) => [...(r.instance.tools?.() ?? [])]),
    start: () => registry.startAll(),
    pickUpOpen() {
      for (const { name } of registry.allRunning()) inbound.pickUp(name);
    },
    close() {
      closing ??= (async () => {
        inbound.close();
        await registry.close();
      })();
      return closing;
    },
  };
}
