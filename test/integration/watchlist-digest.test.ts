/**
 * The built-in watchlist-digest horde end to end through the engine: ingest copies a
 * watchlist and a CSV of closes (named as a user would name them) into the run, the
 * `compute` step runs the horde's own fixed queries through the data tool (`kowalski mcp
 * serve data`, a child process over MCP), `report` writes the workbook, and the model —
 * a fake Ollama — writes the digest's words. Every number is checked against figures
 * worked out by hand from test/fixtures/watchlist/ below.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import readXlsxFile from 'read-excel-file/node';
import { createEngine } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import type { SqlBatchFile } from '../../agents/index.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/watchlist/', import.meta.url));

const DIGEST = '# Watchlist digest\n\nThe watchlist is worth 7932.2, down 57.8 (-0.72%).\n\n## Moves past your thresholds\n\n- NVDA: -4%\n- AAPL: 2.68%\n';

interface Setup {
  engine: Engine;
  server: FakeModelServer;
  files: string;
}

async function setup(t: TestContext): Promise<Setup> {
  const home = tempDir(t, 'kw-digest-');
  const files = tempDir(t, 'kw-digest-files-');
  for (const f of fs.readdirSync(FIXTURES)) fs.copyFileSync(path.join(FIXTURES, f), path.join(files, f));
  const server = await startFakeOllama(() => ({ text: DIGEST }));
  cleanups(t)(() => server.close());
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${server.url}"\n`);
  const engine = await createEngine({ dataDir: home });
  cleanups(t)(() => engine.close());
  return { engine, server, files };
}

async function run(s: Setup, input: Record<string, string>): Promise<{ runId: string; state: string; workdir: string }> {
  const { horde } = await s.engine.resolveHorde('watchlist-digest');
  const runId = await s.engine.startRun(horde, input);
  const state = await s.engine.waitForRun(runId);
  return { runId, state, workdir: s.engine.getRun(runId).workdir };
}

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
const POSITIONS = [
  ['AAPL', '2026-03-05', 10, 205, 210.5, 5.5, 2.68, 2105, 55],
  ['MSFT', '2026-03-05', 5, 400, 396, -4, -1, 1980, -20],
  ['NEWCO', null, 100, null, null, null, null, null, null],
  ['NVDA', '2026-03-05', 20, 125, 120, -5, -4, 2400, -100],
  ['SAP', '2026-03-05', 8, 180, 180.9, 0.9, 0.5, 1447.2, 7.2],
];
const MOVES = [['NVDA', 3, 125, 120, -4], ['AAPL', 2, 205, 210.5, 2.68]];
const TOTALS = [['2026-03-05', 4, 1, 7932.2, 7990, -57.8, -0.72]];

test('watchlist-digest: the positions, the moves past the thresholds and the totals are those worked out by hand; the model writes only the words', async (t) => {
  const s = await setup(t);
  const input = { watchlist: path.join(s.files, 'My watchlist.csv'), prices: path.join(s.files, 'closes.csv') };
  const { state, workdir, runId } = await run(s, input);
  assert.equal(state, 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));

  const results = JSON.parse(fs.readFileSync(path.join(workdir, 'results', 'compute.json'), 'utf8')) as SqlBatchFile;
  assert.deepEqual(results.queries.map((q) => q.question), ['Positions', 'Moves past your thresholds', 'Totals']);
  const [positions, moves, totals] = results.queries;
  assert.deepEqual(positions!.columns.map((c) => c.name), ['symbol', 'as_of', 'quantity', 'previous_close', 'close', 'change', 'change_pct', 'position_value', 'day_change']);
  assert.deepEqual(positions!.rows, POSITIONS);
  assert.deepEqual(moves!.columns.map((c) => c.name), ['symbol', 'alert_pct', 'previous_close', 'close', 'change_pct']);
  assert.deepEqual(moves!.rows, MOVES);
  assert.deepEqual(totals!.columns.map((c) => c.name), ['as_of', 'priced', 'without_price', 'total_value', 'previous_value', 'day_change', 'day_change_pct']);
  assert.deepEqual(totals!.rows, TOTALS);
  // The placeholders named the tables the user's file names gave.
  assert.match(positions!.sql, /FROM closes\b/);
  assert.match(positions!.sql, /FROM my_watchlist AS w/);

  // The workbook holds the same numbers, typed as numbers.
  const sheets = await readXlsxFile(path.join(workdir, 'digest.xlsx'));
  assert.equal(sheets.length, 4);
  assert.deepEqual(sheets[3]!.data[1]!.slice(1), TOTALS[0]!.slice(1));

  // One model call, for the digest, given the computed numbers; its words are the handoff.
  assert.equal(s.server.requests.length, 1);
  const prompt = s.server.requests[0]!.body.messages[1].content as string;
  for (const n of ['7932.2', '-57.8', '-0.72', '2.68', '1447.2']) assert.ok(prompt.includes(n), `the digest step was given ${n}`);
  assert.equal(fs.readFileSync(path.join(workdir, 'digest.md'), 'utf8').trim(), DIGEST.trim());

  // The digest, word for word, in the day's note of the vault: an audited write by the run.
  const day = new Date(s.engine.getRun(runId).run.createdAt).toISOString().slice(0, 10);
  const note = `digests/watchlist-${day}.md`;
  const digest = fs.readFileSync(path.join(workdir, 'digest.md'), 'utf8');
  assert.equal(s.engine.vault.read(note).content, digest);
  assert.deepEqual(s.engine.vault.writes({ path: note }).map((w) => [w.op, w.by, w.state, w.sessionId]), [['create', `run:${runId}`, 'done', null]]);
  assert.match(s.engine.getRun(runId).steps.find((x) => x.name === 'file')?.summary ?? '', new RegExp(`created vault note ${note} \\(write #\\d+\\)`));

  // The day's second run adds its digest to the same note.
  const second = await run(s, input);
  assert.equal(second.state, 'succeeded');
  assert.equal(s.engine.vault.read(note).content, `${digest}\n${digest}`);
  assert.deepEqual(s.engine.vault.writes({ path: note }).map((w) => [w.op, w.by]), [['append', `run:${second.runId}`], ['create', `run:${runId}`]]);
});

test('watchlist-digest: a watchlist input that gives two tables fails compute naming them, and the model is never called', async (t) => {
  const s = await setup(t);
  const { state, runId } = await run(s, { watchlist: s.files, prices: path.join(s.files, 'closes.csv') });
  assert.equal(state, 'failed');
  const compute = s.engine.getRun(runId).steps.find((x) => x.name === 'compute');
  assert.match(JSON.stringify(compute), /input `watchlist` gave 2 tables \(my_watchlist from watchlist\/My watchlist\.csv; watchlist_closes from watchlist\/closes\.csv\); the plan's \{\{table:watchlist\}\} needs exactly one/);
  assert.equal(s.server.requests.length, 0);
});
