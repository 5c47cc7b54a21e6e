/**
 * Migration 8: episodic memory — every finished chat turn in an FTS5 index, for the recall tool
 * (engine/chat/recall.ts writes a row in the transaction of each `turn.finished`). The turns finished
 * before this migration are indexed by it: each turn's last `turn.finished` with its `turn.started`
 * (the message and the agent). Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE VIRTUAL TABLE chat_fts USING fts5 (session_id UNINDEXED, turn UNINDEXED, agent UNINDEXED, at UNINDEXED, user, assistant, tokenize = 'unicode61 remove_diacritics 2');

INSERT INTO chat_fts (session_id, turn, agent, at, user, assistant)
SELECT f.session_id, json_extract(f.data, '$.turn'), json_extract(s.data, '$.agent.name'), f.at,
       json_extract(s.data, '$.text'), json_extract(f.data, '$.text')
FROM chat_events f
JOIN chat_events s ON s.session_id = f.session_id AND s.type = 'turn.started' AND json_extract(s.data, '$.turn') = json_extract(f.data, '$.turn')
WHERE f.type = 'turn.finished'
  AND f.seq = (SELECT max(g.seq) FROM chat_events g
               WHERE g.session_id = f.session_id AND g.type = 'turn.finished' AND json_extract(g.data, '$.turn') = json_extract(f.data, '$.turn'))
ORDER BY f.session_id, f.seq;
`;
