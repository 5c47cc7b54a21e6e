/**
 * Which plugins' tools are offered: a plugin found valid (nothing failed while it was found,
 * read or loaded) whose grant in force is for its version and permissions. The engine's
 * registry takes their tools (PluginService.tools); `kowalski agents` checks the profiles
 * against their names without an engine (grantedPluginToolNames), so both say the same.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { pluginQueries } from '../store/sql/plugins.js';
import type { PluginGrantRow } from '../store/sql/plugins.js';
import { PgSession } from '../store/pg/session.js';
import { pgPluginQueries } from '../store/pg/sql/plugins.js';
import { openSyncPg } from '../store/pg/sync-pg.js';
import { discoverPlugins, localPluginDir } from './discover.js';
import type { DiscoveredPlugin } from './discover.js';
import { PluginGrants } from './grants.js';
import { pluginToolName } from './manifest.js';
import type { PluginManifest, PluginPhase } from './types.js';

/** Phases that make a plugin invalid: it could not be found, read or loaded. */
const INVALID_PHASES: readonly PluginPhase[] = ['discover', 'validate', 'load'];

export function isInvalid(found: DiscoveredPlugin): boolean {
  return found.failures.some((f) => INVALID_PHASES.includes(f.phase));
}

/** The manifests of the plugins among `found` whose tools are offered. */
export function grantedManifests(found: Iterable<DiscoveredPlugin>, rows: ReadonlyMap<string, PluginGrantRow>): PluginManifest[] {
  const out: PluginManifest[] = [];
  for (const f of found) {
    if (f.manifest !== null && !isInvalid(f) && PluginGrants.matches(rows.get(f.manifest.name), f.manifest)) out.push(f.manifest);
  }
  return out;
}

export interface PluginPlaces {
  /** `<data>/plugins`. */
  pluginsDir: string;
  /** The database holding the grants; none yet: nothing is granted. */
  database: string;
  /** The Postgres store the nodes share (`[store] url`): the grants are read there instead. */
  postgresUrl?: string | undefined;
  kowalskiVersion: string;
  now(): number;
}

/** The names (`<plugin>__<tool>`) of the granted plugins' tools, read from the folders and the grants as they are now; the database opened read-only. */
export async function grantedPluginToolNames(o: PluginPlaces, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  if (o.postgresUrl === undefined && !fs.existsSync(o.database)) return [];
  const found = await discoverPlugins({ pluginsDir: o.pluginsDir, localDir: localPluginDir(o.pluginsDir, env), kowalskiVersion: o.kowalskiVersion, now: o.now });
  if (found.length === 0) return [];
  const rows = new Map((o.postgresUrl === undefined ? sqliteGrants(o.database) : postgresGrants(o.postgresUrl)).map((r) => [r.name, r]));
  return grantedManifests(found, rows).flatMap((m) => m.tools.map((t) => pluginToolName(m.name, t.name)));
}

function sqliteGrants(file: string): PluginGrantRow[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return pluginQueries(db).grants();
  } finally {
    db.close();
  }
}

/** The grants the nodes share; a database no node of this version has migrated yet holds none. */
function postgresGrants(url: string): PluginGrantRow[] {
  const pg = openSyncPg(url, { applicationName: 'kowalski (grants)' });
  try {
    return pgPluginQueries(new PgSession(pg)).grants();
  } catch (err) {
    if ((err as { code?: unknown }).code === '42P01') return []; // undefined_table
    throw err;
  } finally {
    pg.close();
  }
}
