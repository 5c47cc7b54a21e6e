/**
 * Postgres migration 3: requests one node leaves for another. An operator's action on a
 * run another live node executes (approve, deny, cancel, an edited review, a raised
 * budget) is carried out by that node: the node the operator reached leaves the request
 * here and notifies the holder (channel `kw_requests`); the holder takes it, performs it
 * and writes the answer (channel `kw_answers`). The asking node deletes the row once it
 * has read the answer, or withdraws it if nobody took it in time.
 *
 * Times are ms since the epoch, by the database's clock. Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see ../../schema/index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE node_requests (
  id          BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  node_id     TEXT    NOT NULL,          -- the node asked (the run's holder)
  from_node   TEXT    NOT NULL,          -- the node that asks
  run_id      TEXT    NOT NULL,
  action      TEXT    NOT NULL CHECK (action IN ('approve', 'deny', 'cancel', 'review_edit', 'raise_budget')),
  args        JSONB   NOT NULL,
  created_at  BIGINT  NOT NULL,
  taken_at    BIGINT,                    -- the node asked began to perform it
  answered_at BIGINT,
  answer      JSONB                      -- {"ok": true, "value": …} or {"ok": false, "code": …, "message": …}
);
CREATE INDEX node_requests_waiting ON node_requests (node_id) WHERE taken_at IS NULL;
`;
