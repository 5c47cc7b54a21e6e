/** Engines on the Postgres store for tests, several on one database when they share `url` (the nodes of a cluster). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import pg from 'pg';
import { DEFAULT_CONFIG, createEngine } from '../../engine/index.js';
import type { Engine, EngineConfig, EngineOptions } from '../../engine/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { TEST_KINDS } from '../../testkit/kinds/index.js';
import { freshPostgresUrl } from '../../testkit/pg-store.js';
import { testOwnCode } from '../../testkit/dist.js';

export { freshPostgresUrl } from '../../testkit/pg-store.js';

export interface PgEngineOptions {
  url?: string;
  dataDir?: string;
  runs?: Partial<EngineConfig['runs']>;
  store?: Partial<EngineConfig['store']>;
  /** The cluster's polls and forwarding wait (EngineOptions.cluster). */
  cluster?: EngineOptions['cluster'];
  /** EngineOptions.noteWaitMs. */
  noteWaitMs?: number;
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
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir, config, extraStepKinds: TEST_KINDS,
    ...(options.cluster === undefined ? {} : { cluster: options.cluster }), ...(options.noteWaitMs === undefined ? {} : { noteWaitMs: options.noteWaitMs }),
  });
  cleanups(t)(async () => {
    await engine.close();
    if (options.dataDir === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { engine, url, dataDir };
}

/** One statement on the database at `url`, through a connection of its own (what a test reads or plants behind the engines' backs). */
export async function pgQuery<R>(url: string, text: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as R[];
  } finally {
    await client.end();
  }
}
