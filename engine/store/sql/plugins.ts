/**
 * Plugins' grants (`plugin_grants`, `plugin_grant_audit`, migration 12): one typed function
 * per query, positional parameters, typed rows. See engine/plugins/grants.ts.
 */
import type { Database } from 'better-sqlite3';

/** A row of `plugin_grants`: the grant in force of one plugin. */
export interface PluginGrantRow {
  name: string;
  version: string;
  permissions_hash: string;
  /** JSON PluginPermissions, canonical. */
  permissions: string;
  granted_by: string;
  granted_at: number;
}

/** A row of `plugin_grant_audit`. */
export interface PluginAuditRow {
  id: number;
  name: string;
  action: 'grant' | 'revoke';
  version: string;
  permissions_hash: string;
  permissions: string;
  by: string;
  at: number;
}

export function pluginQueries(db: Database) {
  const upsert = db.prepare<[name: string, version: string, hash: string, permissions: string, by: string, at: number]>(
    `INSERT INTO plugin_grants (name, version, permissions_hash, permissions, granted_by, granted_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET version = excluded.version, permissions_hash = excluded.permissions_hash,
       permissions = excluded.permissions, granted_by = excluded.granted_by, granted_at = excluded.granted_at`);
  const remove = db.prepare<[name: string]>('DELETE FROM plugin_grants WHERE name = ?');
  const all = db.prepare<[], PluginGrantRow>('SELECT * FROM plugin_grants ORDER BY name');
  const audit = db.prepare<[name: string, action: 'grant' | 'revoke', version: string, hash: string, permissions: string, by: string, at: number]>(
    'INSERT INTO plugin_grant_audit (name, action, version, permissions_hash, permissions, by, at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const auditOf = db.prepare<[name: string], PluginAuditRow>('SELECT * FROM plugin_grant_audit WHERE name = ? ORDER BY id');
  return {
    /** `fn` in one transaction (a change and its audit line). */
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
    /** The grant in force of `name` (replacing an older one). */
    grant: (row: PluginGrantRow): void => void upsert.run(row.name, row.version, row.permissions_hash, row.permissions, row.granted_by, row.granted_at),
    /** No grant in force for `name` any more. */
    revoke: (name: string): void => void remove.run(name),
    /** Every grant in force, by name. */
    grants: (): PluginGrantRow[] => all.all(),
    /** One line of the audit (never updated). */
    audit: (row: Omit<PluginAuditRow, 'id'>): void => void audit.run(row.name, row.action, row.version, row.permissions_hash, row.permissions, row.by, row.at),
    /** The audit of one plugin, oldest first. */
    auditOf: (name: string): PluginAuditRow[] => auditOf.all(name),
  };
}

export type PluginQueries = ReturnType<typeof pluginQueries>;
