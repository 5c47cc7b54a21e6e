/** Dynamic WHERE clauses for the store's list queries. */
import type { Database, Statement } from 'better-sqlite3';

/** A WHERE clause from the conditions that apply (`undefined` ones are left out), with their parameters in order. */
export function whereOf(conditions: ReadonlyArray<readonly [sql: string, ...values: unknown[]] | undefined>): { sql: string; params: unknown[] } {
  const used = conditions.filter((c) => c !== undefined);
  return {
    sql: used.length === 0 ? '' : `WHERE ${used.map(([sql]) => sql).join(' AND ')}`,
    params: used.flatMap(([, ...values]) => values),
  };
}

/** SQLite's `?` placeholders as Postgres's `$1, $2, …` (for statements built from `whereOf`; none has a `?` in a literal). */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * A list query whose WHERE depends on the filter: one prepared statement per filter shape
 * (prepared at its first use), so each shape keeps its own plan and can use its index.
 * `sqlOf` gives the whole statement around the WHERE; the parameters are the conditions',
 * then `tail` (a LIMIT).
 */
export function listByShape<Row>(db: Database, sqlOf: (where: string) => string): (where: { sql: string; params: unknown[] }, ...tail: unknown[]) => Row[] {
  const statements = new Map<string, Statement<unknown[], Row>>();
  return (where, ...tail) => {
    const sql = sqlOf(where.sql);
    let stmt = statements.get(sql);
    if (stmt === undefined) {
      stmt = db.prepare<unknown[], Row>(sql);
      statements.set(sql, stmt);
    }
    return stmt.all(...where.params, ...tail);
  };
}
