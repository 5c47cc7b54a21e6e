/**
 * Workbook cells → column types and values, and a sheet's header and data rows: what makes
 * sums of money exact and totals not counted twice.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DuckDBDateValue, DuckDBDecimalValue, DuckDBTimestampValue } from '@duckdb/node-api';
import { XlsxNumber, numberText, plainDecimal } from '../../agents/data/cells.js';
import type { Cell } from '../../agents/data/cells.js';
import { inferCells } from '../../agents/data/infer-cells.js';
import { sheetLayout } from '../../agents/data/sheet.js';

const n = (raw: string): XlsxNumber => new XlsxNumber(raw);
const utc = (iso: string): Date => new Date(`${iso}Z`);
const texts = (values: unknown[]): (string | null)[] => values.map((v) => (v === null ? null : String(v)));

describe('numbers in cells', () => {
  it('keep 15 significant digits, as the spreadsheet shows them', () => {
    assert.equal(numberText(n('1049.3599999999999')), '1049.36');
    assert.equal(numberText(n('0.30000000000000004')), '0.3');
    assert.equal(numberText(n('1.2E-3')), '0.0012');
    assert.equal(numberText(n('12000')), '12000');
    assert.equal(plainDecimal('1.5e-7'), '0.00000015');
    assert.equal(plainDecimal('-2.5E3'), '-2500');
  });
});

describe('inferCells', () => {
  it('reads whole numbers as BIGINT', () => {
    const col = inferCells([n('4'), n('249'), null, n('-3')]);
    assert.equal(col.type, 'BIGINT');
    assert.deepEqual(col.values, [4n, 249n, null, -3n]);
  });

  it('reads decimals as DECIMAL(18,s) with s the most decimals, exactly', () => {
    const col = inferCells([n('4562.44'), n('1534.8'), n('1049.3599999999999')]);
    assert.equal(col.type, 'DECIMAL(18,2)');
    assert.deepEqual(texts(col.values), ['4562.44', '1534.80', '1049.36']);
    assert.ok(col.values.every((v) => v instanceof DuckDBDecimalValue));
  });

  it('falls back to DOUBLE beyond 6 decimals', () => {
    const col = inferCells([n('0.123456789'), n('2')]);
    assert.equal(col.type, 'DOUBLE');
    assert.deepEqual(col.values, [0.123456789, 2]);
  });

  it('reads dates at midnight as DATE and date-times as TIMESTAMP rounded to the second', () => {
    const dates = inferCells([utc('2026-03-03T00:00:00.000'), null, utc('2026-04-02T00:00:00.000')]);
    assert.equal(dates.type, 'DATE');
    assert.deepEqual(texts(dates.values), ['2026-03-03', null, '2026-04-02']);
    assert.ok(dates.values[0] instanceof DuckDBDateValue);
    const times = inferCells([utc('2026-11-09T10:59:59.999'), utc('2026-11-20T16:00:00.000')]);
    assert.equal(times.type, 'TIMESTAMP');
    assert.deepEqual(texts(times.values), ['2026-11-09 11:00:00', '2026-11-20 16:00:00']);
    assert.ok(times.values[0] instanceof DuckDBTimestampValue);
    assert.deepEqual(times.notes, ['1 date-time rounded to the nearest second']);
  });

  it('reads booleans as BOOLEAN', () => {
    assert.deepEqual(inferCells([true, false, null]), { type: 'BOOLEAN', values: [true, false, null], notes: [] });
  });

  it('reads a numeric column with placeholder texts as numbers, those cells NULL, and says which', () => {
    const col = inferCells([n('4'), 'n/a', n('7'), ' N/A ', null, '—', '#N/A']);
    assert.equal(col.type, 'BIGINT');
    assert.deepEqual(col.values, [4n, null, 7n, null, null, null, null]);
    assert.deepEqual(col.notes, ['4 text cells read as NULL in a numeric column ("n/a" ×1, "N/A" ×1, "—" ×1, "#N/A" ×1)']);
  });

  it('reads any other mix as VARCHAR, numbers and dates as their text', () => {
    const col = inferCells([n('1'), 'two', n('3.5'), utc('2026-01-02T00:00:00.000'), true]);
    assert.equal(col.type, 'VARCHAR');
    assert.deepEqual(col.values, ['1', 'two', '3.5', '2026-01-02', 'true']);
    assert.equal(col.notes.length, 1);
  });

  it('leaves a text column, and an all-empty one, as VARCHAR without a note', () => {
    assert.deepEqual(inferCells(['a', null, 'b']), { type: 'VARCHAR', values: ['a', null, 'b'], notes: [] });
    assert.deepEqual(inferCells([null, '  ']), { type: 'VARCHAR', values: [null, null], notes: [] });
  });
});

describe('sheetLayout', () => {
  const invoice = (i: number): Cell[] => [`FV/${i}`, 'Nordic Rye AB', utc('2026-03-03T00:00:00'), n('10.5')];

  it('skips a title above the header, a blank row, and the total row after it, naming the rows', () => {
    const rows: Cell[][] = [
      ['Invoices 2026', null, null, null],
      ['Invoice', 'Customer', 'Issued', 'Net'],
      invoice(1),
      invoice(2),
      [null, null, null, null],
      ['TOTAL', null, null, n('21')],
    ];
    const layout = sheetLayout(rows);
    assert.equal(layout.headerRow, 2);
    assert.deepEqual(layout.header, ['Invoice', 'Customer', 'Issued', 'Net']);
    assert.deepEqual(layout.rows.map((r) => r.row), [3, 4]);
    assert.deepEqual(layout.notes, [
      'row 1 above the header (row 2) skipped as a title',
      'blank row 5 skipped',
      'row 6 ("TOTAL") after a blank row left out as a summary row',
    ]);
  });

  it('knows total labels in several languages, but only after a blank row', () => {
    for (const label of ['Summe:', 'Grand total', 'razem', 'Gesamt']) {
      const layout = sheetLayout([['k', 'v'], ['a', n('1')], [null, null], [label, n('1')]]);
      assert.deepEqual(layout.rows.map((r) => r.row), [2], label);
    }
    const kept = sheetLayout([['k', 'v'], ['a', n('1')], ['Total', n('1')]]);
    assert.deepEqual(kept.rows.map((r) => r.row), [2, 3], 'a Total row with no blank row before it is data');
  });

  it('takes the first text row as the header when none is as wide as the data, and leaves out empty columns', () => {
    const layout = sheetLayout([
      [null, null, null, null],
      ['a', null, null, 'd'],
      [n('1'), 'x', null, n('2')],
    ]);
    assert.equal(layout.headerRow, 2);
    assert.deepEqual(layout.columns, [0, 1, 3]);
    assert.deepEqual(layout.header, ['a', null, 'd']);
    assert.deepEqual(layout.notes, ['empty column C (no header, no data) left out']);
  });

  it('has no header when the first row holds numbers', () => {
    const layout = sheetLayout([[n('1'), n('2')], [n('3'), n('4')]]);
    assert.equal(layout.header, null);
    assert.equal(layout.rows.length, 2);
    assert.match(layout.notes[0] ?? '', /no header row/);
  });

  it('gives nothing for an empty sheet', () => {
    assert.deepEqual(sheetLayout([]).columns, []);
    assert.deepEqual(sheetLayout([[null, '']]).columns, []);
  });
});
