/** FTS5 MATCH expressions, for the vault's keyword index and the episodic memory's `chat_fts`. */

/** An FTS5 MATCH expression of quoted terms: all of them (`AND`), or any (`OR`). */
export function ftsQuery(terms: readonly string[], join: 'AND' | 'OR'): string {
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(` ${join} `);
}
