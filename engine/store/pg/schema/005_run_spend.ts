/**
 * Postgres migration 5: what each data folder's model calls spent on each run, so that a
 * run's budget counts every node's calls (docs/budgets.md, docs/postgres.md).
 *
 * Traces stay in each node's data folder (its SQLite). After every trace of a run it
 * records or updates, a node writes its folder's sums over that run's traces here, as one
 * row per (run, folder) that it replaces each time: the write is idempotent, and a row
 * lost to a failed write is put right by the folder's next one. A run's spend is its own
 * folder's traces plus the rows of the other folders. Keyed by the data folder, not the
 * node: a node restarted on the folder sums the same traces as its predecessor did.
 *
 * Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see ../../schema/index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE run_spend (
  run_id      TEXT             NOT NULL,
  folder_id   TEXT             NOT NULL, -- the data folder whose traces these are (nodes.folder_id)
  model_calls INTEGER          NOT NULL,
  tokens      BIGINT           NOT NULL,
  cost_usd    DOUBLE PRECISION NOT NULL,
  unpriced    INTEGER          NOT NULL, -- calls whose price is unknown
  tool_calls  INTEGER          NOT NULL,
  node_id     TEXT             NOT NULL, -- the node that wrote the row last
  updated_at  BIGINT           NOT NULL, -- by the database's clock (kw_now())
  PRIMARY KEY (run_id, folder_id)
);
`;
