/**
 * Plugins' grants on Postgres, shared by the nodes: the same functions as ../../sql/plugins.ts.
 * A grant or revoke also wakes the other nodes (`kw_plugins`, at its commit), so the tools
 * their agents are offered follow it at once.
 */
import type { PluginAuditRow, PluginGrantRow, PluginQueries } from '../../sql/plugins.js';
import { CHANNELS } from '../channels.js';
import type { PgSession } from '../session.js';

/** `nodeId`: this node's, the payload (a node does not wake itself); absent (a reader), no wake-up. */
export function pgPluginQueries(s: PgSession, nodeId?: string): PluginQueries {
  const wake = (): void => {
    if (nodeId !== undefined) s.write(`SELECT pg_notify('${CHANNELS.plugins}', $1)`, [nodeId]);
  };
  return {
    transaction: (fn) => s.transaction(fn)(),
    grant: (row) => s.write(
      `INSERT INTO plugin_grants (name, version, permissions_hash, permissions, granted_by, granted_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (name) DO UPDATE SET version = excluded.version, permissions_hash = excluded.permissions_hash,
         permissions = excluded.permissions, granted_by = excluded.granted_by, granted_at = excluded.granted_at`,
      [row.name, row.version, row.permissions_hash, row.permissions, row.granted_by, row.granted_at]),
    revoke: (name) => s.write('DELETE FROM plugin_grants WHERE name = $1', [name]),
    grants: () => s.all<PluginGrantRow>('SELECT * FROM plugin_grants ORDER BY name'),
    // Every grant and revoke writes its audit line in its transaction: the wake-up goes with it.
    audit: (row) => {
      s.write(
        'INSERT INTO plugin_grant_audit (name, action, version, permissions_hash, permissions, by, at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [row.name, row.action, row.version, row.permissions_hash, row.permissions, row.by, row.at]);
      wake();
    },
    auditOf: (name) => s.all<PluginAuditRow>('SELECT * FROM plugin_grant_audit WHERE name = $1 ORDER BY id', [name]),
  };
}
