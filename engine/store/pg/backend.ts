/**
 * Open the Postgres run store for one node: the connection, the migrations, the typed
 * functions, this node's row in `nodes` and its leases. Every process is a new node
 * (a restart too): its id is fresh, so a paused old process can never pass for it.
 */
import { randomBytes } from 'node:crypto';
import type { RunStore } from '../run-store.js';
import { PgChatLeases } from './chat-leases.js';
import { PgLeases } from './leases.js';
import { migratePg } from './migrate.js';
import { pgNodes } from './nodes.js';
import type { PgNodes } from './nodes.js';
import { pgRequests } from './requests.js';
import type { PgRequests } from './requests.js';
import { postgresRunStore } from './run-store.js';
import { PgSession } from './session.js';
import { describeTarget, openSyncPg } from './sync-pg.js';
import type { SyncPg } from './sync-pg.js';
import type { ModuleToRun } from '../../base/modules.js';

export interface PostgresBackend {
  readonly pg: SyncPg;
  /** The node's transactions, as the typed functions use them (pg/sql/*.ts): the run store's and the shared tables' beside it (chat, traces, adapters, plugins, step records). */
  readonly session: PgSession;
  readonly store: RunStore;
  readonly leases: PgLeases;
  /** The chat sessions whose turn this node runs. */
  readonly chatLeases: PgChatLeases;
  readonly nodes: PgNodes;
  readonly requests: PgRequests;
  /** The connection string (with its password: never print it; `where` is for messages). */
  readonly url: string;
  readonly nodeId: string;
  /** The database's address without its password, for messages. */
  readonly where: string;
  /** Records a clean stop (this node's leases are given up) and closes the connection. */
  close(): void;
}

export interface PostgresBackendOptions {
  /** For people: host and data folder. */
  name: string;
  /** The data folder's id (data-dir folder id): an earlier node of the same folder is this one's dead predecessor. */
  folderId: string;
  ttlMs: number;
  /** sync-pg.worker as the engine's own code has it (default: the module beside sync-pg.ts). */
  module?: ModuleToRun | undefined;
}

export function openPostgresBackend(url: string, options: PostgresBackendOptions): PostgresBackend {
  const nodeId = `node-${randomBytes(4).toString('hex')}`;
  const pg = openSyncPg(url, { applicationName: `kowalski ${nodeId}`, module: options.module });
  try {
    // A node stopped (SIGSTOP) inside a transaction would hold the commit-order lock for
    // everyone: the server ends such a session well before its leases expire.
    pg.exec(`SET idle_in_transaction_session_timeout = ${Math.max(500, Math.floor(options.ttlMs / 2))}`);
    const where = describeTarget(url);
    migratePg(pg, where);
    const session = new PgSession(pg, nodeId);
    const nodes = pgNodes(pg);
    nodes.register({ id: nodeId, name: options.name, pid: process.pid, folderId: options.folderId });
    nodes.buryPredecessors(nodeId, options.folderId);
    const leases = new PgLeases(pg, session, { nodeId, ttlMs: options.ttlMs });
    return {
      pg, store: postgresRunStore(session), session, leases, chatLeases: new PgChatLeases(pg, session, { nodeId, ttlMs: options.ttlMs }), nodes, requests: pgRequests(pg), url, nodeId, where,
      close() {
        try {
          nodes.stopped(nodeId);
        } finally {
          pg.close();
        }
      },
    };
  } catch (err) {
    pg.close();
    throw err;
  }
}
