/**
 * Read-only access to a data directory's runs, without taking the engine lock: for
 * `runs` and `show` while another kowalski (a server, a `run` in progress) owns it. With
 * a Postgres store the runs are read there (as they are: no migration, no node, no lease),
 * and so are the traces of model calls, every node's (a database no node of this build has
 * migrated yet has none: this folder's are read then).
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { systemClock } from '../base/clock.js';
import { configuredPostgresUrl, loadConfig } from '../config.js';
import { dataPaths } from '../base/data-dir.js';
import type { DataPaths } from '../base/data-dir.js';
import { openDatabase } from '../store/database.js';
import { postgresRunStore } from '../store/pg/run-store.js';
import { PgSession } from '../store/pg/session.js';
import { pgTraceQueries } from '../store/pg/sql/traces.js';
import { openSyncPg } from '../store/pg/sync-pg.js';
import { EventLog } from '../store/event-log.js';
import { sqliteRunStore } from '../store/run-store.js';
import { RunQueries } from '../store/queries.js';
import { TraceStore } from '../store/traces.js';
import { traceQueries } from '../store/sql/traces.js';
import type { ListRunsFilter, RunRow } from '../store/queries.js';
import { readRunView } from '../runs/run-view.js';
import type { RunView } from '../runs/run-view.js';

export interface History {
  getRun(runId: string): RunView;
  listRuns(filter?: ListRunsFilter): RunRow[];
  close(): void;
}

/** `env`: where KOWALSKI_DATABASE_URL is read (the process's environment unless given). */
export function openHistory(dataDir: string, env: NodeJS.ProcessEnv = process.env): History | undefined {
  const config = loadConfig(dataPaths(dataDir).config);
  const paths = dataPaths(dataDir, config.store.files);
  const postgresUrl = configuredPostgresUrl(config, env);
  if (!fs.existsSync(paths.database)) return postgresUrl === undefined ? undefined : postgresHistory(postgresUrl, paths, undefined);
  const db = new Database(paths.database, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  if (postgresUrl !== undefined) return postgresHistory(postgresUrl, paths, db);
  const store = sqliteRunStore(db);
  const queries = new RunQueries(store);
  const log = new EventLog(store);
  const traces = new TraceStore(traceQueries(db));
  return {
    getRun: (runId) => readRunView(queries, log, traces, runId, paths, systemClock.now()),
    listRuns: (filter) => queries.listRuns(filter),
    close: () => db.close(),
  };
}

/** The runs of a Postgres store (undefined while no node has made its tables), with its traces (this folder's, on a database not migrated to shared traces yet). */
function postgresHistory(url: string, paths: DataPaths, db: Database.Database | undefined): History | undefined {
  const pg = openSyncPg(url, { applicationName: 'kowalski history' });
  if (pg.get<{ t: string | null }>("SELECT to_regclass('runs')::text AS t")?.t == null) {
    pg.close();
    db?.close();
    return undefined;
  }
  const session = new PgSession(pg);
  const store = postgresRunStore(session);
  const queries = new RunQueries(store);
  const log = new EventLog(store);
  // No database in the folder: no model call was made here; an empty one in memory answers for its traces.
  const local = db ?? openDatabase(':memory:');
  const shared = pg.get<{ t: string | null }>("SELECT to_regclass('traces')::text AS t")?.t != null;
  const traces = new TraceStore(shared ? pgTraceQueries(session) : traceQueries(local));
  return {
    getRun: (runId) => readRunView(queries, log, traces, runId, paths, systemClock.now()),
    listRuns: (filter) => queries.listRuns(filter),
    close: () => {
      pg.close();
      local.close();
    },
  };
}
