/**
 * `kowalski nodes` when no server answers for the data folder: the nodes of its Postgres
 * store read as they are, without registering this process as a node, running migrations
 * or touching a lease (an embedded engine would do all three, and could adopt runs). With
 * SQLite there is nothing to read: the only node is the server, and it is not running.
 */
import { configuredPostgresUrl, loadConfig } from '../config.js';
import { dataPaths } from '../base/data-dir.js';
import { postgresNodesView } from '../cluster/nodes-view.js';
import type { NodesView } from '../cluster/nodes-view.js';
import { pgNodes } from '../store/pg/nodes.js';
import { openSyncPg } from '../store/pg/sync-pg.js';

export function readNodes(dataDir: string, env: NodeJS.ProcessEnv = process.env): NodesView {
  const config = loadConfig(dataPaths(dataDir).config);
  const url = configuredPostgresUrl(config, env);
  if (url === undefined) return { store: 'sqlite', nodes: [], handovers: [], wakeUps: null };
  const pg = openSyncPg(url, { applicationName: 'kowalski nodes' });
  try {
    // A database no node has started on yet has no tables: no nodes, rather than a SQL error.
    const tables = pg.get<{ nodes: string | null; chat: string | null }>("SELECT to_regclass('nodes')::text AS nodes, to_regclass('chat_leases')::text AS chat");
    if (tables?.nodes == null) return { store: 'postgres', nodes: [], handovers: [], wakeUps: null };
    // A database the nodes of an earlier version migrated has no chat leases yet: no turns to count.
    return postgresNodesView(pgNodes(pg), config.store.leaseSecs * 1000, undefined, tables.chat != null);
  } finally {
    pg.close();
  }
}
