/** Quoting for the SQL this folder writes: identifiers and string literals, DuckDB's rules. */

/** `"name"`, with inner double quotes doubled: any column or table name is safe in SQL. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `'text'`, with inner single quotes doubled. */
export function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** `['a', 'b']`: a DuckDB list of string literals. */
export function literalList(items: readonly string[]): string {
  return `[${items.map(literal).join(', ')}]`;
}
