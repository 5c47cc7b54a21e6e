/** Migration 8: episodic memory — every finished chat turn in an FTS5 index, for the recall tool. Append-only: never edit a shipped migration. */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE VIRTUAL TABLE chat_fts USING fts5 (session_id UNINDEXED, turn UNINDEXED, agent UNINDEXED, at UNINDEXED, user, assistant, tokenize = 'unicode61 remove_diacritics 2');
`;
