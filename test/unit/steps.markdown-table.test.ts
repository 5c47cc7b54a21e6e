import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markdownTables, splitRow } from '../../steps/markdown-table.js';
import { tableCsv } from '../../steps/ingest-note.js';

const NOTE = `# My watchlist

Kept by hand; | a pipe in prose is not a table.

| symbol | quantity | alert_pct | note |
|:-------|---------:|:---------:|------|
| AAPL   | 10       | 2         | core \\| long |
MSFT | 5 | 1.5 | said "hold", for now
| NEWCO  | 100      |           |

Below the table, more words.
`;

test('the table of a note: header, alignment row skipped, cells trimmed, outer pipes optional, \\| a pipe, a short row filled with empty cells; the text around it ignored', () => {
  const tables = markdownTables(NOTE);
  assert.equal(tables.length, 1);
  const [t] = tables;
  assert.equal(t!.line, 5);
  assert.deepEqual(t!.header, ['symbol', 'quantity', 'alert_pct', 'note']);
  assert.deepEqual(t!.rows, [
    { line: 7, cells: ['AAPL', '10', '2', 'core | long'] },
    { line: 8, cells: ['MSFT', '5', '1.5', 'said "hold", for now'] },
    { line: 9, cells: ['NEWCO', '100', '', ''] },
  ]);
  assert.deepEqual(t!.problems, []);
  // As CSV: a cell with a comma or a quote is quoted, an empty cell is an empty field (NULL to the data tool).
  assert.equal(tableCsv(t!), 'symbol,quantity,alert_pct,note\nAAPL,10,2,core | long\nMSFT,5,1.5,"said ""hold"", for now"\nNEWCO,100,,\n');
});

test('no table: prose with pipes, a header without its delimiter row, a delimiter row of the wrong width, a table inside a code fence', () => {
  assert.deepEqual(markdownTables('just words\n\na | b\nno delimiter\n'), []);
  assert.deepEqual(markdownTables('| a | b |\n| --- |\n| 1 | 2 |\n'), []);
  assert.deepEqual(markdownTables('```\n| a | b |\n|---|---|\n| 1 | 2 |\n```\n'), []);
  assert.deepEqual(markdownTables('~~~md\n| a |\n|---|\n~~~\n'), []);
});

test('two tables are two, each with its line; a row with more cells than the header is a problem at its line', () => {
  const tables = markdownTables('| a | b |\n|---|---|\n| 1 | 2 |\n\ntext\n\n| c |\n| - |\n| 3 |\n');
  assert.deepEqual(tables.map((t) => [t.line, t.header, t.rows.length]), [[1, ['a', 'b'], 1], [7, ['c'], 1]]);
  const [wide] = markdownTables('| a | b |\n|---|---|\n| 1 | 2 | 3 |\n');
  assert.deepEqual(wide!.problems, [{ line: 3, message: 'the row has 3 cells, the header 2' }]);
});

test('splitRow: escaped pipes stay in the cell, the outer pipes go, an escaped last pipe stays', () => {
  assert.deepEqual(splitRow('| a \\| b | c |'), ['a | b', 'c']);
  assert.deepEqual(splitRow('a|b'), ['a', 'b']);
  assert.deepEqual(splitRow('| a | b \\|'), ['a', 'b |']);
  assert.deepEqual(splitRow('|  | x |'), ['', 'x']);
});
