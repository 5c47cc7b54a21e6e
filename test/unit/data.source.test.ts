/**
 * The data tool in process (`openDataSource`), on real files in temp folders: the type
 * rules on CSV, TSV, JSON, NDJSON and xlsx variants, the bounds of the walk, the limits
 * of a query, and reloading when files change.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openDataSource } from '../../agents/data/index.js';
import type { DataSource, DataSourceOptions } from '../../agents/data/index.js';
import type { DescribeTableResult } from '../../agents/index.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';

const VARIANTS = fileURLToPath(new URL('../fixtures/data', import.meta.url));

async function open(t: TestContext, options: DataSourceOptions): Promise<DataSource> {
  const source = await openDataSource(options);
  cleanups(t)(() => source.close());
  return source;
}

function types(d: DescribeTableResult): Record<string, string> {
  return Object.fromEntries(d.columns.map((c) => [c.name, c.type]));
}

async function one(source: DataSource, sql: string): Promise<unknown[]> {
  const r = await source.querySql(sql);
  return r.rows[0] ?? [];
}

describe('openDataSource: the type rules on file variants', () => {
  it('serves every variant as a table, named after its file and sheet', async (t) => {
    const source = await open(t, { root: VARIANTS });
    const { tables, skipped } = await source.listTables();
    assert.deepEqual(skipped, []);
    assert.deepEqual(tables.map((x) => [x.name, x.source, x.sheet ?? null, x.rowCount, x.columnCount]), [
      ['de_thousands', 'de-thousands.csv', null, 3, 4],
      ['headers', 'headers.csv', null, 2, 5],
      ['no_header', 'no-header.csv', null, 2, 3],
      ['pairs', 'pairs.json', null, 2, 3],
      ['special_mixed', 'special.xlsx', 'Mixed', 4, 7],
      ['special_2026_plan', 'special.xlsx', '2026 Plan', 2, 2],
      ['stock', 'stock.tsv', null, 2, 3],
      ['us_dates', 'us-dates.csv', null, 3, 5],
      ['visits', 'visits.ndjson', null, 2, 3],
    ]);
  });

  it('reads thousands separators, decimal commas and dd.mm.yyyy times of a ; file, exactly', async (t) => {
    const source = await open(t, { root: VARIANTS });
    const d = await source.describeTable('de_thousands');
    assert.deepEqual(types(d), { Artikel: 'VARCHAR', Umsatz: 'DECIMAL(18,2)', Anteil: 'DECIMAL(18,2)', Stand: 'TIMESTAMP' });
    assert.deepEqual(d.notes, [
      '`Umsatz`: thousands separators and decimal commas (1.788,72) read as DECIMAL(18,2)',
      '`Anteil`: decimal commas read as DECIMAL(18,2)',
      '`Stand`: date-times dd.mm.yyyy hh:mm read as TIMESTAMP',
    ]);
    assert.deepEqual(await one(source, 'SELECT sum("Umsatz"), sum("Anteil"), max("Stand") FROM de_thousands'), [14818.82, 20.25, '2026-02-28 23:59:00']);
  });

  it('tells mm/dd from dd/mm only when a day is above 12, and keeps codes with leading zeros and text mixes as text', async (t) => {
    const source = await open(t, { root: VARIANTS });
    const d = await source.describeTable('us_dates');
    assert.deepEqual(types(d), { order: 'BIGINT', shipped: 'DATE', ordered: 'VARCHAR', zip: 'VARCHAR', score: 'VARCHAR' });
    assert.deepEqual(d.notes, [
      '`shipped`: dates mm/dd/yyyy read as DATE',
      '`ordered`: dates like 01/02/2026 could be day/month or month/day (no day above 12): left as text',
    ]);
    assert.deepEqual(await one(source, 'SELECT min(shipped), max(shipped), min(zip) FROM us_dates'), ['2026-01-31', '2026-12-01', '02134']);
  });

  it('names empty and repeated headers, and header-less columns', async (t) => {
    const source = await open(t, { root: VARIANTS });
    const headers = await source.describeTable('headers');
    assert.deepEqual(headers.columns.map((c) => c.name), ['id', 'column_2', 'amount', 'Amount_2', 'amount_3']);
    assert.equal(headers.notes.length, 3);
    const bare = await source.describeTable('no_header');
    assert.deepEqual(bare.columns.map((c) => c.name), ['column_1', 'column_2', 'column_3']);
    assert.deepEqual(await one(source, 'SELECT sum(column_3) FROM no_header'), [90]);
  });

  it('reads TSV, JSON and NDJSON, with decimals as DECIMAL so sums are exact', async (t) => {
    const source = await open(t, { root: VARIANTS });
    assert.deepEqual(types(await source.describeTable('stock')), { sku: 'VARCHAR', qty: 'BIGINT', price: 'DECIMAL(18,3)' });
    assert.deepEqual(types(await source.describeTable('pairs')), { k: 'VARCHAR', v: 'DECIMAL(18,2)', when: 'DATE' });
    assert.deepEqual(types(await source.describeTable('visits')), { city: 'VARCHAR', visits: 'BIGINT', spent: 'DECIMAL(18,2)' });
    assert.deepEqual(await one(source, 'SELECT (SELECT sum(price * qty) FROM stock), (SELECT sum(spent) FROM visits), (SELECT sum(v) FROM pairs)'), [48, 25.49, 3.75]);
  });

  it('types workbook cells: booleans, a text mix, rounded date-times, placeholders as NULL; a summary row left out', async (t) => {
    const source = await open(t, { root: VARIANTS });
    const d = await source.describeTable('special_mixed');
    assert.deepEqual(types(d), { flag: 'BOOLEAN', mix: 'VARCHAR', when: 'TIMESTAMP', qty: 'BIGINT', day: 'DATE', column_6: 'VARCHAR', note: 'VARCHAR' });
    assert.ok(d.notes.includes('row 7 ("Summe:") after a blank row left out as a summary row'), d.notes.join('\n'));
    assert.ok(d.notes.includes('`qty`: 2 text cells read as NULL in a numeric column ("-" ×1, "n/a" ×1)'), d.notes.join('\n'));
    assert.ok(d.notes.includes('column F has an empty header: named `column_6`'), d.notes.join('\n'));
    const r = await source.querySql('SELECT mix, "when", qty FROM special_mixed ORDER BY "when"');
    assert.deepEqual(r.rows, [['1', '2026-01-02 08:30:00', 5], ['two', '2026-01-03 00:00:00', null], ['3.5', '2026-01-04 17:45:00', null], [null, '2026-01-05 09:00:00', 7]]);
    assert.deepEqual(await one(source, 'SELECT sum("Target") FROM special_2026_plan'), [300.5]);
  });
});

describe('openDataSource: the walk', () => {
  it('skips dot-folders, node_modules and lock files, follows links inside the root, and lists links out as skipped', async (t) => {
    const root = tempDir(t, 'kw-data-walk-');
    const outside = tempDir(t, 'kw-data-outside-');
    fs.writeFileSync(path.join(outside, 'secret.csv'), 'k,v\nx,1\n');
    fs.mkdirSync(path.join(root, '.hidden'));
    fs.writeFileSync(path.join(root, '.hidden', 'h.csv'), 'k\n1\n');
    fs.mkdirSync(path.join(root, 'node_modules'));
    fs.writeFileSync(path.join(root, 'node_modules', 'm.csv'), 'k\n1\n');
    fs.writeFileSync(path.join(root, '~$book.xlsx'), 'lock');
    fs.writeFileSync(path.join(root, 'notes.txt'), 'not data');
    fs.mkdirSync(path.join(root, 'sub'));
    fs.writeFileSync(path.join(root, 'sub', 'data.csv'), 'k,v\na,1\n');
    fs.symlinkSync(path.join(root, 'sub', 'data.csv'), path.join(root, 'inside.csv'));
    fs.symlinkSync(path.join(outside, 'secret.csv'), path.join(root, 'escape.csv'));
    const source = await open(t, { root });
    const list = await source.listTables();
    assert.deepEqual(list.tables.map((x) => [x.name, x.source]), [['inside', 'inside.csv'], ['data', 'sub/data.csv']]);
    assert.deepEqual(list.skipped, [{ source: 'escape.csv', error: 'a symbolic link to outside the root: not read' }]);
  });

  it('reads at most maxFiles files and says so', async (t) => {
    const root = tempDir(t, 'kw-data-many-');
    for (const name of ['a', 'b', 'c']) fs.writeFileSync(path.join(root, `${name}.csv`), 'k\n1\n');
    const source = await open(t, { root, limits: { maxFiles: 2 } });
    const list = await source.listTables();
    assert.deepEqual(list.tables.map((x) => x.name), ['a', 'b']);
    assert.deepEqual(list.skipped.map((s) => s.source), ['c.csv']);
    assert.match(list.skipped[0]?.error ?? '', /more than 2 data files/);
  });

  it('refuses a root that is missing or not a folder', async (t) => {
    const root = tempDir(t, 'kw-data-root-');
    fs.writeFileSync(path.join(root, 'file.csv'), 'k\n1\n');
    await assert.rejects(openDataSource({ root: path.join(root, 'nope') }), { code: 'KW_ERR_DATA_ROOT' });
    await assert.rejects(openDataSource({ root: path.join(root, 'file.csv') }), { code: 'KW_ERR_DATA_ROOT', message: /not a folder/ });
  });
});

describe('openDataSource: limits and changes', () => {
  it('interrupts a query that runs past the time limit, and answers the next one', async (t) => {
    const root = tempDir(t, 'kw-data-slow-');
    const source = await open(t, { root, queryTimeoutMs: 300 });
    const started = Date.now();
    await assert.rejects(source.querySql('SELECT count(*) FROM range(1000000000000) t(x) WHERE x % 7 = 3'), { code: 'KW_ERR_DATA_TIMEOUT', message: /longer than 0.3 s/ });
    assert.ok(Date.now() - started < 10_000, 'interrupted, not run to the end');
    assert.deepEqual((await source.querySql('SELECT 42')).rows, [[42]]);
  });

  it('stops fetching at the byte limit', async (t) => {
    const root = tempDir(t, 'kw-data-bytes-');
    const source = await open(t, { root, maxResultBytes: 10_000 });
    const r = await source.querySql("SELECT i, repeat('x', 100) FROM range(1000) t(i)");
    assert.equal(r.truncated, true);
    assert.ok(r.rowCount > 50 && r.rowCount < 100, String(r.rowCount));
    assert.equal(r.rows.length, r.rowCount);
    assert.ok(JSON.stringify(r.rows).length <= 10_000);
  });

  it('sees a file edited, added and removed between calls', async (t) => {
    const root = tempDir(t, 'kw-data-live-');
    fs.writeFileSync(path.join(root, 'live.csv'), 'k,v\na,1\n');
    const source = await open(t, { root });
    assert.deepEqual(await one(source, 'SELECT sum(v) FROM live'), [1]);
    fs.writeFileSync(path.join(root, 'live.csv'), 'k,v\na,1\nb,41\n');
    assert.deepEqual(await one(source, 'SELECT sum(v) FROM live'), [42]);
    fs.writeFileSync(path.join(root, 'more.csv'), 'x\n7\n');
    assert.deepEqual((await source.listTables()).tables.map((x) => x.name), ['live', 'more']);
    fs.rmSync(path.join(root, 'live.csv'));
    await assert.rejects(source.querySql('SELECT * FROM live'), { code: 'KW_ERR_DATA_SQL', message: /live/ });
    await assert.rejects(source.describeTable('live'), { code: 'KW_ERR_DATA_TABLE_UNKNOWN', message: /the tables are: more/ });
  });
});
