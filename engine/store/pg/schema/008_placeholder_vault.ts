/**
 * BRANCH adapterspg ONLY — drop at merge: holds this number for another helper's migration
 * (chat / vault to Postgres), so that this branch's 009 has no gap before it.
 */
/** This file: its name is the migration's version and name (see ../../schema/index.ts). */
export const source = import.meta.url;
export const sql = `SELECT 1;`;
