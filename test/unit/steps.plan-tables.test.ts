import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import type { TableInfo } from '../../agents/index.js';
import { expandTablePlaceholders, tablePlaceholders } from '../../steps/plan-tables.js';

const table = (name: string, source: string, sheet?: string): TableInfo => ({ name, source, rowCount: 1, columnCount: 1, ...(sheet === undefined ? {} : { sheet }) });
const TABLES = [table('my_stocks', 'watchlist/My stocks.csv'), table('closes', 'prices/closes.csv'), table('book_a', 'book/book.xlsx', 'A'), table('book_b', 'book/book.xlsx', 'B')];
const where = { file: 'queries/plan.md' };

test('{{table:<input>}} is the one table served from that input, wherever and however often it is written', () => {
  const plan = 'SELECT * FROM {{table:watchlist}} w JOIN {{ table:prices }} p USING (symbol) WHERE w.symbol IN (SELECT symbol FROM {{table:watchlist}})';
  assert.deepEqual(tablePlaceholders(plan), ['watchlist', 'prices']);
  assert.equal(expandTablePlaceholders(plan, TABLES, where),
    'SELECT * FROM my_stocks w JOIN closes p USING (symbol) WHERE w.symbol IN (SELECT symbol FROM my_stocks)');
  assert.equal(expandTablePlaceholders('SELECT 1', [], where), 'SELECT 1', 'a plan without placeholders needs no tables');
  // An input whose id is a prefix of another's folder is not that folder.
  assert.throws(() => expandTablePlaceholders('FROM {{table:watch}}', TABLES, where), /input `watch` gave no table/);
});

test('an input that gives no table, or several, is KW_ERR_INPUT_INVALID naming what it gave', () => {
  assert.throws(() => expandTablePlaceholders('FROM {{table:missing}}', TABLES, where), (err: unknown) => {
    assert.ok(err instanceof KowalskiError);
    assert.equal(err.code, 'KW_ERR_INPUT_INVALID');
    assert.match(err.message, /^input `missing` gave no table \(no spreadsheet file the data tool could read\); the plan's \{\{table:missing\}\} needs exactly one$/);
    return true;
  });
  assert.throws(() => expandTablePlaceholders('FROM {{table:book}}', TABLES, where),
    /input `book` gave 2 tables \(book_a from book\/book\.xlsx, sheet A; book_b from book\/book\.xlsx, sheet B\)/);
});
