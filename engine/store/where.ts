/** A WHERE clause from the conditions that apply (`undefined` ones are left out), with their parameters in order. */
export function whereOf(conditions: ReadonlyArray<readonly [sql: string, value: unknown] | undefined>): { sql: string; params: unknown[] } {
  const used = conditions.filter((c) => c !== undefined);
  return {
    sql: used.length === 0 ? '' : `WHERE ${used.map(([sql]) => sql).join(' AND ')}`,
    params: used.map(([, value]) => value),
  };
}
