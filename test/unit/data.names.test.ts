/** How the data tool names tables and columns: the rules a model and a horde author rely on to write SQL. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { columnNames, sqlName, tableNames } from '../../agents/data/index.js';

describe('sqlName', () => {
  it('lower-cases, turns runs of other characters into one _, trims _', () => {
    assert.equal(sqlName('Sales 2026'), 'sales_2026');
    assert.equal(sqlName('orders-us'), 'orders_us');
    assert.equal(sqlName('  Q1 -- (final)!! '), 'q1_final');
    assert.equal(sqlName('__x__'), 'x');
  });

  it('drops accents rather than the letters under them', () => {
    assert.equal(sqlName('Süd Umsätze'), 'sud_umsatze');
    assert.equal(sqlName('Café Münster'), 'cafe_munster');
  });

  it('gives t_ to a name that starts with a digit or is an SQL keyword, and t to an empty one', () => {
    assert.equal(sqlName('2026'), 't_2026');
    assert.equal(sqlName('2026 Plan'), 't_2026_plan');
    assert.equal(sqlName('Order'), 't_order');
    assert.equal(sqlName('select'), 't_select');
    assert.equal(sqlName('orders'), 'orders', 'only exact keywords');
    assert.equal(sqlName('€€'), 't');
  });
});

describe('tableNames', () => {
  it('names a file by its stem and a sheet by <stem>_<sheet>', () => {
    assert.deepEqual(tableNames([
      { rel: 'Sales 2026.csv' },
      { rel: 'bakery.xlsx', sheet: 'Invoices' },
      { rel: 'bakery.xlsx', sheet: 'Stock' },
      { rel: 'deep/er/orders.parquet' },
    ]), ['sales_2026', 'bakery_invoices', 'bakery_stock', 'orders']);
  });

  it('prefixes colliding names by their parent folders, nearest first, until they differ', () => {
    assert.deepEqual(tableNames([
      { rel: 'sales.csv' },
      { rel: 'archive/2025/sales.csv' },
      { rel: 'archive/2026/sales.csv' },
      { rel: 'a/eu/x.csv' },
      { rel: 'b/eu/x.csv' },
    ]), ['sales', 't_2025_sales', 't_2026_sales', 'a_eu_x', 'b_eu_x']);
  });

  it('leaves alone the sources that do not collide', () => {
    assert.deepEqual(tableNames([{ rel: 'x/sales.csv' }, { rel: 'y/orders.csv' }]), ['sales', 'orders']);
  });

  it('gives _2, _3 in source path order to names still equal, whatever order they come in', () => {
    assert.deepEqual(tableNames([{ rel: 'report.json' }, { rel: 'Report.csv' }, { rel: 'report.csv' }]), ['report_3', 'report', 'report_2']);
    assert.deepEqual(tableNames([{ rel: 'a.csv' }, { rel: 'a.json' }, { rel: 'a_2.csv' }]), ['a', 'a_3', 'a_2'], 'a suffix never takes a name in use');
  });

  it('keeps a name made by a prefix from colliding with another file', () => {
    const names = tableNames([{ rel: 'eu_sales.csv' }, { rel: 'eu/sales.csv' }, { rel: 'sales.csv' }]);
    assert.equal(new Set(names).size, 3, names.join(', '));
    assert.equal(names[2], 'sales');
  });
});

describe('columnNames', () => {
  it('keeps header cells as written, without a byte-order mark or surrounding spaces', () => {
    assert.deepEqual(columnNames(['\uFEFFNr', 'VAT 23%', ' Preis ']), ['Nr', 'VAT 23%', 'Preis']);
  });

  it('names empty headers column_N (counting from 1) and repeats name_2, name_3, without case', () => {
    assert.deepEqual(columnNames(['id', '', null, 'amount', 'Amount', 'amount']), ['id', 'column_2', 'column_3', 'amount', 'Amount_2', 'amount_3']);
  });
});
