/**
 * The operator's grants of plugins: one grant in force per plugin, keyed by its name, its
 * version and the hash of its canonical permissions, so a plugin whose version or
 * permissions changed is pending again; every grant and revoke audited (who, when, what)
 * in the same transaction as the change.
 */
import type { Clock } from '../base/clock.js';
import type { PluginAuditRow, PluginGrantRow, PluginQueries } from '../store/sql/plugins.js';
import { canonicalPermissions, permissionsHash } from './permissions.js';
import type { PluginManifest } from './types.js';
import type { PluginAuditEntry } from '../../contract/plugins.js';
export type { PluginAuditEntry } from '../../contract/plugins.js';

export class PluginGrants {
  /** `q`: the data folder's SQLite, or the Postgres store the nodes share. */
  constructor(private readonly q: PluginQueries, private readonly clock: Clock) {}

  /** Every grant row by name (in force or stale: compare with `matches`). */
  rows(): Map<string, PluginGrantRow> {
    return new Map(this.q.grants().map((r) => [r.name, r]));
  }

  /** Whether a grant row is for this manifest's version and permissions. */
  static matches(row: PluginGrantRow | undefined, manifest: PluginManifest): boolean {
    return row !== undefined && row.version === manifest.version && row.permissions_hash === permissionsHash(manifest.permissions);
  }

  /** Grant this manifest's permissions (replacing an older grant), audited. */
  grant(manifest: PluginManifest, by: string): void {
    const row: PluginGrantRow = {
      name: manifest.name,
      version: manifest.version,
      permissions_hash: permissionsHash(manifest.permissions),
      permissions: JSON.stringify(canonicalPermissions(manifest.permissions)),
      granted_by: by,
      granted_at: this.clock.now(),
    };
    this.q.transaction(() => {
      this.q.grant(row);
      this.q.audit({ name: row.name, action: 'grant', version: row.version, permissions_hash: row.permissions_hash, permissions: row.permissions, by, at: row.granted_at });
    });
  }

  /** Remove the grant of `name`, audited with what was granted; false when there was none. */
  revoke(name: string, by: string): boolean {
    const row = this.rows().get(name);
    if (row === undefined) return false;
    this.q.transaction(() => {
      this.q.revoke(name);
      this.q.audit({ name, action: 'revoke', version: row.version, permissions_hash: row.permissions_hash, permissions: row.permissions, by, at: this.clock.now() });
    });
    return true;
  }

  /** The audit of one plugin, oldest first. */
  audit(name: string): PluginAuditEntry[] {
    return this.q.auditOf(name).map((r: PluginAuditRow) => ({ action: r.action, version: r.version, permissionsHash: r.permissions_hash, by: r.by, at: r.at }));
  }
}
