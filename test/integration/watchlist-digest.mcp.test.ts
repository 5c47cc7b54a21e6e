/**
 * The watchlist digest with its prices from an MCP tool instead of a file: a real MCP server
 * (test/fixtures/mcp/prices.mjs, over stdio, configured in config.toml's [[mcp.servers]])
 * answers the closes; the `prices` step (mcp_call) writes its rows for the data tool, and the
 * SQL steps compute from them. Every number is checked against the figures worked out by
 * hand (the same closes as test/fixtures/watchlist/closes.csv). Also: a tool that fails, a
 * tool no server has, arguments that are not JSON, and a tool answering CSV text.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import type { SqlBatchFile } from '../../agents/index.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { writeHorde } from '../support/engine.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/watchlist/', import.meta.url));
const PRICE_SERVER = fileURLToPath(new URL('../fixtures/mcp/prices.mjs', import.meta.url));
const DIGEST = '# Watchlist digest\n\nThe watchlist is worth 7932.2, down 57.8 (-0.72%).\n';

interface Setup {
  engine: Engine;
  model: FakeModelServer;
  home: string;
  watchlist: string;
  calls: string;
}

async function setup(t: TestContext): Promise<Setup> {
  const home = tempDir(t, 'kw-digest-mcp-');
  const files = tempDir(t, 'kw-digest-mcp-files-');
  fs.copyFileSync(path.join(FIXTURES, 'My watchlist.csv'), path.join(files, 'My watchlist.csv'));
  const calls = path.join(files, 'calls.ndjson');
  const model = await startFakeOllama(() => ({ text: DIGEST }));
  cleanups(t)(() => model.close());
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]
default = "ollama:qwen2.5:7b"
[providers.ollama]
host = "${model.url}"

[[mcp.servers]]
name = "quotes"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(PRICE_SERVER)}]
env = { PRICES_CALLS = ${JSON.stringify(calls)} }
`);
  const engine = await createEngine({ dataDir: home });
  cleanups(t)(() => engine.close());
  return { engine, model, home, watchlist: path.join(files, 'My watchlist.csv'), calls };
}

async function run(s: Setup, input: Record<string, string>, hordeId = 'watchlist-digest'): Promise<{ runId: string; state: string; workdir: string }> {
  const { horde } = await s.engine.resolveHorde(hordeId);
  const runId = await s.engine.startRun(horde, input);
  const state = await s.engine.waitForRun(runId);
  return { runId, state, workdir: s.engine.getRun(runId).workdir };
}

const stepOf = (s: Setup, runId: string, name: string) => s.engine.getRun(runId).steps.find((x) => x.name === name);

/*
 * By hand (as in watchlist-digest.test.ts). Last close = 2026-03-05, previous = 2026-03-04.
 *   AAPL  10 × 210.50 = 2105.00   205.00 → 210.50: +5.50, +2.68%   day +55.00   alert 2   → past it
 *   MSFT   5 × 396.00 = 1980.00   400.00 → 396.00: −4.00, −1.00%   day −20.00   alert 1.5 → not
 *   NVDA  20 × 120.00 = 2400.00   125.00 → 120.00: −5.00, −4.00%   day −100.00  alert 3   → past it
 *   SAP    8 × 180.90 = 1447.20   180.00 → 180.90: +0.90, +0.50%   day +7.20    alert 1   → not
 *   NEWCO  100, no price (the tool was not asked for TSLA, which is not on the watchlist).
 * Totals: now 7932.20; previous 7990.00; day −57.80; −57.80 / 7990 = −0.72%.
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

test('watchlist-digest with prices from an MCP tool: the tool is called once with the arguments given, and the positions, moves and totals are those worked out by hand', async (t) => {
  const s = await setup(t);
  const args = { symbols: 'AAPL,MSFT,NVDA,SAP,NEWCO', as_of: '2026-03-05' };
  const { runId, state, workdir } = await run(s, { watchlist: s.watchlist, prices_tool: 'quotes.closes', prices_args: JSON.stringify(args) });
  assert.equal(state, 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));
  assert.deepEqual(fs.readFileSync(s.calls, 'utf8').trim().split('\n').map((l) => JSON.parse(l)), [{ name: 'closes', args }]);
  const prices = JSON.parse(fs.readFileSync(path.join(workdir, 'inputs', 'prices', 'prices.json'), 'utf8')) as Array<Record<string, unknown>>;
  assert.equal(prices.length, 10, 'the rows of every symbol asked for, TSLA not');
  assert.deepEqual(prices[0], { symbol: 'AAPL', date: '2026-03-03', close: 200 });
  assert.equal(stepOf(s, runId, 'prices')?.summary, 'quotes.closes: 10 rows into inputs/prices/prices.json');

  const results = JSON.parse(fs.readFileSync(path.join(workdir, 'results', 'compute.json'), 'utf8')) as SqlBatchFile;
  const [positions, moves, totals] = results.queries;
  assert.match(positions!.sql, /FROM prices\b/, 'the tool\'s file is the prices table');
  assert.deepEqual(positions!.rows, POSITIONS);
  assert.deepEqual(moves!.rows, MOVES);
  assert.deepEqual(totals!.rows, TOTALS);
  // The model wrote only the words, from those numbers.
  assert.equal(s.model.requests.length, 1);
  const prompt = s.model.requests[0]!.body.messages[1].content as string;
  for (const n of ['7932.2', '-57.8', '-0.72', '2.68']) assert.ok(prompt.includes(n), `the digest step was given ${n}`);
  assert.equal(stepOf(s, runId, 'send')?.summary, 'not sent: no adapter given');
});

test('a price tool that fails, one no server has, or arguments that are not JSON fail the prices step with its code; compute and the model never run', async (t) => {
  const s = await setup(t);
  const cases: Array<[Record<string, string>, string, RegExp]> = [
    [{ prices_tool: 'quotes.down' }, 'KW_ERR_TOOL_FAILED', /quotes\.down reported an error: the quote feed is down/],
    [{ prices_tool: 'quotes.nope' }, 'KW_ERR_TOOL_UNKNOWN', /quotes\.nope/],
    [{ prices_tool: 'quotes.closes', prices_args: '{symbols: AAPL}' }, 'KW_ERR_INPUT_INVALID', /its arguments are not JSON once filled in/],
    [{ prices_tool: 'quotes.closes', prices_args: '["AAPL"]' }, 'KW_ERR_INPUT_INVALID', /its arguments must be the JSON of an object/],
    [{ prices_tool: 'quotes.closes_csv' }, 'KW_ERR_TOOL_FAILED', /answered text that is not JSON, but `inputs\/prices\/prices\.json` is a JSON file/],
  ];
  for (const [extra, code, message] of cases) {
    const { runId, state } = await run(s, { watchlist: s.watchlist, ...extra });
    assert.equal(state, 'failed', JSON.stringify(extra));
    const prices = stepOf(s, runId, 'prices');
    assert.equal(prices?.error?.code, code, JSON.stringify(prices));
    assert.match(prices?.error?.message ?? '', message);
    assert.equal(stepOf(s, runId, 'compute')?.state, 'pending', 'compute never ran');
  }
  assert.equal(s.model.requests.length, 0);
});

test('an mcp_call step writing a .csv output keeps the tool\'s text as it is; a table of arguments has its placeholders filled', async (t) => {
  const s = await setup(t);
  const folder = path.join(s.home, 'hordes', 'fetch-closes');
  writeHorde(folder, 'id = "fetch-closes"\npipeline = ["ask", "fetch"]', {
    ask: 'kind = "ingest"\n\n[[inputs]]\nid = "symbols"\ntype = "text"',
    fetch: 'kind = "mcp_call"\ntool = "quotes.closes_csv"\narguments = { symbols = "{{input.symbols}}", as_of = "{{date}}", run = "{{run_id}}" }\noutput = "data/closes.csv"',
  });
  const { runId, state, workdir } = await run(s, { symbols: ' AAPL ' }, 'fetch-closes');
  assert.equal(state, 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));
  assert.equal(fs.readFileSync(path.join(workdir, 'data', 'closes.csv'), 'utf8'), fs.readFileSync(path.join(FIXTURES, 'closes.csv'), 'utf8'));
  const day = new Date(s.engine.getRun(runId).run.createdAt).toISOString().slice(0, 10);
  assert.deepEqual(JSON.parse(fs.readFileSync(s.calls, 'utf8').trim()), { name: 'closes_csv', args: { symbols: 'AAPL', as_of: day, run: runId } });
});
