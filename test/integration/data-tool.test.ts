/**
 * `kowalski mcp serve data` as any MCP client meets it: the real CLI, started by the SDK's
 * stdio client (and reached over Streamable HTTP), on copies of the spreadsheet fixtures
 * in a temp folder. Every figure is compared, exactly, with test/fixtures/spreadsheets/answers.json.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DATA_TOOL_NAMES } from '../../agents/index.js';
import type { DataValue, DescribeTableResult, ListTablesResult, QueryResult } from '../../agents/index.js';
import { call, callError } from '../support/mcp-tools.js';
import { REPO, cli, cliSandbox, outputOf, startCli } from '../../testkit/cli.js';
import { cliArgs } from '../../testkit/dist.js';
import { cleanups } from '../../testkit/cleanup.js';

const SHEETS = path.join(REPO, 'test', 'fixtures', 'spreadsheets');
const ANSWERS = JSON.parse(fs.readFileSync(path.join(SHEETS, 'answers.json'), 'utf8')) as {
  'sales-eu.csv': { rows: number; sum_qty: number; revenue_qty_x_price: number; by_region_revenue: Record<string, number> };
  'orders-us.csv': { rows: number; sum_amount: number };
  'orders.parquet': { rows: number; sum_amount: number };
  'bakery.xlsx': {
    sheets: string[]; invoices: number; net_total: number; vat_total: number; net_by_customer: Record<string, number>;
    'invoices_due_before_2026-09-01': number; stock_rows: number; stock_on_hand_numeric_rows: number; stock_on_hand_sum: number;
  };
};
const TOKEN = 'kw-data-test-token';

/** A data root: the fixtures, two files that cannot be read, names that collide, a file to edit, things to ignore. */
function makeRoot(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'kw-data-tool-')));
  for (const f of ['bakery.xlsx', 'sales-eu.csv', 'orders-us.csv', 'orders.parquet']) fs.copyFileSync(path.join(SHEETS, f), path.join(root, f));
  fs.writeFileSync(path.join(root, 'broken.parquet'), 'this is not parquet');
  fs.writeFileSync(path.join(root, 'broken.xlsx'), 'this is not a zip');
  for (const year of ['2025', '2026']) {
    fs.mkdirSync(path.join(root, 'archive', year), { recursive: true });
    fs.writeFileSync(path.join(root, 'archive', year, 'sales.csv'), `month,total\n1,${year}.50\n`);
  }
  fs.writeFileSync(path.join(root, 'sales.csv'), 'month,total\n1,10\n');
  fs.writeFileSync(path.join(root, 'report.csv'), 'k,v\na,1\n');
  fs.writeFileSync(path.join(root, 'report.json'), '[{"k":"b","v":2}]');
  fs.mkdirSync(path.join(root, 'live'));
  fs.writeFileSync(path.join(root, 'live', 'live.csv'), 'k,v\na,1\n');
  fs.mkdirSync(path.join(root, '.cache'));
  fs.writeFileSync(path.join(root, '.cache', 'hidden.csv'), 'k\n1\n');
  fs.writeFileSync(path.join(root, 'README.md'), 'not data');
  return root;
}

async function rows(client: Client, sql: string): Promise<DataValue[][]> {
  return (await call<QueryResult>(client, 'query_sql', { sql })).rows;
}

function byKey(pairs: DataValue[][]): Record<string, DataValue> {
  return Object.fromEntries(pairs.map(([k, v]) => [String(k), v ?? null]));
}

async function stdioClient(root: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...cliArgs(), 'mcp', 'serve', 'data', '--root', root],
    cwd: REPO,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'data-tool-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('kowalski mcp serve data', { concurrency: true }, () => {
  describe('over stdio', () => {
    let root = '';
    let client: Client;
    before(async () => {
      root = makeRoot();
      client = await stdioClient(root);
    });
    after(async () => {
      await client.close();
      fs.rmSync(root, { recursive: true, force: true });
    });

    it('offers list_tables, describe_table and query_sql, each with an input and an output schema', async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), [...DATA_TOOL_NAMES]);
      for (const t of tools) {
        assert.equal(t.outputSchema?.type, 'object', t.name);
        assert.equal(t.annotations?.readOnlyHint, true, t.name);
      }
      const query = tools.find((t) => t.name === 'query_sql');
      assert.deepEqual(query?.inputSchema.required, ['sql']);
      assert.ok(query?.inputSchema.properties !== undefined && 'max_rows' in query.inputSchema.properties);
    });

    it('list_tables: a table per file and per sheet, named by the rules; unreadable files skipped, the rest served', async () => {
      const list = await call<ListTablesResult>(client, 'list_tables');
      assert.deepEqual(list.tables.map((t) => [t.name, t.source, t.sheet ?? null, t.rowCount, t.columnCount]), [
        ['t_2025_sales', 'archive/2025/sales.csv', null, 1, 2],
        ['t_2026_sales', 'archive/2026/sales.csv', null, 1, 2],
        ['bakery_invoices', 'bakery.xlsx', 'Invoices', 200, 6],
        ['bakery_stock', 'bakery.xlsx', 'Stock', 60, 5],
        ['live', 'live/live.csv', null, 1, 2],
        ['orders_us', 'orders-us.csv', null, 300, 5],
        ['orders', 'orders.parquet', null, 300, 5],
        ['report', 'report.csv', null, 1, 2],
        ['report_2', 'report.json', null, 1, 2],
        ['sales_eu', 'sales-eu.csv', null, 300, 5],
        ['sales', 'sales.csv', null, 1, 2],
      ]);
      assert.deepEqual(list.skipped.map((s) => s.source), ['broken.parquet', 'broken.xlsx']);
      for (const s of list.skipped) assert.ok(s.error.length > 10, s.error);
      assert.deepEqual(await rows(client, 'SELECT (SELECT total FROM t_2025_sales), (SELECT total FROM t_2026_sales), (SELECT total FROM sales)'), [[2025.5, 2026.5, 10]]);
    });

    it('the CSV and Parquet figures equal answers.json, exactly', async () => {
      const eu = ANSWERS['sales-eu.csv'];
      assert.deepEqual(await rows(client, 'SELECT count(*), sum("Menge"), sum("Menge" * "Preis") FROM sales_eu'), [[eu.rows, eu.sum_qty, eu.revenue_qty_x_price]]);
      assert.deepEqual(byKey(await rows(client, 'SELECT "Region", sum("Menge" * "Preis") FROM sales_eu GROUP BY 1')), eu.by_region_revenue);
      const us = ANSWERS['orders-us.csv'];
      assert.deepEqual(await rows(client, 'SELECT count(*), sum(amount) FROM orders_us'), [[us.rows, us.sum_amount]]);
      const pq = ANSWERS['orders.parquet'];
      assert.deepEqual(await rows(client, 'SELECT count(*), sum(amount) FROM orders'), [[pq.rows, pq.sum_amount]]);
    });

    it('the workbook figures equal answers.json, exactly: the TOTAL row is not counted, n/a is not a number', async () => {
      const b = ANSWERS['bakery.xlsx'];
      assert.deepEqual(await rows(client, 'SELECT count(*), sum("Net"), sum("VAT 23%") FROM bakery_invoices'), [[b.invoices, b.net_total, b.vat_total]]);
      assert.deepEqual(byKey(await rows(client, 'SELECT "Customer", sum("Net") FROM bakery_invoices GROUP BY 1')), b.net_by_customer);
      assert.deepEqual(await rows(client, `SELECT count(*) FROM bakery_invoices WHERE "Due" < DATE '2026-09-01'`), [[b['invoices_due_before_2026-09-01']]]);
      assert.deepEqual(await rows(client, 'SELECT count(*), count(on_hand), sum(on_hand) FROM bakery_stock'), [[b.stock_rows, b.stock_on_hand_numeric_rows, b.stock_on_hand_sum]]);
    });

    it('describe_table: types, statistics, and notes of what the loader did', async () => {
      const inv = await call<DescribeTableResult>(client, 'describe_table', { table: 'bakery_invoices' });
      assert.deepEqual(inv.table, { name: 'bakery_invoices', source: 'bakery.xlsx', sheet: 'Invoices', rowCount: 200, columnCount: 6 });
      assert.deepEqual(inv.columns.map((c) => [c.name, c.type]), [
        ['Invoice', 'VARCHAR'], ['Customer', 'VARCHAR'], ['Issued', 'DATE'], ['Due', 'DATE'], ['Net', 'DECIMAL(18,2)'], ['VAT 23%', 'DECIMAL(18,2)'],
      ]);
      assert.deepEqual(inv.notes, [
        'row 1 above the header (row 2) skipped as a title',
        'blank row 203 skipped',
        'row 204 ("TOTAL") after a blank row left out as a summary row',
      ]);
      const customer = inv.columns[1];
      assert.equal(customer?.distinct, 5);
      assert.equal(customer?.nulls, 0);
      assert.deepEqual(customer?.top[0], { value: 'Nordic Rye AB', count: 53 });
      assert.equal(customer?.top.reduce((s, x) => s + x.count, 0), 200);
      const net = inv.columns[4];
      assert.ok(Math.abs((net?.mean ?? 0) - ANSWERS['bakery.xlsx'].net_total / 200) < 1e-9, String(net?.mean));
      assert.equal(typeof net?.min, 'number');
      assert.deepEqual(net?.top, [], 'no top values for a column whose values do not repeat');

      const stock = await call<DescribeTableResult>(client, 'describe_table', { table: 'bakery_stock' });
      const onHand = stock.columns.find((c) => c.name === 'on_hand');
      assert.deepEqual([onHand?.type, onHand?.nulls], ['BIGINT', 2], 'the two on_hand cells without a number are NULL');
      assert.ok(stock.notes.some((n) => /^`last_count`: \d+ date-times rounded to the nearest second$/.test(n)), stock.notes.join('\n'));
      assert.equal(stock.columns.find((c) => c.name === 'last_count')?.max, '2026-11-28 11:00:00');

      const eu = await call<DescribeTableResult>(client, 'describe_table', { table: 'sales_eu' });
      assert.deepEqual(eu.columns.map((c) => [c.name, c.type]), [['Nr', 'BIGINT'], ['Datum', 'DATE'], ['Region', 'VARCHAR'], ['Menge', 'BIGINT'], ['Preis', 'DECIMAL(18,2)']]);
      assert.deepEqual(eu.notes, ['`Datum`: dates dd.mm.yyyy read as DATE', '`Preis`: decimal commas read as DECIMAL(18,2)']);

      const us = await call<DescribeTableResult>(client, 'describe_table', { table: 'orders_us' });
      assert.deepEqual(us.columns.map((c) => [c.name, c.type]), [['order_id', 'BIGINT'], ['customer', 'VARCHAR'], ['note', 'VARCHAR'], ['amount', 'DECIMAL(18,2)'], ['ordered_at', 'DATE']]);
      assert.deepEqual(us.notes, [
        "DuckDB's CSV sniffer refused the file with its default settings: read with strict_mode=false",
        '`amount`: thousands separators (1,788.72) read as DECIMAL(18,2)',
      ]);
      assert.ok(us.columns[1]?.top.some((x) => x.value === 'Acme "Best" Corp'), 'doubled quotes are read as one');
      assert.equal(us.columns[2]?.nulls, 96, 'empty notes are NULL');
    });

    it('describe_table of an unknown table names it and lists the tables there are', async () => {
      const text = await callError(client, 'describe_table', { table: 'invoices' });
      assert.match(text, /^\[KW_ERR_DATA_TABLE_UNKNOWN\] no table named "invoices"; the tables are: .*bakery_invoices/);
    });

    it("a query naming a missing column returns DuckDB's error, which names the column and the candidates", async () => {
      const text = await callError(client, 'query_sql', { sql: 'SELECT sum(amount_usd) FROM orders_us' });
      assert.match(text, /^\[KW_ERR_DATA_SQL\] Binder Error: Referenced column "amount_usd" not found in FROM clause!/);
      assert.match(text, /"amount"/);
    });

    it('refuses anything but one read-only statement, and nothing is written', async () => {
      const out = path.join(root, 'out');
      const refused = [
        `SELECT * FROM read_csv('/etc/passwd')`,
        `COPY (SELECT 1) TO '${out}.csv'`,
        `ATTACH '${out}.db'`,
        'INSTALL httpfs',
        'SET enable_external_access = true',
        'CREATE TABLE x (a INTEGER)',
        'DROP TABLE orders',
        'INSERT INTO orders SELECT * FROM orders',
        'SELECT 1; DROP TABLE orders',
        'EXPLAIN ANALYZE CREATE TABLE y AS SELECT 1',
      ];
      for (const sql of refused) {
        const text = await callError(client, 'query_sql', { sql });
        assert.match(text, /^\[KW_ERR_DATA_READ_ONLY\] /, `${sql}\n${text}`);
      }
      assert.match(await callError(client, 'query_sql', { sql: 'DROP TABLE orders' }), /a DROP statement/);
      assert.match(await callError(client, 'query_sql', { sql: 'SELECT 1; DROP TABLE orders' }), /2 statements/);
      assert.match(await callError(client, 'query_sql', { sql: `SELECT * FROM read_csv('/etc/passwd')` }), /Permission Error/);
      assert.equal(fs.existsSync(`${out}.csv`), false);
      assert.equal(fs.existsSync(`${out}.db`), false);
      assert.deepEqual(await rows(client, 'SELECT count(*) FROM orders'), [[300]]);
      assert.deepEqual(await rows(client, "SELECT count(*) FROM duckdb_tables() WHERE table_name IN ('x', 'y')"), [[0]]);
      assert.deepEqual(await rows(client, "SELECT current_setting('enable_external_access'), current_setting('lock_configuration')"), [[false, true]]);
    });

    it('bounds results: max_rows (default 1000, at most 10,000), truncated when there was more', async () => {
      const capped = await call<QueryResult>(client, 'query_sql', { sql: 'SELECT range AS i FROM range(5000)', max_rows: 100 });
      assert.deepEqual([capped.rowCount, capped.rows.length, capped.truncated], [100, 100, true]);
      assert.deepEqual(capped.columns, [{ name: 'i', type: 'BIGINT' }]);
      const byDefault = await call<QueryResult>(client, 'query_sql', { sql: 'SELECT * FROM range(2000)' });
      assert.deepEqual([byDefault.rowCount, byDefault.truncated], [1000, true]);
      const atMost = await call<QueryResult>(client, 'query_sql', { sql: 'SELECT * FROM range(20000)', max_rows: 50_000 });
      assert.deepEqual([atMost.rowCount, atMost.truncated], [10_000, true]);
      const exact = await call<QueryResult>(client, 'query_sql', { sql: 'SELECT * FROM range(100)', max_rows: 100 });
      assert.deepEqual([exact.rowCount, exact.truncated], [100, false]);
    });

    it('sees a file edited between two queries', async () => {
      assert.deepEqual(await rows(client, 'SELECT sum(v) FROM live'), [[1]]);
      fs.writeFileSync(path.join(root, 'live', 'live.csv'), 'k,v\na,1\nb,41\n');
      assert.deepEqual(await rows(client, 'SELECT sum(v), count(*) FROM live'), [[42, 2]]);
    });
  });

  describe('over Streamable HTTP', () => {
    it('answers at /mcp; with --token, a client without the token (or with a wrong one) is refused; SIGTERM ends it', async (t) => {
      const root = makeRoot();
      cleanups(t)(() => fs.rmSync(root, { recursive: true, force: true }));
      const { home } = cliSandbox(t);
      const server = startCli(home, ['mcp', 'serve', 'data', '--root', root, '--http', '--port', '0', '--token', TOKEN]);
      cleanups(t)(() => server.child.kill('SIGKILL'));
      const line = await server.stderrLine(/listening on http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const url = new URL(line.slice(line.indexOf('http')));

      const client = new Client({ name: 'data-tool-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
      const list = await call<ListTablesResult>(client, 'list_tables');
      assert.ok(list.tables.some((x) => x.name === 'bakery_invoices'));
      assert.deepEqual(await rows(client, 'SELECT sum(amount) FROM orders_us'), [[ANSWERS['orders-us.csv'].sum_amount]]);
      await client.close();

      for (const headers of [{}, { Authorization: 'Bearer wrong' }] as Record<string, string>[]) {
        const stranger = new Client({ name: 'stranger', version: '1.0.0' });
        await assert.rejects(stranger.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } })), /401|bearer token/i);
      }
      const rebound = await new Promise<number>((resolve, reject) => {
        const req = http.request(url, { method: 'POST', headers: { host: 'evil.example', authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end('{}');
      });
      assert.equal(rebound, 403, 'a Host header naming another site is refused (DNS rebinding)');

      server.child.kill('SIGTERM');
      const done = await server.exited;
      assert.equal(done.code, 0, outputOf(done));
      assert.equal(done.stdout, '');
    });
  });

  describe('the command', () => {
    it('ends cleanly when its stdin closes, having printed nothing on stdout', async (t) => {
      const { home, root } = cliSandbox(t);
      const r = await cli(home, ['mcp', 'serve', 'data', '--root', root]);
      assert.equal(r.code, 0, outputOf(r));
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /0 tables from /);
    });

    it("is reached by kowalski's own MCP client as a [[mcp.servers]] entry (mcp check)", async (t) => {
      const { home, root } = cliSandbox(t);
      fs.mkdirSync(home, { recursive: true });
      fs.copyFileSync(path.join(SHEETS, 'sales-eu.csv'), path.join(root, 'sales-eu.csv'));
      fs.writeFileSync(path.join(home, 'config.toml'), [
        '[[mcp.servers]]',
        'name = "data"',
        `command = ${JSON.stringify(process.execPath)}`,
        `args = ${JSON.stringify([...cliArgs(), 'mcp', 'serve', 'data', '--root', root])}`,
        `cwd = ${JSON.stringify(REPO)}`,
        '',
      ].join('\n'));
      const r = await cli(home, ['mcp', 'check', '--json']);
      assert.equal(r.code, 0, outputOf(r));
      const check = JSON.parse(r.stdout) as { servers: { name: string; ok: boolean; tools: { name: string }[] }[] };
      assert.deepEqual(check.servers.map((s) => [s.name, s.ok, s.tools.map((x) => x.name)]), [['data', true, [...DATA_TOOL_NAMES]]]);
    });

    it('refuses an unknown server, naming the choices; a missing root; and --http without a token, on loopback too (exit 2)', async (t) => {
      const { home, root } = cliSandbox(t);
      const [unknown, missing, open, local] = await Promise.all([
        cli(home, ['mcp', 'serve', 'rookery-x']),
        cli(home, ['mcp', 'serve', 'data', '--root', path.join(root, 'nope')]),
        cli(home, ['mcp', 'serve', 'data', '--root', root, '--http', '--host', '0.0.0.0']),
        cli(home, ['mcp', 'serve', 'data', '--root', root, '--http'], { env: { KOWALSKI_MCP_TOKEN: undefined } }),
      ]);
      assert.equal(local.code, 2, outputOf(local));
      assert.match(local.stderr, /--http needs --token .*on loopback too.*\[KW_ERR_USAGE\]/);
      assert.equal(unknown.code, 2, outputOf(unknown));
      assert.match(unknown.stderr, /Allowed choices are data/);
      assert.equal(missing.code, 2, outputOf(missing));
      assert.match(missing.stderr, /does not exist \[KW_ERR_DATA_ROOT\]/);
      assert.equal(open.code, 2, outputOf(open));
      assert.match(open.stderr, /--token.*\[KW_ERR_USAGE\]/);
    });
  });
});
