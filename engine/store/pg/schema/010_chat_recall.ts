/**
 * Postgres migration 10: the episodic memory's index (`recall`, a consolidation's
 * `recent_turns`) in the store the nodes share, so a turn finished on any node is found
 * from every node: one row per finished chat turn (the message and the answer), written
 * in the transaction of its `turn.finished` (engine/store/pg/sql/recall.ts), searched
 * through a `tsvector` of both with a GIN index. The `simple` configuration (no stemming,
 * no stop words) as SQLite's `chat_fts` (migration 8) tokenizes with `unicode61`. The
 * turns finished before this migration are indexed by it: each turn's last
 * `turn.finished` with its `turn.started` (the message and the agent).
 *
 * Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see ../../schema/index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE chat_recall (
  session_id     TEXT    NOT NULL,
  turn           INTEGER NOT NULL,
  agent          TEXT    NOT NULL,
  at             BIGINT  NOT NULL,                 -- engine clock, ms since epoch: when the turn finished
  user_text      TEXT    NOT NULL,
  assistant_text TEXT    NOT NULL,
  doc            tsvector GENERATED ALWAYS AS (to_tsvector('simple', user_text || ' ' || assistant_text)) STORED,
  PRIMARY KEY (session_id, turn)
);
CREATE INDEX chat_recall_doc ON chat_recall USING GIN (doc);
CREATE INDEX chat_recall_by_at ON chat_recall (at, session_id, turn);

INSERT INTO chat_recall (session_id, turn, agent, at, user_text, assistant_text)
SELECT f.session_id, (f.data::jsonb ->> 'turn')::integer, coalesce(s.data::jsonb -> 'agent' ->> 'name', ''), f.at,
       coalesce(s.data::jsonb ->> 'text', ''), coalesce(f.data::jsonb ->> 'text', '')
FROM chat_events f
JOIN chat_events s ON s.session_id = f.session_id AND s.type = 'turn.started' AND s.data::jsonb -> 'turn' = f.data::jsonb -> 'turn'
WHERE f.type = 'turn.finished'
  AND f.seq = (SELECT max(g.seq) FROM chat_events g
               WHERE g.session_id = f.session_id AND g.type = 'turn.finished' AND g.data::jsonb -> 'turn' = f.data::jsonb -> 'turn');
`;
