import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { QueryResult, SqlBatchFile, TableProfileFile } from '../../agents/index.js';
import { KowalskiError } from '../../core/index.js';
import { checkQueryResult, jsonPathFor, kindOfType, markdownTable, readResultsFile, resultsJson } from '../../steps/data-results.js';
import { batchFailureMessage, batchMarkdown, batchSummary, toolErrorText } from '../../steps/kinds/sql-batch.js';
import type { QueryOutcome } from '../../steps/kinds/sql-batch.js';
import { tempDir } from '../../testkit/tmp.js';

const REGIONS: QueryResult = {
  columns: [{ name: 'region', type: 'VARCHAR' }, { name: 'revenue', type: 'DECIMAL(18,2)' }, { name: 'orders', type: 'BIGINT' }],
  rows: [['Nord', 132950.29, 80], ['Süd', 96446.96, 70], ['West', 98812.61, 75], ['Ost', 108138.61, 75]],
  rowCount: 4,
  truncated: false,
};

const BATCH: SqlBatchFile = {
  version: 1,
  kind: 'sql_batch',
  queries: [
    { index: 1, question: 'What is the revenue per region?', sql: 'SELECT region, SUM(amount) AS revenue, COUNT(*) AS orders FROM sales GROUP BY 1', ...REGIONS },
    {
      index: 2, question: 'First and last invoice', sql: 'SELECT MIN(issued), MAX(issued), bool_or(paid) FROM invoices',
      columns: [{ name: 'first', type: 'DATE' }, { name: 'last', type: 'TIMESTAMP' }, { name: 'any_paid', type: 'BOOLEAN' }],
      rows: [['2026-01-02', '2026-06-30 17:45:00.125', true]], rowCount: 1, truncated: true,
    },
  ],
};

const PROFILE: TableProfileFile = {
  version: 1,
  kind: 'table_profile',
  tables: [{
    table: { name: 'bakery_invoices', source: 'data/bakery.xlsx', sheet: 'Invoices', rowCount: 200, columnCount: 2 },
    columns: [
      { name: 'Net', type: 'DOUBLE', nulls: 0, distinct: 198, min: 12.5, max: 9876.5, mean: 4660.9, top: [{ value: 100, count: 2 }] },
      { name: 'Issued', type: 'DATE', nulls: 1, distinct: 150, min: '2026-01-02', max: '2026-06-30', mean: null, top: [] },
    ],
    notes: ['a title row above the header was skipped'],
  }],
  skipped: [{ source: 'data/broken.csv', error: 'not a table' }],
};

function thrown(fn: () => unknown): KowalskiError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof KowalskiError, String(err));
    return err;
  }
  assert.fail('expected a throw');
}

describe('the data types and files', () => {
  test('DuckDB types map to how they are shown: numbers, dates, timestamps, booleans, text', () => {
    for (const t of ['INTEGER', 'BIGINT', 'HUGEINT', 'UBIGINT', 'SMALLINT', 'TINYINT', 'DOUBLE', 'FLOAT', 'REAL', 'DECIMAL(18,2)', 'decimal(4,1)', 'NUMERIC']) {
      assert.equal(kindOfType(t), 'number', t);
    }
    assert.equal(kindOfType('DATE'), 'date');
    for (const t of ['TIMESTAMP', 'TIMESTAMP_NS', 'TIMESTAMP WITH TIME ZONE', 'TIMESTAMPTZ']) assert.equal(kindOfType(t), 'timestamp', t);
    assert.equal(kindOfType('BOOLEAN'), 'boolean');
    for (const t of ['VARCHAR', 'TIME', 'INTERVAL', 'INTEGER[]', 'STRUCT(a INTEGER)', 'BLOB', 'UUID']) {
      assert.equal(kindOfType(t), t === 'INTEGER[]' ? 'number' : 'text', t);
    }
  });

  test('jsonPathFor puts the JSON beside the Markdown artifact', () => {
    assert.equal(jsonPathFor('results/run.md'), 'results/run.json');
    assert.equal(jsonPathFor('profile.md'), 'profile.json');
    assert.equal(jsonPathFor('a.b/notes'), 'a.b/notes.json');
    assert.equal(jsonPathFor('report.xlsx'), 'report.json');
  });

  test('a results file reads back exactly as written, both kinds', (t) => {
    const dir = tempDir(t);
    for (const file of [BATCH, PROFILE]) {
      const p = path.join(dir, `${file.kind}.json`);
      fs.writeFileSync(p, resultsJson(file));
      assert.deepEqual(readResultsFile(p), file);
    }
  });

  test('anything else is KW_ERR_REPORT_INPUT naming the file and what is wrong', (t) => {
    const dir = tempDir(t);
    const cases: Array<{ text: string; says: RegExp }> = [
      { text: '{"version": 1, "kind": "sql_batch", "queries": [', says: /is not JSON/ },
      { text: '[1, 2]', says: /the file should be an object, not an array/ },
      { text: '{"version": 2, "kind": "sql_batch", "queries": []}', says: /version should be 1, not number 2/ },
      { text: '{"version": 1, "kind": "chart", "queries": []}', says: /kind should be "sql_batch" or "table_profile", not the string "chart"/ },
      { text: JSON.stringify({ ...BATCH, queries: [{ ...BATCH.queries[0], rows: [['Nord', 1]] }] }), says: /queries\[0\]\.rows\[0\] has 2 cells, but there are 3 columns/ },
      { text: JSON.stringify({ ...BATCH, queries: [{ ...BATCH.queries[0], rows: [['Nord', { sum: 1 }, 3]] }] }), says: /queries\[0\]\.rows\[0\]\[1\] should be a string, number, boolean or null, not an object/ },
      { text: JSON.stringify({ ...BATCH, queries: [{ ...BATCH.queries[0], truncated: 'no' }] }), says: /queries\[0\]\.truncated should be true or false/ },
      { text: JSON.stringify({ ...PROFILE, tables: [{ ...PROFILE.tables[0], table: { name: 'x', source: 's', rowCount: -1, columnCount: 1 } }] }), says: /tables\[0\]\.table\.rowCount should be a whole number ≥ 0, not number -1/ },
    ];
    for (const [i, c] of cases.entries()) {
      const p = path.join(dir, `bad-${i}.json`);
      fs.writeFileSync(p, c.text);
      const err = thrown(() => readResultsFile(p, `results/bad-${i}.json`));
      assert.equal(err.code, 'KW_ERR_REPORT_INPUT');
      assert.ok(err.message.startsWith(`results/bad-${i}.json `), err.message);
      assert.match(err.message, c.says);
      assert.deepEqual(err.where, { file: `results/bad-${i}.json` });
    }
    const missing = thrown(() => readResultsFile(path.join(dir, 'none.json'), 'results/none.json'));
    assert.equal(missing.code, 'KW_ERR_REPORT_INPUT');
    assert.equal(missing.message, 'results/none.json does not exist');
  });

  test('checkQueryResult passes a query result through and refuses anything else with the given code', () => {
    assert.deepEqual(checkQueryResult(REGIONS, 'KW_ERR_TOOL_FAILED', 'the answer'), REGIONS);
    const err = thrown(() => checkQueryResult({ columns: [], rows: [], rowCount: 0 }, 'KW_ERR_TOOL_FAILED', "query_sql's answer"));
    assert.equal(err.code, 'KW_ERR_TOOL_FAILED');
    assert.equal(err.message, "query_sql's answer is not a query result: truncated is missing (it should be true or false)");
  });
});

describe('a result as Markdown', () => {
  test('a GFM table: numeric columns right-aligned, | escaped, line breaks shown, null empty', () => {
    const result: QueryResult = {
      columns: [{ name: 'name|alias', type: 'VARCHAR' }, { name: 'n', type: 'INTEGER' }, { name: 'ok', type: 'BOOLEAN' }, { name: 'note', type: 'VARCHAR' }],
      rows: [['a|b', 1, true, 'line one\nline two'], [null, null, false, ''], ['big', 1.5, null, '9007199254740993']],
      rowCount: 3,
      truncated: false,
    };
    assert.equal(markdownTable(result), [
      '| name\\|alias | n | ok | note |',
      '|---|---:|---|---|',
      '| a\\|b | 1 | true | line one↵line two |',
      '|  |  | false |  |',
      '| big | 1.5 |  | 9007199254740993 |',
    ].join('\n'));
  });

  test('at most maxRows rows are shown, and the rest are counted', () => {
    const table = markdownTable(REGIONS, 2);
    assert.equal(table.split('\n').filter((l) => l.startsWith('| ')).length, 3, 'the header and two rows');
    assert.ok(table.endsWith('\n\n… 2 more rows in the JSON'), table);
    assert.ok(markdownTable(REGIONS, 3).endsWith('… 1 more row in the JSON'));
    assert.ok(!markdownTable(REGIONS, 4).includes('more'));
  });

  test('no rows and no columns say so', () => {
    assert.equal(markdownTable({ ...REGIONS, rows: [], rowCount: 0 }), '| region | revenue | orders |\n|---|---:|---:|\n\n_(no rows)_');
    assert.equal(markdownTable({ columns: [], rows: [], rowCount: 0, truncated: false }), '_(no columns)_');
  });
});

describe('sql_batch: what it writes and says', () => {
  const ok: QueryOutcome = { index: 1, question: 'Revenue per region?', sql: 'SELECT region, SUM(amount) AS revenue\nFROM sales GROUP BY 1', line: 3, result: REGIONS };
  const badColumn: QueryOutcome = {
    index: 2, question: 'Invoices', sql: 'SELECT SUM(amount_usd) FROM invoices', line: 9,
    error: toolErrorText('data.query_sql reported an error: [KW_ERR_DATA_SQL] Binder Error: Referenced column "amount_usd" not found in FROM clause!\nCandidate bindings: "amount"'),
  };
  const badTable: QueryOutcome = {
    index: 3, question: 'Stock', sql: 'SELECT * FROM stok', line: 15,
    error: toolErrorText('data.query_sql reported an error: [KW_ERR_DATA_SQL] Catalog Error: Table with name stok does not exist!'),
  };

  test('the data tool\'s prefix is stripped, DuckDB\'s text kept', () => {
    assert.equal(badColumn.error, '[KW_ERR_DATA_SQL] Binder Error: Referenced column "amount_usd" not found in FROM clause!\nCandidate bindings: "amount"');
    assert.equal(toolErrorText('warehouse.query_sql reported an error: boom'), 'boom');
    assert.equal(toolErrorText('no prefix here'), 'no prefix here');
  });

  test('the failure message lists every failed query: question, line of its fence, SQL, and the error', () => {
    assert.equal(batchFailureMessage('plan.md', [ok, badColumn, badTable]), [
      '2 of 3 queries in plan.md failed:',
      '',
      'Query 2, "Invoices" (plan.md, line 9):',
      '    SELECT SUM(amount_usd) FROM invoices',
      '  Error: [KW_ERR_DATA_SQL] Binder Error: Referenced column "amount_usd" not found in FROM clause!',
      '  Candidate bindings: "amount"',
      '',
      'Query 3, "Stock" (plan.md, line 15):',
      '    SELECT * FROM stok',
      '  Error: [KW_ERR_DATA_SQL] Catalog Error: Table with name stok does not exist!',
    ].join('\n'));
  });

  test('the summary counts queries and rows, or names the failed queries', () => {
    assert.equal(batchSummary([ok, { ...ok, index: 2, result: { ...REGIONS, rows: [], rowCount: 0 } }]), '2 queries, 4 rows');
    assert.equal(batchSummary([ok]), '1 query, 4 rows');
    assert.equal(batchSummary([ok, badColumn, badTable]), '2 of 3 queries failed: Invoices (line 9), Stock (line 15)');
  });

  test('the Markdown shows each query with its SQL and table, or its error in place of the table', () => {
    const md = batchMarkdown('Run the queries', 'plan.md', [ok, badColumn], ['the sql block at line 20 holds no statement (only whitespace or comments): skipped']);
    assert.ok(md.startsWith('# SQL results: Run the queries\n\n**1 of 2 queries failed** — each error is shown under its query. Fix those queries in `plan.md`.\n'), md);
    assert.ok(md.includes('- the sql block at line 20 holds no statement'));
    assert.ok(md.includes('## Revenue per region?\n\n```sql\nSELECT region, SUM(amount) AS revenue\nFROM sales GROUP BY 1\n```\n\n| region | revenue | orders |'), md);
    assert.ok(md.includes('| Nord | 132950.29 | 80 |'));
    assert.ok(md.includes('4 rows.'));
    assert.ok(md.includes('## Invoices\n\n```sql\nSELECT SUM(amount_usd) FROM invoices\n```\n\n**Error** — query 2, at line 9 of `plan.md`:\n\n```text\n[KW_ERR_DATA_SQL] Binder Error: Referenced column "amount_usd" not found'), md);
    const passed = batchMarkdown('Run', 'plan.md', [ok, { ...ok, index: 2, question: 'Capped', result: { ...REGIONS, truncated: true } }], []);
    assert.ok(passed.includes('Every query of `plan.md` ran: 2 queries, 8 rows.'), passed);
    assert.ok(passed.includes('> **Truncated:** the data tool returned only these 4 rows; the rest were not returned.'));
    assert.equal(passed.match(/Truncated/g)?.length, 1, 'only the truncated result says so');
  });
});
