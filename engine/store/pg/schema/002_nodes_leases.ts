/**
 * Postgres migration 2: the nodes that share this database, and which of them executes
 * each run (its lease).
 *
 * - `nodes`: one row per kowalski process that ever started on this database (a restart
 *   is a new node), its address and its heartbeat.
 * - `run_leases`: the node executing a run, the lease's epoch and when it expires.
 *   Taking a run (a new run's first commit, or a claim) raises the epoch; a node only
 *   writes a run's events while the lease row still names it with the epoch it took
 *   (`kw_fence`, called in every commit). A row is never deleted, so an epoch is never
 *   given out twice.
 * - `lease_handovers`: every time a run passed from one node to another, and why.
 *
 * Times are ms since the epoch, by the database's clock (`kw_now()`), so the nodes' own
 * clocks never decide whether a lease has expired. Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see ../../schema/index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE FUNCTION kw_now() RETURNS BIGINT LANGUAGE sql VOLATILE AS
  $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT $$;

CREATE TABLE nodes (
  id           TEXT    PRIMARY KEY,
  name         TEXT    NOT NULL,        -- host and data folder, for people
  url          TEXT,                    -- where its server answers, once it listens
  pid          INTEGER NOT NULL,
  started_at   BIGINT  NOT NULL,
  heartbeat_at BIGINT  NOT NULL,
  steps_running INTEGER NOT NULL DEFAULT 0, -- as of its last heartbeat
  stopped_at   BIGINT                   -- a clean stop; a node that died keeps NULL and its heartbeat ages
);

CREATE TABLE run_leases (
  run_id     TEXT    PRIMARY KEY,
  node_id    TEXT,                      -- NULL: free (the run is parked or finished)
  last_node  TEXT    NOT NULL,          -- the node that held it last (the one holding it, while held)
  epoch      BIGINT  NOT NULL,
  expires_at BIGINT  NOT NULL
);
CREATE INDEX run_leases_by_node ON run_leases (node_id) WHERE node_id IS NOT NULL;

CREATE TABLE lease_handovers (
  id        BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id    TEXT    NOT NULL,
  from_node TEXT    NOT NULL,
  to_node   TEXT    NOT NULL,
  epoch     BIGINT  NOT NULL,           -- the epoch the new node took
  at        BIGINT  NOT NULL,
  reason    TEXT    NOT NULL CHECK (reason IN ('expired', 'released'))
);
CREATE INDEX lease_handovers_by_at ON lease_handovers (at);

-- Inside a commit: the runs it writes must still be this node's at the epochs it holds
-- (epoch 0: a new run, whose lease starts here). The lease rows are read FOR SHARE, so a
-- claim of one of them waits until this commit is over and then reads what it wrote.
CREATE FUNCTION kw_fence(p_node TEXT, p_runs TEXT[], p_epochs BIGINT[], p_ttl_ms BIGINT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  stale TEXT;
BEGIN
  INSERT INTO run_leases (run_id, node_id, last_node, epoch, expires_at)
    SELECT t.r, p_node, p_node, 1, kw_now() + p_ttl_ms FROM unnest(p_runs, p_epochs) AS t(r, e) WHERE t.e = 0;
  SELECT t.r INTO stale
    FROM unnest(p_runs, p_epochs) AS t(r, e)
    LEFT JOIN (SELECT run_id, node_id, epoch FROM run_leases WHERE run_id = ANY (p_runs) FOR SHARE) l ON l.run_id = t.r
    WHERE t.e > 0 AND (l.run_id IS NULL OR l.node_id IS DISTINCT FROM p_node OR l.epoch <> t.e)
    LIMIT 1;
  IF stale IS NOT NULL THEN
    RAISE EXCEPTION 'run % is no longer held by node % (another node took it over)', stale, p_node USING ERRCODE = 'KW409';
  END IF;
END $$;
`;
