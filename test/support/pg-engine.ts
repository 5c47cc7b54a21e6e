/**
 * Engines on the Postgres store for tests: one throwaway cluster per test file (started
 * at the first use), a fresh database per call, the test step kinds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { DEFAULT_CONFIG, createEngine } from '../../engine/index.js';
import type { Engine, EngineConfig } from '../../engine/index.js';
import { cleanups } from './cleanup.js';
import { TEST_KINDS } from './engine.js';
import { freshDatabase, startPostgres } from './postgres.js';
import type { Postgres } from './postgres.js';

let cluster: Promise<Postgres> | undefined;
let databases = 0;

/** The file's cluster (stopped when the test process exits). */
export function sharedPostgres(): Promise<Postgres> {
  cluster ??= startPostgres();
  return cluster;
}

/** A new empty database in the file's cluster. */
export async function freshPostgresUrl(): Promise<string> {
  const pg = await sharedPostgres();
  return freshDatabase(pg.url, `kw_${process.pid}_${++databases}`);
}

export interface PgEngineOptions {
  url?: string;
  dataDir?: string;
  runs?: Partial<EngineConfig['runs']>;
  store?: Partial<EngineConfig['store']>;
}

/** An engine whose run store is a Postgres database (a fresh one unless `url`). */
export async function pgTestEngine(t: TestContext, options: PgEngineOptions = {}): Promise<{ engine: Engine; url: string; dataDir: string }> {
  const url = options.url ?? await freshPostgresUrl();
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kw-home-'));
  const config: EngineConfig = {
    ...DEFAULT_CONFIG,
    store: { ...DEFAULT_CONFIG.store, ...options.store, url },
    runs: { ...DEFAULT_CONFIG.runs, ...options.runs },
  };
  const engine = await createEngine({ dataDir, config, extraStepKinds: TEST_KINDS });
  cleanups(t)(async () => {
    await engine.close();
    if (options.dataDir === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { engine, url, dataDir };
}
