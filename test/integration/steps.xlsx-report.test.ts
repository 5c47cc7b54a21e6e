/**
 * `xlsx_report` run for real through the step runner (a pool thread and a child
 * process), its workbook read back with read-excel-file cell by cell, types included;
 * what read-excel-file cannot tell (bold headers, internal links) is read from the
 * workbook's XML. Also `sql_batch` through the runner, with `query_sql` answered by the
 * test in place of the engine: every query runs even after one fails, and its JSON feeds
 * the report. The whole file runs at UTC+14, so any local-time slip moves a date.
 */
process.env.TZ = 'Pacific/Kiritimati';

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import readXlsxFile from 'read-excel-file/node';
import type { QueryResult, SqlBatchFile, TableProfileFile } from '../../agents/index.js';
import { KowalskiError } from '../../core/index.js';
import { resultsJson } from '../../steps/data-results.js';
import { parseDate, parseTimestamp } from '../../steps/kinds/xlsx-report.js';
import type { StepRequest, StepResult, StepTask } from '../../steps/protocol.js';
import { createStepRunner } from '../../steps/runner.js';
import { kindInfo, makeHorde, makeStep, makeTask, runTask, tempDir } from '../fixtures/steps/build.js';

const runner = createStepRunner({ threads: 2 });
after(() => runner.close());

// ---- fixtures ----

const BATCH: SqlBatchFile = {
  version: 1,
  kind: 'sql_batch',
  queries: [
    {
      index: 1, question: 'What is the revenue per region?', sql: 'SELECT region, SUM(amount) AS revenue FROM sales GROUP BY 1',
      columns: [
        { name: 'region', type: 'VARCHAR' }, { name: 'revenue', type: 'DECIMAL(18,2)' }, { name: 'orders', type: 'BIGINT' },
        { name: 'share', type: 'DOUBLE' }, { name: 'big', type: 'HUGEINT' },
      ],
      rows: [
        ['Nord', 132950.29, 80, 0.3047, '170141183460469231731687303715884105727'],
        [null, null, null, null, null],
        ['Süd', 96446.96, 70, null, 1],
      ],
      rowCount: 3, truncated: false,
    },
    {
      index: 2, question: 'When were the first and last invoices issued?', sql: 'SELECT MIN(issued) AS first, MAX(stamp) AS last, bool_or(paid) AS paid, ANY_VALUE(t) AS t FROM invoices',
      columns: [{ name: 'first', type: 'DATE' }, { name: 'last', type: 'TIMESTAMP' }, { name: 'paid', type: 'BOOLEAN' }, { name: 't', type: 'TIME' }],
      rows: [['2026-03-03', '2026-11-09 11:00:00', false, '08:30:00'], ['1899-12-31', 'not a time', true, null], ['2026-06-30', '2026-06-30 23:45:10.125', null, null]],
      rowCount: 3, truncated: true,
    },
  ],
};

const PROFILE: TableProfileFile = {
  version: 1,
  kind: 'table_profile',
  tables: [
    {
      table: { name: 'bakery_invoices', source: 'data/bakery.xlsx', sheet: 'Invoices', rowCount: 200, columnCount: 3 },
      columns: [
        { name: 'Customer', type: 'VARCHAR', nulls: 0, distinct: 5, min: 'Café Münster', max: 'Zielona Łąka Sp. z o.o.', mean: null, top: [{ value: 'Nordic Rye AB', count: 48 }, { value: "O'Brien & Sons", count: 41 }] },
        { name: 'Net', type: 'DECIMAL(12,2)', nulls: 2, distinct: 198, min: 12.5, max: 9876.55, mean: 4660.909, top: [] },
        { name: 'Issued', type: 'DATE', nulls: 0, distinct: 150, min: '2026-01-02', max: '2026-12-30', mean: null, top: [{ value: null, count: 0 }] },
      ],
      notes: ['a title row above the header was skipped', 'a TOTAL row after a blank row was left out'],
    },
    {
      table: { name: 'orders', source: 'data/orders.parquet', rowCount: 300, columnCount: 1 },
      columns: [{ name: 'paid', type: 'BOOLEAN', nulls: 0, distinct: 2, min: false, max: true, mean: null, top: [{ value: true, count: 200 }] }],
      notes: [],
    },
  ],
  skipped: [{ source: 'data/broken.csv', error: 'could not sniff the CSV dialect' }],
};

// ---- helpers ----

interface Harness {
  task: StepTask;
  /** Absolute path of a workdir-relative file. */
  at(rel: string): string;
}

/** A plan → run → report horde in a fresh run dir; `step` is the one the task runs. */
function harness(t: TestContext, step: 'run' | 'report', over: { output?: string; previousOutput?: string | null; context?: string[]; isolation?: 'in_process' | 'process' } = {}): Harness {
  const horde = makeHorde([
    makeStep({ name: 'plan', kind: 'noop', output: 'plan.md' }),
    makeStep({ name: 'run', kind: 'sql_batch', output: step === 'run' ? over.output ?? 'results/run.md' : 'results/run.md', context: step === 'run' ? over.context ?? [] : [] }),
    makeStep({ name: 'report', kind: 'xlsx_report', output: step === 'report' ? over.output ?? 'report.xlsx' : 'report.xlsx', context: step === 'report' ? over.context ?? [] : [] }),
  ]);
  const previous = over.previousOutput === null ? undefined : over.previousOutput ?? (step === 'run' ? 'plan.md' : 'results/run.md');
  const task = makeTask({
    horde, step, runDir: tempDir(t), isolation: over.isolation ?? 'in_process',
    ...(previous === undefined ? {} : { previousOutput: previous }),
  });
  return { task, at: (rel) => path.join(task.workdir, rel) };
}

function put(h: Harness, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(h.at(rel)), { recursive: true });
  fs.writeFileSync(h.at(rel), text);
}

/** One file of a zip (an .xlsx), read with node:zlib: the central directory gives each entry's place and size. */
function zipEntry(zip: Buffer, name: string): string {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(eocd >= 0, 'a zip file');
  let p = zip.readUInt32LE(eocd + 16);
  for (let n = zip.readUInt16LE(eocd + 10); n > 0; n--) {
    const method = zip.readUInt16LE(p + 10);
    const size = zip.readUInt32LE(p + 20);
    const nameLen = zip.readUInt16LE(p + 28);
    const entry = zip.toString('utf8', p + 46, p + 46 + nameLen);
    const local = zip.readUInt32LE(p + 42);
    p += 46 + nameLen + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
    if (entry !== name) continue;
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + size);
    return (method === 8 ? zlib.inflateRawSync(data) : data).toString('utf8');
  }
  throw new Error(`no ${name} in the zip`);
}

/** The sheet XML of the sheet named `name` (sheet order = sheetN order in write-excel-file's workbooks). */
function sheetXml(zip: Buffer, index: number): string {
  return zipEntry(zip, `xl/worksheets/sheet${index + 1}.xml`);
}

/** The addresses of the bold cells of a sheet, from its XML and the styles' fonts. */
function boldCells(zip: Buffer, index: number): string[] {
  const styles = zipEntry(zip, 'xl/styles.xml');
  const fonts = [...(/<fonts[^>]*>([\s\S]*?)<\/fonts>/.exec(styles)?.[1] ?? '').matchAll(/<font\b[^>]*?(?:\/>|>([\s\S]*?)<\/font>)/g)].map((m) => /<b\s*\/>|<b\s/.test(m[1] ?? ''));
  const xfs = [...(/<cellXfs[^>]*>([\s\S]*?)<\/cellXfs>/.exec(styles)?.[1] ?? '').matchAll(/<xf\b[^>]*>/g)].map((m) => Number(/fontId="(\d+)"/.exec(m[0])?.[1] ?? 0));
  return [...sheetXml(zip, index).matchAll(/<c r="([A-Z]+\d+)"(?: s="(\d+)")?/g)]
    .filter((m) => m[2] !== undefined && fonts[xfs[Number(m[2])] ?? 0] === true).map((m) => m[1] ?? '');
}

/** The internal links of a sheet: cell → the location it opens. */
function links(zip: Buffer, index: number): Record<string, string> {
  const unescape = (s: string): string => s.replaceAll('&apos;', "'").replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
  return Object.fromEntries([...sheetXml(zip, index).matchAll(/<hyperlink ref="([A-Z]+\d+)" location="([^"]*)"/g)].map((m) => [m[1], unescape(m[2] ?? '')]));
}

// ---- xlsx_report ----

describe('xlsx_report', { concurrency: true }, () => {
  test('a sql_batch file: an Index, then one sheet per question, each cell typed, the same in a thread and a child', async (t) => {
    assert.notEqual(new Date(Date.UTC(2026, 2, 3)).getTimezoneOffset(), 0, 'this test runs away from UTC');
    const runs = await Promise.all((['in_process', 'process'] as const).map(async (isolation) => {
      const h = harness(t, 'report', { isolation });
      put(h, 'results/run.json', resultsJson(BATCH));
      return { h, o: await runTask(runner, h.task) };
    }));
    for (const { h, o } of runs) {
      assert.deepEqual(o.result, { outcome: 'pass', artifact: 'report.xlsx', summary: 'workbook with 2 result sheets, 6 rows' });
      const bytes = fs.readFileSync(h.at('report.xlsx'));
      assert.deepEqual(fs.readFileSync(path.join(h.task.attemptDir, 'report.xlsx')), bytes, 'the attempt keeps its copy');
      const sheets = await readXlsxFile(bytes);
      assert.deepEqual(sheets.map((s) => s.sheet), ['Index', 'What is the revenue per region', 'When were the first and last…']);

      const index = sheets[0]!.data;
      assert.deepEqual(index, [
        ['#', 'Question', 'SQL', 'Rows', 'Truncated', 'Sheet'],
        [1, 'What is the revenue per region?', BATCH.queries[0]!.sql, 3, false, 'What is the revenue per region'],
        [2, 'When were the first and last invoices issued?', BATCH.queries[1]!.sql, 3, true, 'When were the first and last…'],
      ]);
      assert.deepEqual(links(bytes, 0), { F2: "'What is the revenue per region'!A1", F3: "'When were the first and last…'!A1" });
      assert.deepEqual(boldCells(bytes, 0), ['A1', 'B1', 'C1', 'D1', 'E1', 'F1']);

      const regions = sheets[1]!.data;
      assert.deepEqual(regions, [
        ['region', 'revenue', 'orders', 'share', 'big'],
        ['Nord', 132950.29, 80, 0.3047, '170141183460469231731687303715884105727'],
        [null, null, null, null, null],
        ['Süd', 96446.96, 70, null, 1],
      ]);
      assert.equal(typeof regions[1]![1], 'number');
      assert.equal(typeof regions[1]![4], 'string', 'an integer beyond 2^53 stays exact, as text');
      assert.deepEqual(boldCells(bytes, 1), ['A1', 'B1', 'C1', 'D1', 'E1']);

      const invoices = sheets[2]!.data;
      assert.deepEqual(invoices[0], ['first', 'last', 'paid', 't']);
      const [first, last, paid, time] = invoices[1]!;
      assert.ok(first instanceof Date && last instanceof Date, 'DATE and TIMESTAMP are date cells');
      assert.equal((first as unknown as Date).toISOString(), '2026-03-03T00:00:00.000Z');
      assert.equal((last as unknown as Date).toISOString(), '2026-11-09T11:00:00.000Z', 'not 10:59:59.999');
      assert.equal(paid, false);
      assert.equal(time, '08:30:00');
      assert.deepEqual(invoices[2], ['1899-12-31', 'not a time', true, null], 'what Excel cannot hold as a date stays text');
      assert.deepEqual(invoices[3]!.map((v) => (v instanceof Date ? v.toISOString() : v)), ['2026-06-30T00:00:00.000Z', '2026-06-30T23:45:10.125Z', null, null]);
      assert.deepEqual(invoices.slice(4), [[null, null, null, null], ['Truncated: the data tool returned only these 3 rows; the rest were not returned.', null, null, null]]);
      // Number formats: a date format on dates, two decimals on DECIMAL(18,2).
      const styles = zipEntry(bytes, 'xl/styles.xml');
      assert.match(styles, /formatCode="yyyy-mm-dd"/);
      assert.match(styles, /formatCode="yyyy-mm-dd hh:mm:ss"/);
      assert.match(styles, /formatCode="#,##0.00"/);
      // Columns sized to content (as shown: `132,950.29`), at least 8 and at most 60 characters.
      const widths = (i: number): number[] => [...sheetXml(bytes, i).matchAll(/<col [^>]*width="([\d.]+)"/g)].map((m) => Number(m[1]));
      assert.deepEqual(widths(1), [8, 12, 8, 8, 41]);
      assert.deepEqual(widths(0), [8, 47, 60, 8, 11, 32]);
    }
  });

  test('sheet names follow Excel\'s rules: 31 characters, no []:*?/\\, no edge quotes, unique whatever the case', async (t) => {
    const h = harness(t, 'report');
    const result: QueryResult = { columns: [{ name: 'n', type: 'INTEGER' }], rows: [[1]], rowCount: 1, truncated: false };
    const questions = [
      'Which customers [top 10] paid: late/early? *all*', "'Quoted'", 'Revenue', 'REVENUE', 'revenue', 'History', 'Index',
      'A very long question about the revenue of every region in every month', 'A very long question about the revenue of every region in every year',
      '???', 'Ünïcödé 🍰 cakes per bakery and per week of the year',
    ];
    put(h, 'results/run.json', resultsJson({ version: 1, kind: 'sql_batch', queries: questions.map((question, i) => ({ index: i + 1, question, sql: `SELECT ${i}`, ...result })) }));
    const { result: r } = await runTask(runner, h.task);
    assert.equal(r.outcome, 'pass', JSON.stringify(r));
    const bytes = fs.readFileSync(h.at('report.xlsx'));
    const sheets = await readXlsxFile(bytes);
    const names = sheets.map((s) => s.sheet);
    assert.deepEqual(names, [
      'Index',
      'Which customers (top 10) paid…',
      'Quoted',
      'Revenue',
      'REVENUE (2)',
      'revenue (3)',
      'History (2)',
      'Index (2)',
      'A very long question about the…',
      'A very long question about… (2)',
      'Query 10',
      'Ünïcödé 🍰 cakes per bakery…',
    ]);
    for (const name of names) {
      assert.ok(name.length <= 31, name);
      assert.doesNotMatch(name, /[[\]:*?/\\]|^'|'$/, name);
    }
    assert.equal(new Set(names.map((n) => n.toLowerCase())).size, names.length);
    // The index links each question to its own sheet, by the name the sheet got.
    assert.deepEqual(sheets[0]!.data.slice(1).map((row) => row[5]), names.slice(1));
    assert.deepEqual(Object.values(links(bytes, 0)), names.slice(1).map((n) => `'${n.replaceAll("'", "''")}'!A1`));
    for (const s of sheets.slice(1)) assert.deepEqual(s.data, [['n'], [1]]);
  });

  test('a table_profile file: an Index of the tables (and what could not be read), then one sheet per table', async (t) => {
    const h = harness(t, 'report', { output: 'profile.xlsx', previousOutput: 'profile.md' });
    put(h, 'profile.json', resultsJson(PROFILE));
    const { result } = await runTask(runner, h.task);
    assert.deepEqual(result, { outcome: 'pass', artifact: 'profile.xlsx', summary: 'workbook with 2 table sheets, 4 columns profiled' });
    const bytes = fs.readFileSync(h.at('profile.xlsx'));
    const sheets = await readXlsxFile(bytes);
    assert.deepEqual(sheets.map((s) => s.sheet), ['Index', 'bakery_invoices', 'orders']);
    assert.deepEqual(sheets[0]!.data, [
      ['Table', 'Source', 'Source sheet', 'Rows', 'Columns', 'Profile sheet'],
      ['bakery_invoices', 'data/bakery.xlsx', 'Invoices', 200, 3, 'bakery_invoices'],
      ['orders', 'data/orders.parquet', null, 300, 1, 'orders'],
      [null, null, null, null, null, null],
      ['Could not be read', null, null, null, null, null],
      ['data/broken.csv', 'could not sniff the CSV dialect', null, null, null, null],
    ]);
    assert.deepEqual(links(bytes, 0), { F2: "'bakery_invoices'!A1", F3: "'orders'!A1" });
    const invoices = sheets[1]!.data;
    assert.deepEqual(invoices.slice(0, 3), [
      ['Column', 'Type', 'Nulls', 'Distinct', 'Min', 'Max', 'Mean', 'Most frequent'],
      ['Customer', 'VARCHAR', 0, 5, 'Café Münster', 'Zielona Łąka Sp. z o.o.', null, "Nordic Rye AB (48), O'Brien & Sons (41)"],
      ['Net', 'DECIMAL(12,2)', 2, 198, 12.5, 9876.55, 4660.909, null],
    ]);
    const issued = invoices[3]!;
    assert.deepEqual(issued.slice(0, 4), ['Issued', 'DATE', 0, 150]);
    assert.ok(issued[4] instanceof Date && issued[5] instanceof Date, 'min and max of a DATE column are dates');
    assert.equal((issued[4] as unknown as Date).toISOString(), '2026-01-02T00:00:00.000Z');
    assert.equal((issued[5] as unknown as Date).toISOString(), '2026-12-30T00:00:00.000Z');
    assert.deepEqual(issued.slice(6), [null, '(null) (0)']);
    assert.deepEqual(invoices.slice(4), [
      [null, null, null, null, null, null, null, null],
      ['Notes', null, null, null, null, null, null, null],
      ['a title row above the header was skipped', null, null, null, null, null, null, null],
      ['a TOTAL row after a blank row was left out', null, null, null, null, null, null, null],
    ]);
    assert.deepEqual(sheets[2]!.data, [
      ['Column', 'Type', 'Nulls', 'Distinct', 'Min', 'Max', 'Mean', 'Most frequent'],
      ['paid', 'BOOLEAN', 0, 2, false, true, null, 'true (200)'],
    ]);
    assert.deepEqual(boldCells(bytes, 1), ['A1', 'B1', 'C1', 'D1', 'E1', 'F1', 'G1', 'H1', 'A6']);
  });

  test('with no previous step, the first context path with results beside it is read', async (t) => {
    const h = harness(t, 'report', { previousOutput: null, context: ['@artifact@', 'notes.md', '@step:run@'] });
    put(h, 'results/run.json', resultsJson(BATCH));
    const { result } = await runTask(runner, h.task);
    assert.equal(result.outcome, 'pass', JSON.stringify(result));
    assert.equal((await readXlsxFile(h.at('report.xlsx'))).length, 3);
  });

  test('bad input is KW_ERR_REPORT_INPUT naming the file and what is wrong; a bad output is KW_ERR_KEY_VALUE naming output; nothing is written', async (t) => {
    const cases: Array<{ json?: string; output?: string; code: string; message: RegExp; where?: unknown }> = [
      { code: 'KW_ERR_REPORT_INPUT', message: /^results\/run\.json does not exist$/ },
      { json: 'not json', code: 'KW_ERR_REPORT_INPUT', message: /^results\/run\.json is not JSON: / },
      { json: '{"version":1,"kind":"sql_batch","queries":[{"index":1,"question":"q","sql":"s","columns":[],"rows":[],"rowCount":0}]}', code: 'KW_ERR_REPORT_INPUT', message: /^results\/run\.json is not a sql_batch or table_profile results file: queries\[0\]\.truncated is missing/ },
      { json: '{"version":1,"kind":"profile"}', code: 'KW_ERR_REPORT_INPUT', message: /kind should be "sql_batch" or "table_profile", not the string "profile"/ },
      { json: resultsJson(BATCH), output: 'report.xls', code: 'KW_ERR_KEY_VALUE', message: /output report\.xls must end in \.xlsx/, where: { file: 'agents/report.md', key: 'output' } },
    ];
    await Promise.all(cases.map(async (c) => {
      const h = harness(t, 'report', c.output === undefined ? {} : { output: c.output });
      if (c.json !== undefined) put(h, 'results/run.json', c.json);
      const { result } = await runTask(runner, h.task);
      assert.equal(result.outcome, 'fail');
      assert.equal(result.error?.code, c.code, JSON.stringify(result));
      assert.match(result.error?.message ?? '', c.message);
      assert.deepEqual(result.error?.where, c.where ?? { file: 'results/run.json' });
      assert.deepEqual(fs.readdirSync(h.task.workdir).filter((f) => f !== 'results'), [], 'no workbook written');
    }));
  });
});

test('which texts become Date cells: valid days from 1900-03-01 on, at that wall time in UTC', () => {
  const iso = (d: Date | undefined): string | undefined => d?.toISOString();
  assert.equal(iso(parseDate('2026-03-03')), '2026-03-03T00:00:00.000Z');
  assert.equal(iso(parseDate('2024-02-29')), '2024-02-29T00:00:00.000Z');
  for (const bad of ['2026-02-30', '2026-13-01', '1900-02-28', '26-03-03', '2026-03-03 10:00:00', '']) assert.equal(parseDate(bad), undefined, bad);
  assert.equal(iso(parseTimestamp('2026-03-03 13:04:05')), '2026-03-03T13:04:05.000Z');
  assert.equal(iso(parseTimestamp('2026-03-03 13:04:05.123456')), '2026-03-03T13:04:05.123Z');
  assert.equal(iso(parseTimestamp('2026-03-03 13:04:05+01')), '2026-03-03T13:04:05.000Z', 'the time the results show');
  for (const bad of ['2026-03-03', '2026-03-03 24:00:00', '2026-03-03 12:60:00', 'yesterday']) assert.equal(parseTimestamp(bad), undefined, bad);
});

// ---- sql_batch through the runner, query_sql answered by the test ----

const ANSWERS: Record<string, QueryResult | string> = {
  'SELECT region, SUM(amount) AS revenue FROM sales GROUP BY 1 ORDER BY 1': {
    columns: [{ name: 'region', type: 'VARCHAR' }, { name: 'revenue', type: 'DECIMAL(18,2)' }],
    rows: [['Nord', 132950.29], ['Süd', 96446.96]], rowCount: 2, truncated: false,
  },
  'SELECT SUM(amount_usd) FROM sales': '[KW_ERR_DATA_SQL] Binder Error: Referenced column "amount_usd" not found in FROM clause!\nCandidate bindings: "amount"',
  'SELECT MIN(issued) AS first FROM invoices': { columns: [{ name: 'first', type: 'DATE' }], rows: [['2026-03-03']], rowCount: 1, truncated: false },
  'SELECT * FROM stok': '[KW_ERR_DATA_SQL] Catalog Error: Table with name stok does not exist!',
};

const PLAN = [
  '# Plan', //                                                                    1
  '', //                                                                          2
  '## Revenue per region?', //                                                    3
  '', //                                                                          4
  '```sql', //                                                                    5
  'SELECT region, SUM(amount) AS revenue FROM sales GROUP BY 1 ORDER BY 1;', //   6
  '```', //                                                                       7
  '', //                                                                          8
  '## Revenue in dollars', //                                                     9
  '', //                                                                          10
  '```sql', //                                                                    11
  'SELECT SUM(amount_usd) FROM sales', //                                         12
  '```', //                                                                       13
  '', //                                                                          14
  '## First invoice', //                                                          15
  '```sql', //                                                                    16
  'SELECT MIN(issued) AS first FROM invoices', //                                 17
  '```', //                                                                       18
].join('\n');

/** Run a sql_batch task, answering query_sql from ANSWERS as the engine would (errors as the MCP manager words them). */
async function runBatch(task: StepTask): Promise<{ result: StepResult; asked: string[] }> {
  const asked: string[] = [];
  const handle = runner.start(task, kindInfo('sql_batch'), {
    onSpawned: () => undefined,
    onProgress: () => undefined,
    onRequest: async (request: StepRequest) => {
      assert.equal(request.op, 'call-tool');
      const { name, args } = request as Extract<StepRequest, { op: 'call-tool' }>;
      assert.equal(name, 'query_sql');
      const sql = String(args.sql);
      asked.push(sql);
      const answer = ANSWERS[sql];
      if (answer === undefined) throw new Error(`the test has no answer for ${sql}`);
      if (typeof answer === 'string') throw new KowalskiError('KW_ERR_TOOL_FAILED', `data.query_sql reported an error: ${answer}`);
      return { content: JSON.stringify(answer), structured: answer };
    },
  }, { timeoutMs: 15_000 });
  return { result: await handle.result, asked };
}

describe('sql_batch (query_sql answered by the test)', { concurrency: true }, () => {
  test('every query runs, in order, even after one fails; the step fails listing the error; the artifact and JSON are still written', async (t) => {
    const h = harness(t, 'run');
    put(h, 'plan.md', PLAN.replace('FROM invoices', 'FROM invoices\n```\n\n## Stock\n```sql\nSELECT * FROM stok'));
    const { result, asked } = await runBatch(h.task);
    assert.deepEqual(asked, [
      'SELECT region, SUM(amount) AS revenue FROM sales GROUP BY 1 ORDER BY 1', 'SELECT SUM(amount_usd) FROM sales',
      'SELECT MIN(issued) AS first FROM invoices', 'SELECT * FROM stok',
    ]);
    assert.equal(result.outcome, 'fail');
    assert.equal(result.artifact, 'results/run.md');
    assert.equal(result.summary, '2 of 4 queries failed: Revenue in dollars (line 11), Stock (line 21)');
    assert.equal(result.error?.code, 'KW_ERR_SQL_BATCH_FAILED');
    assert.deepEqual(result.error?.where, { file: 'plan.md', line: 11 });
    const message = result.error?.message ?? '';
    assert.ok(message.startsWith('2 of 4 queries in plan.md failed:\n'), message);
    assert.ok(message.includes('Query 2, "Revenue in dollars" (plan.md, line 11):\n    SELECT SUM(amount_usd) FROM sales\n  Error: [KW_ERR_DATA_SQL] Binder Error: Referenced column "amount_usd" not found'), message);
    assert.ok(message.includes('Query 4, "Stock" (plan.md, line 21):\n    SELECT * FROM stok\n  Error: [KW_ERR_DATA_SQL] Catalog Error: Table with name stok does not exist!'), message);
    assert.ok(!message.includes('reported an error'));
    const md = fs.readFileSync(h.at('results/run.md'), 'utf8');
    assert.ok(md.includes('| Nord | 132950.29 |'), md);
    assert.ok(md.includes('**Error** — query 2, at line 11 of `plan.md`:'), md);
    assert.ok(md.includes('Referenced column "amount_usd" not found'));
    const json = JSON.parse(fs.readFileSync(h.at('results/run.json'), 'utf8')) as SqlBatchFile;
    assert.deepEqual(json.queries.map((q) => [q.index, q.question]), [[1, 'Revenue per region?'], [3, 'First invoice']], 'the JSON holds the results there are');
    assert.deepEqual(json.queries[0]?.rows, [['Nord', 132950.29], ['Süd', 96446.96]]);
  });

  test('a plan that runs clean passes, and its JSON is the report\'s input', async (t) => {
    const run = harness(t, 'run');
    put(run, 'plan.md', PLAN.replace('SELECT SUM(amount_usd) FROM sales', 'SELECT MIN(issued) AS first FROM invoices'));
    const { result } = await runBatch(run.task);
    assert.deepEqual(result, { outcome: 'pass', artifact: 'results/run.md', summary: '3 queries, 4 rows' });
    const report = harness(t, 'report');
    fs.cpSync(run.at('results'), report.at('results'), { recursive: true });
    const { result: written } = await runTask(runner, report.task);
    assert.equal(written.summary, 'workbook with 3 result sheets, 4 rows');
    const sheets = await readXlsxFile(report.at('report.xlsx'));
    assert.deepEqual(sheets.map((s) => s.sheet), ['Index', 'Revenue per region', 'Revenue in dollars', 'First invoice']);
    assert.deepEqual(sheets[1]!.data, [['region', 'revenue'], ['Nord', 132950.29], ['Süd', 96446.96]]);
    assert.equal((sheets[3]!.data[1]![0] as unknown as Date).toISOString(), '2026-03-03T00:00:00.000Z');
  });

  test('a plan with no sql block is KW_ERR_SQL_BATCH_EMPTY naming the file; with no previous step the first context path that exists is the plan', async (t) => {
    const empty = harness(t, 'run');
    put(empty, 'plan.md', '# Plan\n\n```sql\n-- I do not know\n```\n');
    const { result, asked } = await runBatch(empty.task);
    assert.equal(result.error?.code, 'KW_ERR_SQL_BATCH_EMPTY');
    assert.equal(result.error?.message, 'plan.md holds no ```sql block to run (the sql block at line 3 holds no statement (only whitespace or comments): skipped)');
    assert.deepEqual(asked, []);

    const fromContext = harness(t, 'run', { previousOutput: null, context: ['missing.md', 'plans/today.md'] });
    put(fromContext, 'plans/today.md', '## First invoice\n```sql\nSELECT MIN(issued) AS first FROM invoices\n```\n');
    const ran = await runBatch(fromContext.task);
    assert.equal(ran.result.summary, '1 query, 1 row');
    assert.match(fs.readFileSync(fromContext.at('results/run.md'), 'utf8'), /Every query of `plans\/today\.md` ran/);

    const nothing = harness(t, 'run', { previousOutput: null, context: ['missing.md'] });
    const none = await runBatch(nothing.task);
    assert.equal(none.result.error?.code, 'KW_ERR_CONTEXT_MISSING');
    assert.match(none.result.error?.message ?? '', /has no plan to read: none of missing\.md is a file in the workdir/);
  });

  test('a cancel while a query runs stops the batch: no later query is sent', async (t) => {
    const h = harness(t, 'run');
    put(h, 'plan.md', PLAN.replace('SELECT SUM(amount_usd) FROM sales', 'SELECT pg_sleep(60)'));
    const asked: string[] = [];
    let cancel: () => void = () => undefined;
    const handle = runner.start(h.task, kindInfo('sql_batch'), {
      onSpawned: () => undefined,
      onProgress: () => undefined,
      onRequest: (request, signal) => {
        const sql = String((request as Extract<StepRequest, { op: 'call-tool' }>).args.sql);
        asked.push(sql);
        const answer = ANSWERS[sql];
        if (answer !== undefined) return Promise.resolve({ content: '', structured: answer });
        cancel();
        return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true }));
      },
    }, { timeoutMs: 15_000 });
    cancel = () => handle.cancel('the operator cancelled the run');
    const result = await handle.result;
    assert.equal(result.outcome, 'fail');
    assert.equal(result.error?.code, 'KW_ERR_STEP_CANCELLED');
    assert.deepEqual(asked, ['SELECT region, SUM(amount) AS revenue FROM sales GROUP BY 1 ORDER BY 1', 'SELECT pg_sleep(60)']);
    assert.equal(fs.existsSync(h.at('results/run.md')), false);
  });
});
