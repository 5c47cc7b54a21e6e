/**
 * The two run stores declare the same tables twice (issue 37): SQLite's migrations
 * (engine/schema/) and Postgres's (engine/store/pg/schema/), and `kowalski store copy`
 * lists them a third time (engine/store/copy-tables.ts). Both stores are made for real (a
 * SQLite file opened by the engine, a throwaway Postgres migrated by migratePg) and read
 * back from their catalogs, then compared table by table and column by column: a column
 * added on one side only, a type that drifted, a table neither list below names, fails here.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openDatabase } from '../../engine/store/database.js';
import { COPY_TABLES } from '../../engine/store/copy-tables.js';
import { migratePg } from '../../engine/store/pg/migrate.js';
import { openSyncPg } from '../../engine/store/pg/sync-pg.js';
import { freshDatabase, startPostgres, type Postgres } from '../../testkit/postgres.js';
import { tempDir } from '../../testkit/tmp.js';

/** Tables only SQLite keeps: a data folder's own state, which never goes to a shared database. */
const SQLITE_ONLY = [
  'adapter_dedupe', 'adapter_messages', 'adapter_sessions', 'adapter_switches', // chat adapters (011)
  'chat_events', 'chat_sessions', // the chat team (005)
  'model_tool_modes', 'traces', // model calls (002)
  'note_writes', 'vault_notes', // the vault (006, 007)
  'plugin_grant_audit', 'plugin_grants', // plugins (012)
  'rookery_drafts', // Rookery (009)
];
/** Tables only Postgres keeps: the nodes that share one database. */
const POSTGRES_ONLY = ['lease_handovers', 'node_requests', 'nodes', 'run_leases'];

interface Column {
  name: string;
  /** Lower case, as each catalog names it (SQLite: the declared type). */
  type: string;
  notNull: boolean;
}
interface Table {
  columns: Column[];
  primaryKey: string[];
}
type Schema = Map<string, Table>;

/** A SQLite declared type and the Postgres types that hold the same values. */
const COMPATIBLE: Record<string, string[]> = {
  integer: ['integer', 'bigint', 'smallint'],
  text: ['text'],
  real: ['double precision', 'real'],
  blob: ['bytea'],
};

let cluster: Postgres;
before(async () => {
  cluster = await startPostgres();
});
after(() => cluster?.stop());

function sqliteSchema(file: string): Schema {
  const db = openDatabase(file);
  try {
    // table_list: ordinary tables only (FTS5's virtual tables and their shadow tables are SQLite's own business)
    const names = db.prepare("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
    const schema: Schema = new Map();
    for (const name of names) {
      const rows = db.prepare('SELECT name, type, "notnull" AS not_null, pk FROM pragma_table_info(?) ORDER BY cid').all(name) as { name: string; type: string; not_null: number; pk: number }[];
      schema.set(name, {
        // a primary key column is never NULL, whatever table_info says of an INTEGER PRIMARY KEY (a rowid)
        columns: rows.map((r) => ({ name: r.name, type: r.type.toLowerCase(), notNull: r.not_null === 1 || r.pk > 0 })),
        primaryKey: rows.filter((r) => r.pk > 0).sort((a, b) => a.pk - b.pk).map((r) => r.name),
      });
    }
    return schema;
  } finally {
    db.close();
  }
}

function postgresSchema(url: string): Schema {
  const pg = openSyncPg(url);
  try {
    migratePg(pg, url);
    const columns = pg.all<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
      "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position",
    );
    const keys = pg.all<{ table_name: string; column_name: string }>(
      `SELECT k.table_name, k.column_name FROM information_schema.table_constraints c
         JOIN information_schema.key_column_usage k ON k.constraint_schema = c.constraint_schema AND k.constraint_name = c.constraint_name
        WHERE c.table_schema = 'public' AND c.constraint_type = 'PRIMARY KEY' ORDER BY k.table_name, k.ordinal_position`,
    );
    const schema: Schema = new Map();
    for (const c of columns) {
      let table = schema.get(c.table_name);
      if (table === undefined) schema.set(c.table_name, (table = { columns: [], primaryKey: [] }));
      table.columns.push({ name: c.column_name, type: c.data_type, notNull: c.is_nullable === 'NO' });
    }
    for (const k of keys) schema.get(k.table_name)?.primaryKey.push(k.column_name);
    return schema;
  } finally {
    pg.close();
  }
}

const sorted = (names: Iterable<string>): string[] => [...names].sort();

test('SQLite and Postgres hold the same run store: the same tables, columns in the same order, compatible types, the same NOT NULLs and keys; store copy lists them all', async (t) => {
  const sqlite = sqliteSchema(path.join(tempDir(t), 'kowalski.sqlite'));
  const postgres = postgresSchema(freshDatabase(cluster.url, 'schemas'));

  // Both record their migrations, each in its own numbering: not a table of the store.
  for (const schema of [sqlite, postgres]) assert.deepEqual(schema.get('schema_migrations')?.columns.map((c) => c.name), ['version', 'name', 'applied_at']);
  const shared = sorted([...sqlite.keys()].filter((name) => postgres.has(name) && name !== 'schema_migrations'));

  assert.deepEqual(
    sorted([...sqlite.keys()].filter((name) => !postgres.has(name))),
    sorted(SQLITE_ONLY),
    'a table SQLite has and Postgres lacks: add it to Postgres (engine/store/pg/schema/) and to COPY_TABLES, or, if it belongs to the data folder alone, to SQLITE_ONLY here',
  );
  assert.deepEqual(
    sorted([...postgres.keys()].filter((name) => !sqlite.has(name))),
    sorted(POSTGRES_ONLY),
    'a table Postgres has and SQLite lacks: add it to SQLite (engine/schema/), or, if only nodes sharing a database need it, to POSTGRES_ONLY here',
  );

  for (const name of shared) {
    const lite = sqlite.get(name)!;
    const pg = postgres.get(name)!;
    assert.deepEqual(pg.columns.map((c) => c.name), lite.columns.map((c) => c.name), `${name}: the columns differ (SQLite's migrations vs Postgres's)`);
    for (const [i, l] of lite.columns.entries()) {
      const p = pg.columns[i]!;
      assert.ok(COMPATIBLE[l.type]?.includes(p.type), `${name}.${l.name}: SQLite declares ${l.type}, Postgres ${p.type}`);
      assert.equal(p.notNull, l.notNull, `${name}.${l.name}: NOT NULL on ${l.notNull ? 'SQLite' : 'Postgres'} only`);
    }
    assert.deepEqual(pg.primaryKey, lite.primaryKey, `${name}: the primary keys differ`);
  }

  // store copy (engine/store/copy-tables.ts): every shared table, every column in order, each with the type Postgres gave it.
  assert.deepEqual(sorted(COPY_TABLES.map((c) => c.name)), shared, 'COPY_TABLES lists the tables both stores hold');
  for (const copy of COPY_TABLES) {
    const pg = postgres.get(copy.name)!;
    assert.deepEqual(
      copy.columns.map((c) => `${c.name} ${c.pg}`),
      pg.columns.map((c) => `${c.name} ${c.type}`),
      `${copy.name}: COPY_TABLES' columns and types differ from Postgres's`,
    );
    assert.deepEqual(copy.key, pg.primaryKey, `${copy.name}: COPY_TABLES pages by its primary key`);
  }
});
