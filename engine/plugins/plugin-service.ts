/**
 * `engine.plugins`: the plugins found under `<data>/plugins/`, their grants, and the tools of
 * the granted ones, given to the engine's tool registry (as `<plugin>__<tool>`). A plugin's
 * process is started on the first call of one of its tools and stopped when its grant is
 * revoked or changes, when a rescan finds it changed, and when the engine closes. Nothing a
 * plugin does (a bad manifest, a failed start, a crash) stops the engine: it is recorded
 * with its phase and shown. How plugins are confined here (bubblewrap, or Node's permission
 * model only) is found once, when the first plugin is found or started.
 */
import path from 'node:path';
import type { Tool } from '../../agents/index.js';
import { KowalskiError, NO_PROGRESS, toPlainError } from '../../core/index.js';
import type { Progress } from '../../contract/progress.js';
import type { Clock } from '../base/clock.js';
import type { Timers } from '../base/timers.js';
import { discoverPlugins } from './discover.js';
import type { DiscoveredPlugin } from './discover.js';
import { PluginGrants } from './grants.js';
import { grantedManifests, isInvalid } from './granted.js';
import type { PluginAuditEntry } from './grants.js';
import type { PluginQueries } from '../store/sql/plugins.js';
import { pluginToolName } from './manifest.js';
import { permissionsHash, permissionsInWords } from './permissions.js';
import { detectSandbox, startPluginProcess } from './runner/index.js';
import type { AdapterMethod, PluginProcess, Sandbox, SandboxOptions } from './runner/index.js';
import type { PluginConfinement, PluginFailure, PluginManifest, PluginStatus } from './types.js';

/** A plugin's adapter as a `type = "plugin"` adapter reaches it: each call runs in the plugin's process, under its grants. */
export interface PluginAdapterLink {
  /** `receive` (an inbound request) or `send` (an answer back); resolves with the value the plugin's method returned. */
  call(method: AdapterMethod, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
}

/** Failures kept per plugin (the newest). */
const MAX_FAILURES = 20;

export interface PluginServiceDeps {
  /** Where the grants are kept: the data folder's SQLite, or the Postgres store the nodes share. */
  grants: PluginQueries;
  clock: Clock;
  timers: Timers;
  /** kowalski's data folder: never visible to a plugin, whatever it was granted. */
  dataDir: string;
  /** `<data>/plugins`: `package.json`, `node_modules/`, each plugin's `data/<name>/`. */
  pluginsDir: string;
  /** Folder plugins (`$KOWALSKI_PLUGIN_DIR`, default `<data>/plugins/local`). */
  localDir: string;
  kowalskiVersion: string;
  /** The granted tools changed: the engine rebuilds its tool registry. */
  onToolsChanged(): void;
  /** Something shown changed (a grant, a rescan, a failure). */
  onChange(): void;
  /** A call's time limit, ms (the runner's default: 30 000). */
  callTimeoutMs?: number;
  /** Test only: `ip:port` pairs plugins' fetches may reach although web_fetch's rules refuse them. */
  testOnlyFetchAllow?: readonly string[];
  /** Where bubblewrap is (default: found on PATH); `{ bwrap: null }` confines plugins by Node's permission model only (tests). */
  sandbox?: SandboxOptions;
}

/** What the operator saw when they chose to grant: each field given must still be the plugin's. */
export interface PluginGrantShown {
  version?: string;
  permissionsHash?: string;
}

interface Entry {
  found: DiscoveredPlugin;
  /** Start and call failures of its process, beside those of discovery. */
  failures: PluginFailure[];
  proc?: PluginProcess;
}

export class PluginService {
  private entries = new Map<string, Entry>();
  private readonly grants: PluginGrants;
  private sandbox: Promise<Sandbox> | undefined;
  private sandboxFound: Sandbox | undefined;
  /** The plugins (name, version) whose tools the registry was last given: a grant made by another node sharing the store changes them. */
  private offered: string | undefined;

  constructor(private readonly deps: PluginServiceDeps) {
    this.grants = new PluginGrants(deps.grants, deps.clock);
  }

  /** Every plugin found, by name. */
  list(): PluginStatus[] {
    const rows = this.grants.rows();
    this.offerAsGranted(rows);
    return [...this.entries.values()].map((e) => this.statusOf(e, rows));
  }

  /** One plugin; KW_ERR_PLUGIN_NOT_FOUND when none has that name. */
  get(name: string): PluginStatus {
    const rows = this.grants.rows();
    this.offerAsGranted(rows);
    return this.statusOf(this.entry(name), rows);
  }

  /**
   * Grant the plugin's permissions as its manifest declares them now; its tools are offered from now on.
   * `shown` is what the operator was shown and confirmed (the app sends it): a version or a permissions
   * hash given there that is not the plugin's now refuses the grant (KW_ERR_PLUGIN_CHANGED).
   */
  grant(name: string, by: string, shown: PluginGrantShown = {}): PluginStatus {
    const entry = this.entry(name);
    const manifest = entry.found.manifest;
    if (manifest === null || this.invalid(entry)) {
      const why = entry.found.failures.map((f) => `${f.phase}: ${f.message}`).join('; ');
      throw new KowalskiError('KW_ERR_PLUGIN_INVALID', `plugin ${name} cannot be granted: ${why}`);
    }
    if ((shown.version !== undefined && shown.version !== manifest.version)
      || (shown.permissionsHash !== undefined && shown.permissionsHash !== permissionsHash(manifest.permissions))) {
      throw new KowalskiError('KW_ERR_PLUGIN_CHANGED', `plugin ${name} changed since it was shown: it is now version ${manifest.version} and may ${permissionsInWords(manifest.permissions).join('; ')}. Look at it again, then grant it`);
    }
    this.grants.grant(manifest, by);
    void this.stopProcess(entry); // started again, with what is granted now, at the next call
    this.changed(true);
    return this.get(name);
  }

  /** Take the grant back (audited); its tools are no longer offered and its process is stopped. */
  revoke(name: string, by: string): PluginStatus {
    const entry = this.entry(name);
    const had = this.grants.revoke(name, by);
    void this.stopProcess(entry);
    if (had) this.changed(true);
    return this.get(name);
  }

  /** On a shared store: another node granted or revoked a plugin; the tools offered follow, and the app is told. */
  grantsChanged(): void {
    this.offerAsGranted(this.grants.rows());
    this.deps.onChange();
  }

  /** The grants and revokes of one plugin, oldest first. */
  audit(name: string): PluginAuditEntry[] {
    this.entry(name);
    return this.grants.audit(name);
  }

  /** How plugins' processes are confined on this machine (found on the first call: a trial run of bwrap). */
  async confinement(): Promise<PluginConfinement> {
    return confinementOf(await this.findSandbox());
  }

  private findSandbox(): Promise<Sandbox> {
    this.sandbox ??= detectSandbox(this.deps.sandbox).then((found) => {
      this.sandboxFound = found;
      return found;
    });
    return this.sandbox;
  }

  /**
   * Look for plugins again; a plugin whose folder, version or permissions changed has its process stopped.
   * `onProgress` hears each plugin checked: phase `packages`, then `folders` (discover.ts).
   */
  async rescan(onProgress: Progress = NO_PROGRESS): Promise<PluginStatus[]> {
    const found = await discoverPlugins({ pluginsDir: this.deps.pluginsDir, localDir: this.deps.localDir, kowalskiVersion: this.deps.kowalskiVersion, now: () => this.deps.clock.now(), onProgress });
    // Their statuses say how they are confined: found once, and only where there is a plugin.
    if (found.length > 0) await this.findSandbox();
    const next = new Map<string, Entry>();
    for (const f of found) {
      const old = this.entries.get(f.name);
      if (old !== undefined && sameCode(old.found, f)) next.set(f.name, { found: f, failures: old.failures, ...(old.proc === undefined ? {} : { proc: old.proc }) });
      else next.set(f.name, { found: f, failures: [] });
    }
    const gone = [...this.entries.entries()].filter(([name, e]) => next.get(name)?.proc !== e.proc);
    this.entries = next;
    await Promise.all(gone.map(([, e]) => this.stopProcess(e)));
    this.changed(true);
    return this.list();
  }

  /** The tools of the granted plugins, as the tool registry takes them. */
  tools(): Tool[] {
    const granted = grantedManifests([...this.entries.values()].map((e) => e.found), this.grants.rows());
    this.offered = offeredKey(granted);
    return granted.flatMap((manifest) => manifest.tools.map((def): Tool => ({
      spec: { name: pluginToolName(manifest.name, def.name), description: `${def.description} (plugin ${manifest.name} ${manifest.version})`, inputSchema: def.input as Tool['spec']['inputSchema'] },
      call: (args, ctx) => this.call(manifest.name, def.name, args, ctx.signal),
    })));
  }

  async close(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => this.stopProcess(e)));
  }

  /**
   * Adapter `adapter` of plugin `plugin`, for a `type = "plugin"` adapter: KW_ERR_PLUGIN_NOT_FOUND,
   * KW_ERR_PLUGIN_NOT_GRANTED, KW_ERR_PLUGIN_ADAPTER when its manifest declares no such adapter. Each
   * call checks the grant again (a revoke takes effect at once) and runs in the plugin's process.
   */
  adapter(plugin: string, adapter: string): PluginAdapterLink {
    const entry = this.entry(plugin);
    const manifest = this.grantedManifest(plugin, entry);
    if (!manifest.adapters.some((a) => a.name === adapter)) {
      const declared = manifest.adapters.map((a) => a.name);
      throw new KowalskiError('KW_ERR_PLUGIN_ADAPTER', `plugin ${plugin} declares no adapter "${adapter}" in its kowalski-plugin.toml (${declared.length === 0 ? 'it declares none' : `it declares ${declared.join(', ')}`})`);
    }
    return {
      call: async (method, args, signal) => (await this.call(plugin, adapter, args, signal, method)).structured,
    };
  }

  /** The plugin's manifest while its grant in force matches it; KW_ERR_PLUGIN_NOT_GRANTED otherwise. */
  private grantedManifest(plugin: string, entry: Entry | undefined): PluginManifest {
    const manifest = entry?.found.manifest ?? null;
    if (entry === undefined || manifest === null || this.invalid(entry) || !PluginGrants.matches(this.grants.rows().get(plugin), manifest)) {
      throw new KowalskiError('KW_ERR_PLUGIN_NOT_GRANTED', `plugin ${plugin} is not granted (or its grant no longer matches its version and permissions): grant it in the app's Plugins screen or with kowalski plugins grant ${plugin}`);
    }
    return manifest;
  }

  /** A call of a granted plugin's tool (or, with `adapter`, of its adapter's method): refused unless the grant in force still matches; its process started on first use. */
  private async call(plugin: string, tool: string, args: Record<string, unknown>, signal: AbortSignal, adapter?: AdapterMethod) {
    const entry = this.entries.get(plugin);
    const manifest = this.grantedManifest(plugin, entry);
    const starting = entry!.proc === undefined;
    const proc = (entry!.proc ??= this.startProcess(entry!, manifest));
    const result = proc.call(tool, args, signal, adapter);
    // Its process runs now (a failure reports itself): the Plugins screen shows it.
    if (starting) result.then(() => this.changed(false), () => undefined);
    return result;
  }

  private startProcess(entry: Entry, manifest: PluginManifest): PluginProcess {
    return startPluginProcess({
      name: manifest.name,
      root: entry.found.root,
      tools: manifest.tools.map((t) => ({ name: t.name, entry: t.entry, export: t.export })),
      adapters: manifest.adapters.map((a) => ({ name: a.name, entry: a.entry, export: a.export })),
      permissions: manifest.permissions,
      dataDir: path.join(this.deps.pluginsDir, 'data', manifest.name),
      sandbox: this.findSandbox(),
      privateDirs: [this.deps.dataDir],
      timers: this.deps.timers,
      clock: this.deps.clock,
      ...(this.deps.callTimeoutMs === undefined ? {} : { callTimeoutMs: this.deps.callTimeoutMs }),
      ...(this.deps.testOnlyFetchAllow === undefined ? {} : { testOnlyFetchAllow: this.deps.testOnlyFetchAllow }),
      onFailure: (phase, err) => {
        const plain = toPlainError(err);
        entry.failures.push({ phase, code: plain.code, message: plain.message, at: this.deps.clock.now() });
        entry.failures.splice(0, Math.max(0, entry.failures.length - MAX_FAILURES));
        this.changed(false);
      },
    });
  }

  private async stopProcess(entry: Entry): Promise<void> {
    const proc = entry.proc;
    delete entry.proc;
    await proc?.stop();
  }

  private entry(name: string): Entry {
    const entry = this.entries.get(name);
    if (entry === undefined) {
      const known = [...this.entries.keys()];
      throw new KowalskiError('KW_ERR_PLUGIN_NOT_FOUND', `no plugin named "${name}" (found: ${known.length === 0 ? 'none' : known.join(', ')}; plugins live under ${this.deps.pluginsDir})`);
    }
    return entry;
  }

  private invalid(entry: Entry): boolean {
    return isInvalid(entry.found);
  }

  /** The grants in force differ from those the registry's tools were made from (another node granted or revoked): the registry is made again. */
  private offerAsGranted(rows: ReturnType<PluginGrants['rows']>): void {
    if (this.offered === undefined) return; // no registry made yet
    if (offeredKey(grantedManifests([...this.entries.values()].map((e) => e.found), rows)) !== this.offered) this.deps.onToolsChanged();
  }

  private changed(tools: boolean): void {
    if (tools) this.deps.onToolsChanged();
    this.deps.onChange();
  }

  private statusOf(entry: Entry, rows: ReturnType<PluginGrants['rows']>): PluginStatus {
    const { found } = entry;
    const m = found.manifest;
    const row = rows.get(found.name);
    const invalid = m === null || this.invalid(entry);
    const granted = !invalid && PluginGrants.matches(row, m);
    const warnings = [...found.warnings];
    if (!invalid && row !== undefined && !granted) {
      warnings.push(`granted for version ${row.version}${row.permissions_hash === permissionsHash(m.permissions) ? '' : ' with other permissions'} by ${row.granted_by}: it is pending until granted again`);
    }
    return {
      name: found.name,
      version: m?.version ?? null,
      description: m?.description ?? null,
      source: found.source,
      root: found.root,
      state: invalid ? 'invalid' : granted ? 'granted' : 'pending',
      permissions: invalid ? null : m.permissions,
      permissionsText: invalid ? [] : permissionsInWords(m.permissions),
      permissionsHash: invalid ? null : permissionsHash(m.permissions),
      tools: (m?.tools ?? []).map((t) => ({ name: pluginToolName(found.name, t.name), description: t.description })),
      adapters: (m?.adapters ?? []).map((a) => ({ name: a.name, description: a.description })),
      warnings,
      failures: [...found.failures, ...entry.failures],
      grantedBy: granted ? row!.granted_by : null,
      grantedAt: granted ? row!.granted_at : null,
      process: entry.proc?.stats() ?? null,
      confinement: this.sandboxFound === undefined ? { kind: 'node', detail: 'not known yet' } : confinementOf(this.sandboxFound),
    };
  }
}

function confinementOf(sandbox: Sandbox): PluginConfinement {
  if (sandbox.kind === 'bwrap') {
    return { kind: 'bwrap', detail: `bubblewrap (${sandbox.bwrap}): its own network and PID namespaces, only its folder, its data folder and its granted paths mounted, and Node's permission model inside` };
  }
  const fix = { absent: '; install bubblewrap (apt-get install bubblewrap) to confine it further', failed: '; kowalski doctor says how to make bubblewrap work', off: '' }[sandbox.cause];
  return { kind: 'node', detail: `Node's permission model only: it can open sockets and send signals (${sandbox.reason})${fix}` };
}

/** The same plugin code and declaration: same folder, version and permissions (its process may go on). */
function sameCode(a: DiscoveredPlugin, b: DiscoveredPlugin): boolean {
  if (a.root !== b.root || a.manifest === null || b.manifest === null) return false;
  return a.manifest.version === b.manifest.version && permissionsHash(a.manifest.permissions) === permissionsHash(b.manifest.permissions)
    && JSON.stringify(a.manifest.tools) === JSON.stringify(b.manifest.tools) && JSON.stringify(a.manifest.adapters) === JSON.stringify(b.manifest.adapters);
}

/** Which granted plugins' tools are offered, as one string to compare. */
function offeredKey(granted: readonly PluginManifest[]): string {
  return JSON.stringify(granted.map((m) => [m.name, m.version]));
}
