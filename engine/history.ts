/**
 * Read-only access to a data directory's runs, without taking the engine lock: for
 * `runs` and `show` while another kowalski (a server, a `run` in progress) owns it.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { systemClock } from './clock.js';
import { dataPaths } from './data-dir.js';
import { EventLog } from './store/event-log.js';
import { sqliteRunStore } from './store/run-store.js';
import { RunQueries } from './store/queries.js';
import { TraceStore } from './store/traces.js';
import type { ListRunsFilter, RunRow } from './store/queries.js';
import { readRunView } from './run-view.js';
import type { RunView } from './run-view.js';

export interface History {
  getRun(runId: string): RunView;
  listRuns(filter?: ListRunsFilter): RunRow[];
  close(): void;
}

export function openHistory(dataDir: string): History | undefined {
  const paths = dataPaths(dataDir);
  if (!fs.existsSync(paths.database)) return undefined;
  const db = new Database(paths.database, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  const store = sqliteRunStore(db);
  const queries = new RunQueries(store);
  const log = new EventLog(store);
  const traces = new TraceStore(db);
  return {
    getRun: (runId) => readRunView(queries, log, traces, runId, paths, systemClock.now()),
    listRuns: (filter) => queries.listRuns(filter),
    close: () => db.close(),
  };
}
