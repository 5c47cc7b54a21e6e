/**
 * Postgres migration 7: reserved for the chat's tables (branch chatpg). An empty stand-in
 * so that this branch's migration 8 has the one before it; the merge replaces this file
 * with chatpg's 007.
 */
/** This file: its name is the migration's version and name (see ../../schema/index.ts). */
export const source = import.meta.url;
export const sql = `SELECT 1;`;
