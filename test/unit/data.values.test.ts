/** DuckDB values → the JSON values the data tool returns (agents/data-types.ts `DataValue`), from real DuckDB results. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DuckDBDateValue, DuckDBDecimalValue, DuckDBInstance, DuckDBTimestampValue } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { toDataRow, toDataValue } from '../../agents/data/values.js';

describe('toDataValue', () => {
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  before(async () => {
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
  });
  after(() => {
    conn.closeSync();
    instance.closeSync();
  });

  async function row(sql: string): Promise<unknown[]> {
    const reader = await conn.runAndReadAll(sql);
    return toDataRow(reader.getRows()[0] ?? []);
  }

  it('gives numbers for integers, decimals and doubles; a string beyond 2^53, for NaN and infinities', async () => {
    assert.deepEqual(await row(`SELECT 1::TINYINT, 42::BIGINT, 9007199254740991::BIGINT, 9007199254740993::BIGINT, 12345678901234567890::HUGEINT,
      436348.47::DECIMAL(38,2), -5.25::DECIMAL(4,2), 1.5::DOUBLE, 'nan'::DOUBLE, 'inf'::FLOAT, '-inf'::DOUBLE`),
    [1, 42, 9007199254740991, '9007199254740993', '12345678901234567890', 436348.47, -5.25, 1.5, 'NaN', 'Infinity', '-Infinity']);
  });

  it('gives dates, timestamps and times as text', async () => {
    assert.deepEqual(await row(`SELECT DATE '2026-03-04', TIMESTAMP '2026-03-04 10:11:12', TIMESTAMP '2026-03-04 10:11:12.5', TIME '10:11:12',
      TIMESTAMP_MS '2026-03-04 10:11:12.123', 'infinity'::DATE, '-infinity'::TIMESTAMP`),
    ['2026-03-04', '2026-03-04 10:11:12', '2026-03-04 10:11:12.5', '10:11:12', '2026-03-04 10:11:12.123', 'infinity', '-infinity']);
  });

  it('gives booleans, strings and NULL as themselves', async () => {
    assert.deepEqual(await row(`SELECT true, 'Süd', NULL, 'x'::ENUM('x', 'y')`), [true, 'Süd', null, 'x']);
  });

  it("gives DuckDB's text for lists, structs, maps, intervals and UUIDs", async () => {
    assert.deepEqual(await row(`SELECT [1, 2], {'a': 1}, MAP {'k': 1}, INTERVAL 3 DAY, '00000000-0000-0000-0000-000000000001'::UUID`),
      ['[1, 2]', "{'a': 1}", "{'k': 1}", '3 days', '00000000-0000-0000-0000-000000000001']);
  });

  it('converts values made in code the same way', () => {
    assert.equal(toDataValue(new DuckDBDecimalValue(123450n, 18, 2)), 1234.5);
    assert.equal(toDataValue(new DuckDBDateValue(0)), '1970-01-01');
    assert.equal(toDataValue(new DuckDBTimestampValue(1_000_000n)), '1970-01-01 00:00:01');
    assert.equal(toDataValue(2n ** 60n), '1152921504606846976');
  });
});
