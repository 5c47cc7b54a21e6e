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
import type { SqlBatchFile } from '../../agents/index.js';
import { MOVES, POSITIONS, TOTALS, WATCHLIST_FIXTURES, digestSetup, runDigest, runOwnHorde, stepOf } from '../support/watchlist-digest.js';
import type { DigestSetup } from '../support/watchlist-digest.js';

const PRICE_SERVER = fileURLToPath(new URL('../fixtures/mcp/prices.mjs', import.meta.url));

/** The digest's engine with a price server, `quotes`, whose calls are written to `calls`. */
async function setup(t: TestContext): Promise<DigestSetup & { calls: string }> {
  const callsIn = (files: string): string => path.join(files, 'calls.ndjson');
  const s = await digestSetup(t, {
    config: (files) => `[[mcp.servers]]
name = "quotes"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(PRICE_SERVER)}]
env = { PRICES_CALLS = ${JSON.stringify(callsIn(files))} }
`,
  });
  return { ...s, calls: callsIn(s.files) };
}

test('watchlist-digest with prices from an MCP tool: the tool is called once with the arguments given, and the positions, moves and totals are those worked out by hand', async (t) => {
  const s = await setup(t);
  const args = { symbols: 'AAPL,MSFT,NVDA,SAP,NEWCO', as_of: '2026-03-05' };
  const { runId, state, workdir } = await runDigest(s, { watchlist: s.watchlist, prices_tool: 'quotes.closes', prices_args: JSON.stringify(args) });
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
    const { runId, state } = await runDigest(s, { watchlist: s.watchlist, ...extra });
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
  const { runId, state, workdir } = await runOwnHorde(s, 'fetch-closes', 'pipeline = ["ask", "fetch"]', {
    ask: 'kind = "ingest"\n\n[[inputs]]\nid = "symbols"\ntype = "text"',
    fetch: 'kind = "mcp_call"\ntool = "quotes.closes_csv"\narguments = { symbols = "{{input.symbols}}", as_of = "{{date}}", run = "{{run_id}}" }\noutput = "data/closes.csv"',
  }, { symbols: ' AAPL ' });
  assert.equal(state, 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));
  assert.equal(fs.readFileSync(path.join(workdir, 'data', 'closes.csv'), 'utf8'), fs.readFileSync(path.join(WATCHLIST_FIXTURES, 'closes.csv'), 'utf8'));
  const day = new Date(s.engine.getRun(runId).run.createdAt).toISOString().slice(0, 10);
  assert.deepEqual(JSON.parse(fs.readFileSync(s.calls, 'utf8').trim()), { name: 'closes_csv', args: { symbols: 'AAPL', as_of: day, run: runId } });
});

test('an mcp_call step run again by a loop back calls its tool again: a recorded answer is given back only to an attempt after an interrupted one', async (t) => {
  const s = await setup(t);
  const { runId, state } = await runOwnHorde(s, 'closes-twice', 'pipeline = ["fetch", "check"]\nconfirm_commands = false\n\n[[edges]]\nfrom = "fetch"\nto = "check"\nwhen = "pass"\n\n[[edges]]\nfrom = "check"\nto = "fetch"\nwhen = "fail"\nmax_loops = 1', {
    fetch: 'kind = "mcp_call"\ntool = "quotes.closes"\narguments = { symbols = "SAP" }\noutput = "inputs/prices/prices.json"',
    // Fails the first time (no flag yet), passes the second.
    check: 'kind = "verify"\nverify_command = "test -f flag || { touch flag; exit 1; }"',
  }, {});
  assert.equal(state, 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));
  assert.deepEqual(fs.readFileSync(s.calls, 'utf8').trim().split('\n').map((l) => JSON.parse(l)), [{ name: 'closes', args: { symbols: 'SAP' } }, { name: 'closes', args: { symbols: 'SAP' } }]);
  assert.equal(stepOf(s, runId, 'fetch')?.summary, 'quotes.closes: 2 rows into inputs/prices/prices.json');
});
