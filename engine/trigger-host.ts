/**
 * The engine's triggers: the TriggerService fed with the catalog's hordes, and — once
 * started by the server — a watch on `<data dir>/hordes/` so that adding, editing or
 * removing a horde folder updates the catalog's triggers while the server runs (hot
 * reload). A horde that becomes invalid keeps its last good version's triggers, and its
 * error is shown; runs in flight keep the horde they started with (their snapshot).
 */
import fs from 'node:fs';
import type { FSWatcher } from 'chokidar';
import type { HordeDef } from '../core/index.js';
import type { Clock } from './base/clock.js';
import type { EngineConfig } from './config.js';
import type { DataPaths } from './base/data-dir.js';
import type { Catalog } from './horde/index.js';
import type { Observers } from './observers.js';
import type { RunQueries } from './store/queries.js';
import type { TriggerStore } from './store/triggers.js';
import { FINAL_RUN_STATES } from '../actors/index.js';
import type { FireResult, TriggerService, TriggerServiceDeps, WebhookTarget } from './triggers/service.js';
import type { Timers } from './base/timers.js';
import type { TriggerView } from './triggers/view.js';
import { messageOf } from '../core/index.js';

export interface EngineTriggers {
  /** Every trigger of every horde the catalog holds (the last good version of one that became invalid). */
  list(): Promise<TriggerView[]>;
  setEnabled(hordeId: string, name: string, enabled: boolean): Promise<TriggerView>;
  /** Where a webhook goes and its secret (undefined: unsigned); throws NOT_FOUND / DISABLED / SECRET before anything starts. */
  webhookTarget(hordeId: string, name: string): Promise<WebhookTarget>;
  /** A delivery to that target, its signature checked: its run, started and committed (or the run its delivery id already started). */
  webhook(target: WebhookTarget, delivery: { id: string | undefined; payload: string; contentType: string }): Promise<FireResult>;
  /** Begin firing (cron, watch) and hot-reload `<data>/hordes/`: the server does this, a one-shot CLI does not. */
  start(): Promise<void>;
  /** Re-read the catalog now (what the hot reload does on a change). */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

export interface TriggerHostDeps {
  store: TriggerStore;
  queries: RunQueries;
  observers: Observers;
  clock: Clock;
  timers: Timers;
  paths: DataPaths;
  config(): EngineConfig;
  catalog(): Promise<Catalog>;
  startRun: TriggerServiceDeps['startRun'];
  /** Quiet time after the last change under hordes/ before the catalog is re-read, ms (default 300). */
  reloadDebounceMs?: number;
}

function configSecrets(config: EngineConfig): Record<string, string> {
  const table = (config.raw as Record<string, unknown>).webhook_secrets;
  if (table === null || typeof table !== 'object') return {};
  return Object.fromEntries(Object.entries(table as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

export function createTriggerHost(deps: TriggerHostDeps): EngineTriggers {
  // The trigger machinery (cron-parser with luxon, chokidar: ~45 ms and ~10 MB) is loaded at
  // first use, not at every engine start: a one-shot CLI command never fires a trigger.
  let service: TriggerService | undefined;
  let loading: Promise<TriggerService> | undefined;
  const load = (): Promise<TriggerService> => {
    loading ??= import('./triggers/service.js').then(({ TriggerService: Service }) => {
      service = new Service({
        store: deps.store,
        clock: deps.clock,
        timers: deps.timers,
        startRun: deps.startRun,
        unfinishedTriggerRuns: () => deps.queries.unfinishedTriggerRuns(),
        runOf: (runId) => deps.queries.getRun(runId),
        configSecrets: () => configSecrets(deps.config()),
        env: process.env,
        ignorePaths: [deps.paths.dataDir],
        warn: (message) => deps.observers.emit('engine:warning', { message }),
      });
      return service;
    });
    return loading;
  };
  /** The last good version of each horde id. */
  const good = new Map<string, HordeDef>();
  let loaded = false;
  let watcher: FSWatcher | undefined;
  /** Cancels the pending hot reload (a timer on the engine's clock). */
  let cancelReload: (() => void) | undefined;
  let refreshing: Promise<void> = Promise.resolve();
  const offRunEvents = deps.observers.on('run:event', ({ stored, state }) => {
    if (FINAL_RUN_STATES.has(state) && stored.event.type !== 'run.created') service?.runEnded(stored.runId);
  });

  const reload = async (): Promise<void> => {
    const [catalog, triggers] = await Promise.all([deps.catalog(), load()]);
    const present = new Set(catalog.entries.map((e) => e.id));
    for (const id of good.keys()) if (!present.has(id)) good.delete(id);
    for (const e of catalog.entries) if (e.result.ok) good.set(e.id, e.result.horde);
    triggers.setHordes([...good.values()]);
    loaded = true;
  };
  const refresh = (): Promise<void> => {
    refreshing = refreshing.then(reload, reload);
    return refreshing;
  };
  /** The first load, shared by every caller that comes before it is done (a burst of deliveries reads the catalog once). */
  let firstLoad: Promise<void> | undefined;
  /** The service, with the catalog's hordes. */
  const ready = async (): Promise<TriggerService> => {
    if (!loaded) {
      firstLoad ??= refresh().finally(() => {
        firstLoad = undefined;
      });
      await firstLoad;
    }
    return load();
  };

  return {
    list: async () => (await ready()).list(),
    setEnabled: async (hordeId, name, enabled) => (await ready()).setEnabled(hordeId, name, enabled),
    webhookTarget: async (hordeId, name) => (await ready()).webhookTarget(hordeId, name),
    webhook: async (target, delivery) => (await ready()).webhook(target, delivery),
    async start() {
      await refresh();
      await (await load()).start();
      fs.mkdirSync(deps.paths.hordes, { recursive: true });
      const debounce = deps.reloadDebounceMs ?? 300;
      const { watch } = await import('chokidar');
      watcher = watch(deps.paths.hordes, { ignoreInitial: true, depth: 4, ignored: (p) => /(^|[/\\])\.(?!kowalski-import\.json$)[^/\\]*$/.test(p) && !p.endsWith(deps.paths.hordes) });
      watcher.on('all', () => {
        cancelReload?.();
        cancelReload = deps.timers.at(deps.clock.now() + debounce, () => {
          cancelReload = undefined;
          refresh().then(() => deps.observers.emit('catalog:changed', {}), (err: unknown) => deps.observers.emit('engine:warning', { message: `reloading hordes: ${messageOf(err)}` }));
        });
      });
      await new Promise<void>((resolve) => watcher!.once('ready', () => resolve()));
    },
    refresh,
    async close() {
      offRunEvents();
      cancelReload?.();
      await watcher?.close();
      await service?.close();
    },
  };
}
