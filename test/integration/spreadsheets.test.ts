/**
 * The spreadsheet hordes end to end through the engine: ingest copies real spreadsheets
 * (saved by LibreOffice, awkward CSVs, Parquet) into the run, `table_profile`,
 * `sql_batch` and a model step reach the data tool — `kowalski mcp serve data` started by
 * the engine as a child process and spoken to over MCP — and `xlsx_report` writes a
 * workbook that is read back cell by cell. The numbers are checked against answers
 * computed independently of kowalski (test/fixtures/spreadsheets/answers.json).
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
import type { SqlBatchFile, TableProfileFile } from '../../agents/index.js';
import { writeHorde } from '../support/engine.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer, FakeScript } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testOwnCode } from '../../testkit/dist.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/spreadsheets/', import.meta.url));
const ANSWERS = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'answers.json'), 'utf8')) as {
  'sales-eu.csv': { rows: number; sum_qty: number; revenue_qty_x_price: number; by_region_revenue: Record<string, number> };
  'bakery.xlsx': { invoices: number; net_total: number; vat_total: number; stock_rows: number; net_by_customer: Record<string, number> };
  'orders.parquet': { rows: number; sum_amount: number };
};

interface Setup {
  engine: Engine;
  data: string;
  server?: FakeModelServer;
}

/** A data dir with (or without) a model on a fake Ollama, and a folder of real spreadsheets to analyse. */
async function setup(t: TestContext, script?: FakeScript): Promise<Setup> {
  const home = tempDir(t, 'kw-sheets-');
  const data = tempDir(t, 'kw-sheets-data-');
  for (const f of ['bakery.xlsx', 'sales-eu.csv', 'orders.parquet']) fs.copyFileSync(path.join(FIXTURES, f), path.join(data, f));
  let server: FakeModelServer | undefined;
  if (script !== undefined) {
    server = await startFakeOllama(script);
    cleanups(t)(() => server!.close());
    fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${server.url}"\n`);
  }
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  cleanups(t)(() => engine.close());
  return server === undefined ? { engine, data } : { engine, data, server };
}

async function run(s: Setup, horde: string, input: Record<string, string>): Promise<{ runId: string; state: string; workdir: string }> {
  const { horde: def } = await s.engine.resolveHorde(horde);
  const runId = await s.engine.startRun(def, input);
  const state = await s.engine.waitForRun(runId);
  return { runId, state, workdir: s.engine.getRun(runId).workdir };
}

/** Which model step a request is for, from the system message the step sends. */
function stepOf(body: { messages: Array<{ content: string }> }): 'plan' | 'deliver' {
  const system = body.messages[0]?.content ?? '';
  if (system.includes('"Write the queries"')) return 'plan';
  if (system.includes('"Answer"')) return 'deliver';
  throw new Error(`unexpected model call: ${system.slice(0, 200)}`);
}

const QUESTIONS = 'What is the revenue per region?\nWhat is the net total of the invoices, and when were the first and last ones issued?';

const GOOD_PLAN = `# Plan

## What is the revenue per region?

\`\`\`sql
SELECT "Region" AS region, SUM("Menge" * "Preis") AS revenue FROM sales_eu GROUP BY "Region" ORDER BY region
\`\`\`

## What is the net total of the invoices, and when were the first and last ones issued?

\`\`\`sql
SELECT COUNT(*) AS invoices, SUM("Net") AS net, SUM("VAT 23%") AS vat, MIN("Issued") AS first_issued, MAX("Issued") AS last_issued FROM bakery_invoices
\`\`\`
`;

const BAD_PLAN = GOOD_PLAN.replace('SUM("Menge" * "Preis")', 'SUM(amount_usd)');

const ANSWER = '# Answer\n\n## What is the revenue per region?\n\nNord leads with 132950.29.\n\nThe full results are in report.xlsx.\n';

test('spreadsheet-profile runs end to end with no model configured: every table profiled, a profile workbook written', async (t) => {
  const s = await setup(t);
  const { state, workdir, runId } = await run(s, 'spreadsheet-profile', { data: s.data });
  assert.equal(state, 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));

  const profile = JSON.parse(fs.readFileSync(path.join(workdir, 'profile.json'), 'utf8')) as TableProfileFile;
  const byName = new Map(profile.tables.map((d) => [d.table.name, d]));
  assert.deepEqual([...byName.keys()].sort(), ['bakery_invoices', 'bakery_stock', 'orders', 'sales_eu']);
  assert.equal(byName.get('bakery_invoices')?.table.rowCount, ANSWERS['bakery.xlsx'].invoices);
  assert.equal(byName.get('bakery_stock')?.table.rowCount, ANSWERS['bakery.xlsx'].stock_rows);
  assert.equal(byName.get('sales_eu')?.table.rowCount, ANSWERS['sales-eu.csv'].rows);
  assert.equal(byName.get('orders')?.table.rowCount, ANSWERS['orders.parquet'].rows);
  assert.equal(byName.get('bakery_invoices')?.table.sheet, 'Invoices');
  assert.equal(byName.get('sales_eu')?.table.source, 'data/sales-eu.csv');

  // The Markdown gives the exact names, quoted where SQL needs quotes.
  const md = fs.readFileSync(path.join(workdir, 'profile.md'), 'utf8');
  assert.match(md, /^## bakery_invoices$/m);
  assert.ok(md.includes('`"VAT 23%"`'), md.slice(0, 2000));

  // The workbook: an index of the tables, then one sheet per table.
  const sheets = await readXlsxFile(path.join(workdir, 'profile.xlsx'));
  assert.equal(sheets[0]?.sheet, 'Index');
  assert.equal(sheets.length, 5);
  const index = sheets[0]!.data;
  const listed = index.slice(1).map((row) => row[0]);
  assert.deepEqual([...listed].sort(), ['bakery_invoices', 'bakery_stock', 'orders', 'sales_eu']);
});

test('spreadsheet-analyst: a correct plan gives a workbook whose numbers equal those computed independently', async (t) => {
  const script: FakeScript = (body) => (stepOf(body) === 'plan' ? { text: GOOD_PLAN } : { text: ANSWER });
  const s = await setup(t, script);
  const { state, workdir, runId } = await run(s, 'spreadsheet-analyst', { data: s.data, questions: QUESTIONS });
  assert.equal(state, 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));

  // The plan was written from the profile: the model saw the exact names.
  const planPrompt = s.server!.requests[0]!.body.messages[1].content as string;
  assert.ok(planPrompt.includes('"VAT 23%"'));
  assert.ok(planPrompt.includes(QUESTIONS.split('\n')[0]!));

  // The recorded results, exactly as the data tool returned them.
  const results = JSON.parse(fs.readFileSync(path.join(workdir, 'results', 'run.json'), 'utf8')) as SqlBatchFile;
  assert.equal(results.queries.length, 2);
  const [byRegion, totals] = results.queries;
  assert.equal(byRegion?.question, 'What is the revenue per region?');
  const expected = ANSWERS['sales-eu.csv'].by_region_revenue;
  assert.deepEqual(Object.fromEntries(byRegion!.rows.map((r) => [r[0], r[1]])), expected);
  assert.deepEqual(totals!.rows[0]!.slice(0, 3), [ANSWERS['bakery.xlsx'].invoices, ANSWERS['bakery.xlsx'].net_total, ANSWERS['bakery.xlsx'].vat_total]);
  assert.equal(totals!.columns[3]?.type, 'DATE');
  assert.match(String(totals!.rows[0]![3]), /^2026-\d{2}-\d{2}$/);

  // The workbook, read back cell by cell: index, then one sheet per question, typed cells.
  const sheets = await readXlsxFile(path.join(workdir, 'report.xlsx'));
  assert.deepEqual(sheets.map((x) => x.sheet).slice(0, 1), ['Index']);
  assert.equal(sheets.length, 3);
  const index = sheets[0]!.data;
  assert.equal(index[1]?.[1], 'What is the revenue per region?');
  assert.match(String(index[1]?.[2]), /SUM\("Menge" \* "Preis"\)/);
  assert.equal(index[1]?.[3], 4);
  const regions = sheets[1]!.data;
  assert.deepEqual(regions[0], ['region', 'revenue']);
  for (const row of regions.slice(1)) {
    assert.equal(typeof row[1], 'number', 'revenue is a number cell');
    assert.equal(row[1], expected[row[0] as string]);
  }
  assert.equal(regions.length, 1 + Object.keys(expected).length);
  const invoiceRow = sheets[2]!.data[1]!;
  assert.equal(invoiceRow[0], ANSWERS['bakery.xlsx'].invoices);
  assert.equal(invoiceRow[1], ANSWERS['bakery.xlsx'].net_total);
  assert.equal(invoiceRow[2], ANSWERS['bakery.xlsx'].vat_total);
  assert.ok(invoiceRow[3] instanceof Date, 'a date is a date cell');
  assert.equal((invoiceRow[3] as Date).toISOString().slice(0, 10), totals!.rows[0]![3]);

  // The answer is the model's, from the recorded results.
  const deliverPrompt = s.server!.requests[1]!.body.messages[1].content as string;
  assert.ok(deliverPrompt.includes('132950.29'), 'the deliver step read the results');
  assert.equal(fs.readFileSync(path.join(workdir, 'answer.md'), 'utf8').trim(), ANSWER.trim());
});

test('spreadsheet-analyst: a plan with an invented column fails run, goes back to plan with the error, and the corrected plan succeeds', async (t) => {
  let plans = 0;
  const script: FakeScript = (body) => {
    if (stepOf(body) === 'deliver') return { text: ANSWER };
    plans++;
    return { text: plans === 1 ? BAD_PLAN : GOOD_PLAN };
  };
  const s = await setup(t, script);
  const { state, workdir, runId } = await run(s, 'spreadsheet-analyst', { data: s.data, questions: QUESTIONS });
  assert.equal(state, 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));
  assert.equal(plans, 2);
  // The second plan call carried DuckDB's error naming the column.
  const retry = s.server!.requests.filter((r) => stepOf(r.body) === 'plan')[1]!.body.messages[1].content as string;
  assert.match(retry, /amount_usd/);
  assert.match(retry, /not found/i);
  const runAttempts = s.engine.getRun(runId).attempts.filter((a) => a.step === 'run').map((a) => a.state);
  assert.deepEqual(runAttempts, ['failed', 'passed']);
  const results = JSON.parse(fs.readFileSync(path.join(workdir, 'results', 'run.json'), 'utf8')) as SqlBatchFile;
  assert.deepEqual(Object.fromEntries(results.queries[0]!.rows.map((r) => [r[0], r[1]])), ANSWERS['sales-eu.csv'].by_region_revenue);
});

test('spreadsheet-analyst: a plan that never gets it right fails the run naming the exhausted loop', async (t) => {
  let plans = 0;
  const s = await setup(t, (body) => {
    if (stepOf(body) === 'deliver') return { text: ANSWER };
    plans++;
    return { text: BAD_PLAN };
  });
  const { state, runId } = await run(s, 'spreadsheet-analyst', { data: s.data, questions: QUESTIONS });
  assert.equal(state, 'failed');
  assert.equal(plans, 3, 'the first plan and two loops back');
  const { run: row } = s.engine.getRun(runId);
  assert.equal(row.errorCode, 'KW_ERR_LOOP_EXHAUSTED');
  assert.match(row.error ?? '', /run → plan/);
});

test('a model step that lists query_sql (in a pool thread and in an isolated process) queries the run\'s own inputs, and a bad column comes back as an error it can correct', async (t) => {
  const script: FakeScript = (body) => {
    const results = body.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => m.content);
    if (results.length === 0) return { toolCalls: [{ name: 'query_sql', arguments: { sql: 'SELECT SUM(amount_usd) FROM orders' } }] };
    if (results.length === 1) return { toolCalls: [{ name: 'query_sql', arguments: { sql: 'SELECT SUM(amount) AS total FROM orders' } }] };
    return { text: `# Total\n\n${results[1]}` };
  };
  const s = await setup(t, script);
  const dir = path.join(tempDir(t, 'kw-sheets-horde-'), 'asker');
  const step = (isolation: string): string => `kind = "process"\ntools = ["query_sql"]\nisolation = "${isolation}"`;
  writeHorde(dir, 'id = "asker"\npipeline = ["intake", "inthread", "inchild"]', {
    intake: 'kind = "ingest"\n[[inputs]]\nid = "data"\ntype = "path"',
    inthread: step('in_process'),
    inchild: step('process'),
  });
  const { horde } = await s.engine.resolveHorde(dir);
  const runId = await s.engine.startRun(horde, { data: s.data });
  assert.equal(await s.engine.waitForRun(runId), 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));
  const workdir = s.engine.getRun(runId).workdir;
  for (const name of ['inthread', 'inchild']) {
    const text = fs.readFileSync(path.join(workdir, `${name}.md`), 'utf8');
    assert.ok(text.includes(String(ANSWERS['orders.parquet'].sum_amount)), text);
  }
  const traces = s.engine.listTraces({ runId, limit: 20 }).filter((x) => x.toolCalls > 0);
  const first = s.engine.getTrace(traces[traces.length - 1]!.id).calls[0]!;
  assert.equal(first.name, 'query_sql');
  assert.match(first.error?.message ?? '', /amount_usd/);
});
