/**
 * DuckDB values → the JSON `DataValue` of agents/data-types.ts: numbers as numbers (an
 * integer beyond ±2^53, NaN or ±Infinity as a string), DECIMAL as a number, DATE as
 * `YYYY-MM-DD`, TIMESTAMP as `YYYY-MM-DD HH:MM:SS[.ffffff]`, TIME as `HH:MM:SS`, NULL as
 * null, and everything else (lists, structs, maps, intervals, blobs, UUIDs, TIMESTAMPTZ…)
 * as DuckDB's text for it.
 */
import {
  DuckDBDateValue, DuckDBDecimalValue, DuckDBTimestampMillisecondsValue, DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue, DuckDBTimestampValue,
} from '@duckdb/node-api';
import type { DuckDBValue } from '@duckdb/node-api';
import type { DataValue } from '../data-types.js';

function fromNumber(n: number): DataValue {
  return Number.isFinite(n) ? n : String(n);
}

function fromBigint(n: bigint): DataValue {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
}

type Infinite = { isFinite: boolean; toString(): string };

/** `infinity` / `-infinity` for DuckDB's infinite dates and timestamps (their text would be a far year). */
function fromTemporal(v: Infinite, sign: () => boolean): string {
  if (v.isFinite) return v.toString();
  return sign() ? 'infinity' : '-infinity';
}

export function toDataValue(v: DuckDBValue): DataValue {
  if (v === null) return null;
  switch (typeof v) {
    case 'boolean':
    case 'string':
      return v;
    case 'number':
      return fromNumber(v);
    case 'bigint':
      return fromBigint(v);
    default:
      break;
  }
  if (v instanceof DuckDBDecimalValue) return fromNumber(Number(v.toString()));
  if (v instanceof DuckDBDateValue) return fromTemporal(v, () => v.days > 0);
  if (v instanceof DuckDBTimestampValue) return fromTemporal(v, () => v.micros > 0n);
  if (v instanceof DuckDBTimestampSecondsValue) return fromTemporal(v, () => v.seconds > 0n);
  if (v instanceof DuckDBTimestampMillisecondsValue) return fromTemporal(v, () => v.millis > 0n);
  if (v instanceof DuckDBTimestampNanosecondsValue) return fromTemporal(v, () => v.nanos > 0n);
  return v.toString();
}

/** One row, converted. */
export function toDataRow(row: readonly DuckDBValue[]): DataValue[] {
  return row.map(toDataValue);
}
