/**
 * `describe_table`'s statistics, fast on a million rows: one aggregate scan for every
 * column (nulls, distinct — exact up to 10,000 rows, else approximate like SUMMARIZE —
 * min, max, and the mean of numeric columns), then a grouped count only for the columns
 * whose values repeat (at most 20 distinct, or fewer distinct than half the values).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ColumnProfile, DataColumn } from '../data-types.js';
import { ident } from './sql.js';
import { toDataValue } from './values.js';
import type { DuckDBValue } from '@duckdb/node-api';

/** Up to this many rows, distinct counts are exact. */
const EXACT_DISTINCT_ROWS = 10_000;
const TOP = 5;

const NUMERIC = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL\(\d+,\d+\))$/;
/** Types whose values have no useful order or grouping (lists, structs, maps, unions, blobs…). */
function isNested(type: string): boolean {
  return /[[\]]|^(STRUCT|MAP|UNION|BLOB|BIT|VARIANT|GEOMETRY)/.test(type);
}

function asNumber(v: DuckDBValue | undefined): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  return v === null || v === undefined ? 0 : Number(v.toString());
}

export async function profileColumns(conn: DuckDBConnection, table: string, columns: readonly DataColumn[], rowCount: number): Promise<ColumnProfile[]> {
  if (columns.length === 0) return [];
  const distinct = (x: string): string => (rowCount <= EXACT_DISTINCT_ROWS ? `count(DISTINCT ${x})` : `approx_count_distinct(${x})`);
  const parts = columns.flatMap((c) => {
    const x = ident(c.name);
    const nested = isNested(c.type);
    return [
      `count(*) - count(${x})`,
      nested ? '0' : distinct(x),
      nested ? 'NULL' : `min(${x})`,
      nested ? 'NULL' : `max(${x})`,
      NUMERIC.test(c.type) ? `avg(${x})::DOUBLE` : 'NULL::DOUBLE',
    ];
  });
  const reader = await conn.runAndReadAll(`SELECT ${parts.join(', ')} FROM ${ident(table)}`);
  const row = reader.getRows()[0] ?? [];
  const profiles: ColumnProfile[] = columns.map((c, i) => {
    const at = (k: number): DuckDBValue | undefined => row[i * 5 + k];
    const mean = at(4);
    return {
      name: c.name,
      type: c.type,
      nulls: asNumber(at(0)),
      distinct: asNumber(at(1)),
      min: toDataValue(at(2) ?? null),
      max: toDataValue(at(3) ?? null),
      mean: typeof mean === 'number' && Number.isFinite(mean) ? mean : null,
      top: [],
    };
  });
  for (const [i, p] of profiles.entries()) {
    const c = columns[i];
    if (c === undefined || isNested(c.type)) continue;
    const values = rowCount - p.nulls;
    if (values === 0 || p.distinct >= values || (p.distinct > 20 && p.distinct > values / 2)) continue;
    const x = ident(c.name);
    const top = await conn.runAndReadAll(`SELECT ${x}, count(*) AS n FROM ${ident(table)} WHERE ${x} IS NOT NULL GROUP BY ${x} ORDER BY n DESC, ${x} LIMIT ${TOP}`);
    p.top = top.getRows().map(([value, n]) => ({ value: toDataValue(value ?? null), count: asNumber(n) }));
  }
  return profiles;
}
