/**
 * The built-in watchlist-digest horde's tests share this: an engine on a temp data folder
 * whose model is a fake Ollama answering the digest, the watchlist fixtures copied where a
 * user keeps them, a run of the horde waited for, and the figures worked out by hand from
 * test/fixtures/watchlist/ that every way of giving the watchlist and the prices must give.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../engine/index.js';
import type { Engine, RunView } from '../../engine/index.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { writeHorde } from './engine.js';
import { testOwnCode } from '../../testkit/dist.js';

export const WATCHLIST_FIXTURES = fileURLToPath(new URL('../fixtures/watchlist/', import.meta.url));

/** What the fake model writes as the digest. */
export const DIGEST = '# Watchlist digest\n\nThe watchlist is worth 7932.2, down 57.8 (-0.72%).\n\n## Moves past your thresholds\n\n- NVDA: -4%\n- AAPL: 2.68%\n';

/*
 * By hand, from the fixtures. Last close = the latest date's (2026-03-05), previous = 2026-03-04.
 *   AAPL  10 × 210.50 = 2105.00   205.00 → 210.50: +5.50, 5.50 / 205 = +2.68%   day +55.00   alert 2   → past it
 *   MSFT   5 × 396.00 = 1980.00   400.00 → 396.00: −4.00, −1.00%                 day −20.00   alert 1.5 → not
 *   NVDA  20 × 120.00 = 2400.00   125.00 → 120.00: −5.00, −4.00%                 day −100.00  alert 3   → past it
 *   SAP    8 × 180.90 = 1447.20   180.00 → 180.90: +0.90, +0.50%                 day +7.20    alert 1   → not
 *   NEWCO  100, no price. TSLA has prices but is not on the watchlist.
 * Totals: now 2105 + 1980 + 2400 + 1447.20 = 7932.20; previous 2050 + 2000 + 2500 + 1440 = 7990.00;
 * day 7932.20 − 7990.00 = −57.80 (= 55 − 20 − 100 + 7.20); −57.80 / 7990 = −0.72%.
 */
export const POSITIONS = [
  ['AAPL', '2026-03-05', 10, 205, 210.5, 5.5, 2.68, 2105, 55],
  ['MSFT', '2026-03-05', 5, 400, 396, -4, -1, 1980, -20],
  ['NEWCO', null, 100, null, null, null, null, null, null],
  ['NVDA', '2026-03-05', 20, 125, 120, -5, -4, 2400, -100],
  ['SAP', '2026-03-05', 8, 180, 180.9, 0.9, 0.5, 1447.2, 7.2],
];
export const MOVES = [['NVDA', 3, 125, 120, -4], ['AAPL', 2, 205, 210.5, 2.68]];
export const TOTALS = [['2026-03-05', 4, 1, 7932.2, 7990, -57.8, -0.72]];

export interface DigestSetup {
  engine: Engine;
  model: FakeModelServer;
  /** The engine's data folder. */
  home: string;
  /** The folder the fixtures were copied to, as a user's own files. */
  files: string;
  /** The fixtures' watchlist and closes in `files`. */
  watchlist: string;
  prices: string;
}

export interface DigestSetupOptions {
  /** More config.toml, after the model's (MCP servers, adapters); given the files folder. */
  config?: (files: string) => string;
}

/** An engine whose model writes DIGEST, with the fixtures copied to a folder of their own; closed when the test ends. */
export async function digestSetup(t: TestContext, options: DigestSetupOptions = {}): Promise<DigestSetup> {
  const home = tempDir(t, 'kw-digest-');
  const files = tempDir(t, 'kw-digest-files-');
  for (const f of fs.readdirSync(WATCHLIST_FIXTURES)) fs.copyFileSync(path.join(WATCHLIST_FIXTURES, f), path.join(files, f));
  const model = await startFakeOllama(() => ({ text: DIGEST }));
  cleanups(t)(() => model.close());
  const extra = options.config === undefined ? '' : `\n${options.config(files)}`;
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${model.url}"\n${extra}`);
  // An embedded engine, as `kowalski run` without the server.
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  cleanups(t)(() => engine.close());
  return { engine, model, home, files, watchlist: path.join(files, 'My watchlist.csv'), prices: path.join(files, 'closes.csv') };
}

/** Start a run of the horde (the built-in digest unless named) and wait for it to settle. */
export async function runDigest(s: DigestSetup, input: Record<string, string>, hordeId = 'watchlist-digest'): Promise<{ runId: string; state: string; workdir: string }> {
  const { horde } = await s.engine.resolveHorde(hordeId);
  const runId = await s.engine.startRun(horde, input);
  const state = await s.engine.waitForRun(runId);
  return { runId, state, workdir: s.engine.getRun(runId).workdir };
}

/** A horde of the test's own (`id`, then `hordeToml`; steps as writeHorde takes them) in the data folder, run once with `input`. */
export function runOwnHorde(
  s: DigestSetup, id: string, hordeToml: string, steps: Record<string, string>, input: Record<string, string>,
): Promise<{ runId: string; state: string; workdir: string }> {
  writeHorde(path.join(s.home, 'hordes', id), `id = "${id}"\n${hordeToml}`, steps);
  return runDigest(s, input, id);
}

/** A step of a run as the run's view shows it. */
export function stepOf(s: DigestSetup, runId: string, name: string): RunView['steps'][number] | undefined {
  return s.engine.getRun(runId).steps.find((x) => x.name === name);
}
