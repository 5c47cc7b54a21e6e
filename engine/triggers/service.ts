/**
 * The triggers of every valid horde: their switches (persisted; built-in and imported
 * hordes' triggers arrive off), and — once `start()` is called, which only the server
 * does — their firing: cron timers with catch-up after an outage, file watchers, and
 * webhook deliveries handed over by the API. Every firing goes through `fire()`: one key
 * starts at most one run (the firing record is committed in the run's own transaction),
 * and the trigger's overlap policy decides what happens while a run of it is active:
 * decided from the store, one firing at a time per trigger across every node of a shared
 * store (the trigger's lock is held from the decision to the commit of the run it allows).
 */
import fs from 'node:fs';
import path from 'node:path';
import { KowalskiError, messageOf } from '../../core/index.js';
import type { HordeDef, TriggerDef } from '../../core/index.js';
import { expandHome } from '../../agents/index.js';
import type { Clock } from '../base/clock.js';
import { IMPORT_MARKER } from '../horde/index.js';
import type { TriggerStore } from '../store/triggers.js';
import { catchUpPlan, nextFireAfter } from './cron.js';
import { decideOverlap, triggerKey } from './overlap.js';
import type { TriggerKey } from './overlap.js';
import type { Timers } from '../base/timers.js';
import type { TriggerView } from './view.js';
import { startWatch } from './watch.js';
import type { Watcher } from './watch.js';

export interface TriggerServiceDeps {
  store: TriggerStore;
  clock: Clock;
  timers: Timers;
  /** The engine's startRun: resolves once `run.created` (with `alsoWrite`'s rows) is committed. */
  startRun(horde: HordeDef, input: Record<string, string>, options: { provenance: string; triggerInput: Record<string, string>; alsoWrite: (runId: string) => void }): Promise<string>;
  /** Runs started by a trigger that have not finished (on a shared store, every node's): how many each trigger has, for the views. */
  unfinishedTriggerRuns(): Array<{ runId: string; hordeId: string; provenance: string }>;
  /** A run's horde and provenance (`trigger:<name>` for a trigger's), from the store. */
  runOf(runId: string): { hordeId: string; provenance: string } | undefined;
  /** Webhook secrets from config.toml (`[webhook_secrets]`, keys `<horde>/<trigger>`). */
  configSecrets(): Record<string, string>;
  env: NodeJS.ProcessEnv;
  /** Never watched (the data directory: the engine's own output must not fire a trigger). */
  ignorePaths: string[];
  warn(message: string): void;
}

/** A webhook trigger found, switched on, with its secret (undefined: deliveries are not signed). */
export interface WebhookTarget {
  horde: HordeDef;
  def: TriggerDef;
  secret: string | undefined;
}

/** What a firing came to. */
export type FireResult =
  | { outcome: 'started'; runId: string }
  | { outcome: 'duplicate'; runId: string | null; was: string }
  | { outcome: 'skipped' | 'queued'; detail: string };

interface Firing {
  key: string;
  input: Record<string, string>;
  detail?: string;
}

interface Armed {
  /** What the trigger looked like when armed (a hot reload that changes it re-arms). */
  signature: string;
  cancelTimer?: () => void;
  watcher?: Watcher;
  nextFireAt: number | null;
  error?: string;
}

/** At most this many missed instants are recorded one by one after an outage (the rest are counted in one record). */
const MISSED_RECORDS = 100;

/** How long a firing waits for another node that holds its key or its trigger, and how often it tries again (ms). */
const KEY_WAIT_MS = 10_000;
const KEY_RETRY_MS = 25;

const cronKey = (at: number): string => `cron:${new Date(at).toISOString()}`;

export class TriggerService {
  private hordes = new Map<string, HordeDef>();
  /** The decision of each trigger's overlap in this process: one at a time (the tail of a chain of promises), as the store's lock makes it across nodes. */
  private readonly deciding = new Map<TriggerKey, Promise<unknown>>();
  private readonly armed = new Map<TriggerKey, Armed>();
  /** Firings being started, by `<trigger>\n<key>`: a second delivery of the same key waits for the first. */
  private readonly inFlight = new Map<string, Promise<FireResult>>();
  private running = false;
  private closed = false;

  constructor(private readonly deps: TriggerServiceDeps) {}

  /** The valid hordes of the catalog (again after a hot reload): triggers are armed and disarmed to match. */
  setHordes(hordes: readonly HordeDef[]): void {
    this.hordes = new Map(hordes.map((h) => [h.id, h]));
    if (this.running) this.rearm();
  }

  /** Begin firing: what was active and waiting before a restart, cron catch-up, timers and watchers. */
  async start(): Promise<void> {
    if (this.running || this.closed) return;
    this.running = true;
    this.rearm();
    for (const tk of this.armed.keys()) this.startWaiting(tk);
    await Promise.all([...this.armed.values()].flatMap((a) => (a.watcher === undefined ? [] : [a.watcher.ready])));
  }

  list(): TriggerView[] {
    const active = new Map<TriggerKey, number>();
    for (const r of this.deps.unfinishedTriggerRuns()) {
      const tk = triggerKey(r.hordeId, r.provenance.slice('trigger:'.length));
      active.set(tk, (active.get(tk) ?? 0) + 1);
    }
    const out: TriggerView[] = [];
    for (const horde of this.hordes.values()) for (const def of horde.triggers) out.push(this.view(horde, def, active.get(triggerKey(horde.id, def.name)) ?? 0));
    return out;
  }

  /** Switch a trigger on or off (persisted); the view after the change. */
  setEnabled(hordeId: string, name: string, enabled: boolean): TriggerView {
    const { horde, def } = this.find(hordeId, name);
    const now = this.deps.clock.now();
    this.deps.store.setEnabled(hordeId, name, enabled, now);
    if (def.kind === 'cron' && enabled) {
      // Switched on now: what was scheduled while it was off is not caught up.
      this.deps.store.setSchedule(hordeId, name, true, now, safeNext(def, now), now);
    }
    if (!enabled) {
      const waiting = this.deps.store.queuedFiring(hordeId, name);
      if (waiting !== undefined) this.deps.store.unqueue(hordeId, name, waiting.key, 'the trigger was switched off before it could start');
    }
    if (this.running) this.rearm();
    return this.view(horde, def, this.deps.store.activeRuns(hordeId, name).length);
  }

  /**
   * Where a webhook delivery goes, before its body is looked at: the horde's webhook
   * trigger, switched on, with its secret (undefined: deliveries are not signed).
   */
  webhookTarget(hordeId: string, name: string): WebhookTarget {
    const { horde, def } = this.find(hordeId, name);
    if (def.kind !== 'webhook') throw new KowalskiError('KW_ERR_TRIGGER_NOT_FOUND', `trigger ${hordeId}/${name} is a ${def.kind} trigger, not a webhook`);
    if (!this.enabledOf(horde, def)) {
      throw new KowalskiError('KW_ERR_TRIGGER_DISABLED', `the webhook ${hordeId}/${name} is switched off: turn it on in the app or with \`kowalski triggers enable ${hordeId}/${name}\``);
    }
    const secret = this.secretOf(horde, def);
    if (def.secretEnv !== undefined && secret === undefined) {
      throw new KowalskiError('KW_ERR_WEBHOOK_SECRET', `the webhook ${hordeId}/${name} expects a signature with the secret in $${def.secretEnv}, which is not set where kowalski runs`);
    }
    return { horde, def, secret };
  }

  /** A delivery to a target `webhookTarget` gave, its signature checked: start its run (answered after the commit), or the run its delivery id already started. */
  webhook({ horde, def }: WebhookTarget, delivery: { id: string | undefined; payload: string; contentType: string }): Promise<FireResult> {
    const now = this.deps.clock.now();
    const input: Record<string, string> = { trigger_payload: delivery.payload, trigger_content_type: delivery.contentType, trigger_time: new Date(now).toISOString() };
    if (delivery.id !== undefined) input.trigger_delivery = delivery.id;
    return this.fire(horde, def, { key: `webhook:${delivery.id ?? `${now}:${Math.random().toString(36).slice(2)}`}`, input });
  }

  /**
   * A run ended (on any node: another node's runs are heard through the log): a `queue_one`
   * firing waiting for it may start. Every node hears it and tries; the trigger's lock lets
   * one of them start the waiting firing, and the others then find it started.
   */
  runEnded(runId: string): void {
    if (!this.running || ![...this.hordes.values()].some((h) => h.triggers.length > 0)) return;
    const run = this.deps.runOf(runId);
    if (run === undefined || !run.provenance.startsWith('trigger:')) return;
    this.startWaiting(triggerKey(run.hordeId, run.provenance.slice('trigger:'.length)));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.running = false;
    const all = [...this.armed.values()];
    this.armed.clear();
    for (const a of all) a.cancelTimer?.();
    await Promise.all(all.flatMap((a) => (a.watcher === undefined ? [] : [a.watcher.close()])));
  }

  // ---- firing ----

  /** Start a run for this firing unless its key already started one or the overlap policy holds it back. */
  fire(horde: HordeDef, def: TriggerDef, firing: Firing): Promise<FireResult> {
    const tk = triggerKey(horde.id, def.name);
    const flightKey = `${tk}\n${firing.key}`;
    const pending = this.inFlight.get(flightKey);
    if (pending !== undefined) return pending;
    const done = this.fireOnce(horde, def, firing).finally(() => this.inFlight.delete(flightKey));
    this.inFlight.set(flightKey, done);
    return done;
  }

  private async fireOnce(horde: HordeDef, def: TriggerDef, firing: Firing): Promise<FireResult> {
    const { store } = this.deps;
    // Across the nodes of a shared store: one at a time per key, the others then find its firing.
    await this.lockKey(horde, def, firing.key);
    try {
      return await this.fireLocked(horde, def, firing);
    } finally {
      store.unlock(horde.id, def.name, firing.key);
    }
  }

  /** Wait (bounded) while another node holds the key; KW_ERR_FIRING_ELSEWHERE after KEY_WAIT_MS. */
  private lockKey(horde: HordeDef, def: TriggerDef, key: string): Promise<void> {
    return this.waitFor(() => this.deps.store.tryLock(horde.id, def.name, key), () => new KowalskiError('KW_ERR_FIRING_ELSEWHERE',
      `${horde.id}/${def.name}: another node has been starting the run of firing ${key} for ${KEY_WAIT_MS / 1000} s; try again later`));
  }

  /** Until `taken()` is true, trying again every KEY_RETRY_MS; `refusal()` is thrown after KEY_WAIT_MS. */
  private async waitFor(taken: () => boolean, refusal: () => KowalskiError): Promise<void> {
    const { clock, timers } = this.deps;
    const until = clock.now() + KEY_WAIT_MS;
    while (!taken()) {
      if (clock.now() >= until) throw refusal();
      await new Promise<void>((resolve) => timers.at(clock.now() + KEY_RETRY_MS, resolve));
    }
  }

  private async fireLocked(horde: HordeDef, def: TriggerDef, firing: Firing): Promise<FireResult> {
    const { store, clock } = this.deps;
    const seen = store.firing(horde.id, def.name, firing.key);
    if (seen !== undefined) return { outcome: 'duplicate', runId: seen.runId, was: seen.outcome };
    const input = { ...firing.input, trigger: def.name };
    if (def.overlap === 'parallel') return this.startRun(horde, def, firing.key, input, firing.detail);
    // The runs and the waiting firing are read, and the run this decision allows is committed, under the trigger's lock.
    return this.decided(horde.id, def.name, async (): Promise<FireResult> => {
      const active = store.activeRuns(horde.id, def.name);
      const decision = decideOverlap(def.overlap, active, active.length > 0 && store.queuedFiring(horde.id, def.name) !== undefined);
      if (!decision.start) {
        store.record({ hordeId: horde.id, name: def.name, key: firing.key, at: clock.now(), outcome: decision.outcome, detail: decision.detail, ...(decision.outcome === 'queued' ? { input } : {}) });
        return { outcome: decision.outcome, detail: decision.detail };
      }
      return this.startRun(horde, def, firing.key, input, firing.detail);
    });
  }

  /**
   * `fn` with the trigger held: after the decisions of this process before it (in turn),
   * and — on a shared store — while no other node decides for the trigger (bounded:
   * KW_ERR_TRIGGER_ELSEWHERE after KEY_WAIT_MS).
   */
  private decided<T>(hordeId: string, name: string, fn: () => Promise<T>): Promise<T> {
    const tk = triggerKey(hordeId, name);
    const before = this.deciding.get(tk) ?? Promise.resolve();
    const mine = before.then(async () => {
      await this.waitFor(() => this.deps.store.tryLockTrigger(hordeId, name), () => new KowalskiError('KW_ERR_TRIGGER_ELSEWHERE',
        `${tk}: another node has been deciding a firing of this trigger for ${KEY_WAIT_MS / 1000} s; nothing was started; try again later`));
      try {
        return await fn();
      } finally {
        this.deps.store.unlockTrigger(hordeId, name);
      }
    });
    const tail = mine.catch(() => undefined);
    this.deciding.set(tk, tail);
    void tail.then(() => {
      if (this.deciding.get(tk) === tail) this.deciding.delete(tk);
    });
    return mine;
  }

  private async startRun(horde: HordeDef, def: TriggerDef, key: string, input: Record<string, string>, detail?: string): Promise<FireResult> {
    const { store, clock } = this.deps;
    const at = clock.now();
    const answers = { ...def.input };
    // A watched file fills the horde's one path/file input that the trigger leaves open.
    const open = horde.inputs.filter((f) => (f.type === 'path' || f.type === 'file') && answers[f.id] === undefined);
    if (input.trigger_path !== undefined && open.length === 1) answers[open[0]!.id] = input.trigger_path;
    try {
      const runId = await this.deps.startRun(horde, answers, {
        provenance: `trigger:${def.name}`,
        triggerInput: input,
        alsoWrite: store.startedWriter({ hordeId: horde.id, name: def.name, key, at, ...(detail === undefined ? {} : { detail }) }),
      });
      return { outcome: 'started', runId };
    } catch (err) {
      const message = messageOf(err);
      store.record({ hordeId: horde.id, name: def.name, key, at, outcome: 'failed', detail: message });
      throw err;
    }
  }

  /** The trigger's waiting firing, started once none of its runs is active (on any node); under the trigger's lock, so one node starts it. */
  private startWaiting(tk: TriggerKey): void {
    const [hordeId = '', name = ''] = tk.split('/');
    const { store } = this.deps;
    this.decided(hordeId, name, async () => {
      if (store.activeRuns(hordeId, name).length > 0) return;
      const waiting = store.queuedFiring(hordeId, name);
      if (waiting === undefined) return;
      const horde = this.hordes.get(hordeId);
      const def = horde?.triggers.find((t) => t.name === name);
      if (horde === undefined || def === undefined || !this.enabledOf(horde, def)) {
        store.unqueue(hordeId, name, waiting.key, 'the trigger is gone or switched off');
        return;
      }
      await this.startRun(horde, def, waiting.key, waiting.input, waiting.detail ?? undefined);
    }).catch((err: unknown) => {
      this.deps.warn(`trigger ${tk}: the waiting firing could not start: ${messageOf(err)}`);
    });
  }

  // ---- arming ----

  /** Timers and watchers for exactly the triggers that are switched on. */
  private rearm(): void {
    const wanted = new Map<TriggerKey, { horde: HordeDef; def: TriggerDef }>();
    for (const horde of this.hordes.values()) {
      for (const def of horde.triggers) if (def.kind !== 'webhook' && this.enabledOf(horde, def)) wanted.set(triggerKey(horde.id, def.name), { horde, def });
    }
    for (const [tk, a] of this.armed) {
      const w = wanted.get(tk);
      if (w === undefined || a.signature !== signatureOf(w.horde, w.def)) {
        a.cancelTimer?.();
        void a.watcher?.close();
        this.armed.delete(tk);
      }
    }
    for (const [tk, { horde, def }] of wanted) {
      if (this.armed.has(tk)) continue;
      const armed: Armed = { nextFireAt: null, signature: signatureOf(horde, def) };
      this.armed.set(tk, armed);
      try {
        if (def.kind === 'cron') this.armCron(horde, def, armed);
        else this.armWatch(horde, def, armed);
      } catch (err) {
        armed.error = messageOf(err);
        this.deps.warn(`trigger ${tk}: ${armed.error}`);
      }
    }
  }

  private armCron(horde: HordeDef, def: TriggerDef, armed: Armed): void {
    const { store, clock } = this.deps;
    const now = clock.now();
    const state = store.state(horde.id, def.name);
    const last = state?.lastScheduled ?? null;
    const plan = catchUpPlan({ schedule: def.schedule!, ...(def.timezone === undefined ? {} : { timezone: def.timezone }), catchUp: def.catchUp ?? 'once' }, last, now);
    const missed = plan.missed.slice(-MISSED_RECORDS).map((t) => ({ hordeId: horde.id, name: def.name, key: cronKey(t), at: now, outcome: 'missed' as const, detail: 'kowalski was not running' }));
    if (plan.missedCount > missed.length) {
      missed.unshift({ hordeId: horde.id, name: def.name, key: `cron:missed-before:${new Date(plan.missed[plan.missed.length - missed.length] ?? now).toISOString()}`, at: now, outcome: 'missed', detail: `${plan.missedCount - missed.length} more scheduled times were missed while kowalski was not running` });
    }
    store.recordAllNew(missed);
    const handled = Math.max(last ?? now, ...plan.fire, ...plan.missed);
    store.setSchedule(horde.id, def.name, this.enabledOf(horde, def), last === null ? now : handled, plan.next, now);
    armed.nextFireAt = plan.next;
    for (const t of plan.fire) {
      this.fire(horde, def, { key: cronKey(t), input: { trigger_time: new Date(t).toISOString() }, detail: 'caught up after kowalski was not running' })
        .catch((err: unknown) => this.deps.warn(`trigger ${horde.id}/${def.name}: ${messageOf(err)}`));
    }
    this.schedule(horde, def, armed, plan.next);
  }

  private schedule(horde: HordeDef, def: TriggerDef, armed: Armed, at: number): void {
    armed.nextFireAt = at;
    armed.cancelTimer = this.deps.timers.at(at, () => {
      if (this.armed.get(triggerKey(horde.id, def.name)) !== armed) return;
      const next = nextFireAfter({ schedule: def.schedule!, ...(def.timezone === undefined ? {} : { timezone: def.timezone }) }, at);
      // The next instant is on disk before this one's run starts; this one's key makes it start at most once.
      this.deps.store.setSchedule(horde.id, def.name, true, at, next, this.deps.clock.now());
      this.schedule(horde, def, armed, next);
      this.fire(horde, def, { key: cronKey(at), input: { trigger_time: new Date(at).toISOString() } })
        .catch((err: unknown) => this.deps.warn(`trigger ${horde.id}/${def.name}: ${messageOf(err)}`));
    });
  }

  private armWatch(horde: HordeDef, def: TriggerDef, armed: Armed): void {
    const target = watchPath(horde, def);
    armed.watcher = startWatch({
      path: target,
      ...(def.globs === undefined ? {} : { globs: def.globs }),
      debounceMs: def.debounceMs ?? 2000,
      clock: this.deps.clock,
      timers: this.deps.timers,
      hashes: this.deps.store.watchHashes(horde.id, def.name),
      ignore: this.deps.ignorePaths,
      // The watcher waits for each firing to be handled (committed or held back) before the next: a flood is paced by the engine.
      onChange: async (change) => {
        const at = this.deps.clock.now();
        await this.fire(horde, def, { key: `watch:${change.path}:${change.hash}:${at}`, input: { trigger_path: change.path, trigger_time: new Date(at).toISOString() } })
          .catch((err: unknown) => this.deps.warn(`trigger ${horde.id}/${def.name}: ${messageOf(err)}`));
      },
      onError: (err, where) => this.deps.warn(`trigger ${horde.id}/${def.name}: ${where === undefined ? '' : `${where}: `}${messageOf(err)}`),
      onOverflow: (info) => {
        const at = this.deps.clock.now();
        this.deps.store.record({ hordeId: horde.id, name: def.name, key: `overflow:${at}:${info.dropped}`, at, outcome: 'overflow', detail: `${info.dropped} changed files were not fired (more than the queue holds), e.g. ${info.examples.join(', ')}` });
      },
    });
  }

  // ---- views ----

  private find(hordeId: string, name: string): { horde: HordeDef; def: TriggerDef } {
    const horde = this.hordes.get(hordeId);
    if (horde === undefined) throw new KowalskiError('KW_ERR_HORDE_NOT_FOUND', `no valid horde ${hordeId}`);
    const def = horde.triggers.find((t) => t.name === name);
    if (def === undefined) {
      throw new KowalskiError('KW_ERR_TRIGGER_NOT_FOUND', `horde ${hordeId} has no trigger ${name} (it has: ${horde.triggers.map((t) => t.name).join(', ') || 'none'})`);
    }
    return { horde, def };
  }

  /**
   * The operator's switch; never set: off for built-in and imported hordes, else what
   * horde.md says. A switch set before the horde was imported (a replaced horde, an id
   * used before) does not count: an import always arrives switched off.
   */
  private enabledOf(horde: HordeDef, def: TriggerDef): boolean {
    const state = this.deps.store.state(horde.id, def.name);
    if (state !== undefined && !(horde.origin === 'imported' && state.updatedAt < importedAt(horde))) return state.enabled;
    return horde.origin === 'builtin' || horde.origin === 'imported' ? false : def.enabled;
  }

  private secretOf(horde: HordeDef, def: TriggerDef): string | undefined {
    const fromEnv = def.secretEnv === undefined ? undefined : this.deps.env[def.secretEnv];
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
    const fromConfig = this.deps.configSecrets()[`${horde.id}/${def.name}`];
    return fromConfig === undefined || fromConfig === '' ? undefined : fromConfig;
  }

  /** `active`: how many of the trigger's runs have not finished. */
  private view(horde: HordeDef, def: TriggerDef, active: number): TriggerView {
    const tk = triggerKey(horde.id, def.name);
    const enabled = this.enabledOf(horde, def);
    const armed = this.armed.get(tk);
    const v: TriggerView = {
      hordeId: horde.id, name: def.name, kind: def.kind, enabled, overlap: def.overlap,
      nextFireAt: null, lastFiring: this.deps.store.lastFiring(horde.id, def.name), active,
    };
    if (def.kind === 'cron') {
      v.schedule = def.schedule!;
      if (def.timezone !== undefined) v.timezone = def.timezone;
      v.catchUp = def.catchUp ?? 'once';
      if (enabled) v.nextFireAt = armed?.nextFireAt ?? this.deps.store.state(horde.id, def.name)?.nextFireAt ?? safeNext(def, this.deps.clock.now());
    } else if (def.kind === 'watch') {
      v.path = def.path!;
      if (def.globs !== undefined) v.globs = def.globs;
      v.debounceMs = def.debounceMs ?? 2000;
    } else {
      v.hookPath = `/hooks/${horde.id}/${def.name}`;
      const secret = this.secretOf(horde, def);
      v.signed = secret !== undefined || def.secretEnv !== undefined;
      if (def.secretEnv !== undefined && secret === undefined) v.error = `$${def.secretEnv} is not set: deliveries are refused until it is`;
    }
    if (armed?.error !== undefined) v.error = armed.error;
    return v;
  }
}

/** When an imported horde was installed: its import marker's time (ms). */
function importedAt(horde: HordeDef): number {
  try {
    return fs.statSync(path.join(horde.dir, IMPORT_MARKER)).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** What arming depends on: a trigger edited by a hot reload is re-armed. */
function signatureOf(horde: HordeDef, def: TriggerDef): string {
  return JSON.stringify([horde.dir, def]);
}

function safeNext(def: TriggerDef, after: number): number | null {
  try {
    return nextFireAfter({ schedule: def.schedule!, ...(def.timezone === undefined ? {} : { timezone: def.timezone }) }, after);
  } catch {
    return null;
  }
}

/** A watch path: `~/` expanded; relative to the horde's folder. */
function watchPath(horde: HordeDef, def: TriggerDef): string {
  const p = expandHome(def.path!);
  return path.isAbsolute(p) ? p : path.resolve(horde.dir, p);
}
