/**
 * The two run stores declare the same tables twice (issue 37): SQLite's migrations
 * (engine/schema/) and Postgres's (engine/store/pg/schema/), and `kowalski store copy`
 * lists them a third time (engine/store/copy-tables.ts). Both stores are made for real (a
 * SQLite file opened by the engine, a throwaway Postgres migrated by migratePg) and read
 * back from their catalogs, then compared table by table and column by column: a column
 * added on one side only, a type that drifted, a NOT NULL, key, UNIQUE, index or CHECK
 * value list on one side only, a table neither list below names, fails here. Each test
 * gathers every difference of its kind and names them all (`table.column: …`), so one run
 * shows the whole of what to fix.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openDatabase } from '../../engine/store/database.js';
import { COPY_TABLES } from '../../engine/store/copy-tables.js';
import { migratePg } from '../../engine/store/pg/migrate.js';
import { openSyncPg } from '../../engine/store/pg/sync-pg.js';
import { testSyncPgModule } from '../../testkit/dist.js';
import { freshDatabase, startPostgres, type Postgres } from '../../testkit/postgres.js';

/** Tables only SQLite keeps: a data folder's own state, which never goes to a shared database (docs/postgres.md). */
const SQLITE_ONLY = [
  'vault_notes', // the vault's keyword index (007): derived from the shared vault by each node
];
/**
 * Tables only Postgres keeps: the nodes that share one database (002, 003), what each node's traces spent on each run
 * (005; unused since the traces are shared, 007), the node running each chat turn (007), and the episodic memory's
 * index (010; SQLite's is the FTS5 table `chat_fts`, which this comparison leaves out).
 */
const POSTGRES_ONLY = ['chat_leases', 'chat_recall', 'lease_handovers', 'node_requests', 'nodes', 'run_leases', 'run_spend'];

interface Column {
  name: string;
  /** Lower case, as each catalog names it (SQLite: the declared type). */
  type: string;
  notNull: boolean;
}
interface Table {
  columns: Column[];
  primaryKey: string[];
  /** UNIQUE constraints, each its columns joined by `, `. */
  uniques: string[];
  /** Indexes made by CREATE INDEX (not those behind a key or UNIQUE): name → columns, and the WHERE of a partial one. */
  indexes: Map<string, string>;
  /** `column IN (…)` CHECKs: column → its values, sorted; a CHECK of another shape is kept whole under `?` (and reported). */
  checks: Map<string, string>;
}
type Schema = Map<string, Table>;

/** A SQLite declared type and the Postgres types that hold the same values. */
const COMPATIBLE: Record<string, string[]> = {
  integer: ['integer', 'bigint', 'smallint'],
  text: ['text'],
  real: ['double precision', 'real'],
  blob: ['bytea'],
};

const emptyTable = (): Table => ({ columns: [], primaryKey: [], uniques: [], indexes: new Map(), checks: new Map() });

/** A CHECK's or a partial index's expression as both catalogs can be brought to print it: no casts or brackets, `= ANY (ARRAY[…])` as `IN (…)`, spaces as SQLite's migrations write them. */
const normal = (expression: string): string =>
  expression.replace(/::[a-z_]+(\[\])?/g, '').replace(/= ANY \(ARRAY\[/g, 'IN (').replace(/[()[\]]/g, ' ').replace(/\s+/g, ' ').replace(/ ?, ?/g, ', ').trim();

/** `column IN (v1, v2…)` → [column, its values sorted]; anything else → undefined. */
function inList(expression: string): [string, string] | undefined {
  const match = /^(\w+) IN (.*)$/i.exec(normal(expression));
  if (match === null) return undefined;
  return [match[1]!, match[2]!.split(', ').sort().join(', ')];
}

function addCheck(table: Table, expression: string): void {
  const list = inList(expression);
  if (list === undefined) table.checks.set(`? ${normal(expression)}`, '');
  else table.checks.set(list[0], list[1]);
}

let cluster: Postgres;
let dir: string;
let sqlite: Schema;
let postgres: Schema;
let shared: string[];
before(async () => {
  cluster = await startPostgres();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-schemas-'));
  sqlite = sqliteSchema(path.join(dir, 'kowalski.sqlite'));
  postgres = postgresSchema(freshDatabase(cluster.url, 'schemas'));
  shared = sorted([...sqlite.keys()].filter((name) => postgres.has(name) && name !== 'schema_migrations'));
});
after(async () => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  await cluster?.stop();
});

function sqliteSchema(file: string): Schema {
  const db = openDatabase(file);
  try {
    // table_list: ordinary tables only (FTS5's virtual tables and their shadow tables are SQLite's own business)
    const names = db.prepare("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
    const schema: Schema = new Map();
    for (const name of names) {
      const table = emptyTable();
      schema.set(name, table);
      const rows = db.prepare('SELECT name, type, "notnull" AS not_null, pk FROM pragma_table_info(?) ORDER BY cid').all(name) as { name: string; type: string; not_null: number; pk: number }[];
      // a primary key column is never NULL, whatever table_info says of an INTEGER PRIMARY KEY (a rowid)
      table.columns = rows.map((r) => ({ name: r.name, type: r.type.toLowerCase(), notNull: r.not_null === 1 || r.pk > 0 }));
      table.primaryKey = rows.filter((r) => r.pk > 0).sort((a, b) => a.pk - b.pk).map((r) => r.name);
      const indexes = db.prepare('SELECT name, origin FROM pragma_index_list(?)').all(name) as { name: string; origin: string }[];
      for (const index of indexes) {
        const columns = (db.prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno').pluck().all(index.name) as string[]).join(', ');
        if (index.origin === 'u') table.uniques.push(columns);
        if (index.origin !== 'c') continue; // 'pk': the key of a WITHOUT ROWID table
        const sql = db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?").pluck().get(index.name) as string;
        const where = /\bWHERE\b(.*)$/is.exec(sql)?.[1];
        table.indexes.set(index.name, where === undefined ? columns : `${columns} where ${normal(where)}`);
      }
      table.uniques.sort();
      // SQLite keeps a table's CREATE statement as written: its CHECKs are read from it ("CHECK (x IN (…))", no nested brackets inside the list).
      const create = db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(name) as string;
      for (const check of create.matchAll(/\bCHECK\s*\(((?:[^()]|\([^()]*\))*)\)/gi)) addCheck(table, check[1]!);
    }
    return schema;
  } finally {
    db.close();
  }
}

function postgresSchema(url: string): Schema {
  const pg = openSyncPg(url, { module: testSyncPgModule() });
  try {
    migratePg(pg, url);
    const schema: Schema = new Map();
    const table = (name: string): Table => schema.get(name) ?? schema.set(name, emptyTable()).get(name)!;
    const columns = pg.all<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
      "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position",
    );
    for (const c of columns) table(c.table_name).columns.push({ name: c.column_name, type: c.data_type, notNull: c.is_nullable === 'NO' });
    // Constraints: their columns in the constraint's order, and a CHECK's expression as Postgres prints it.
    const constraints = pg.all<{ table_name: string; kind: string; columns: string; expression: string }>(
      `SELECT t.relname AS table_name, c.contype AS kind, pg_get_constraintdef(c.oid) AS expression,
              (SELECT string_agg(a.attname, ', ' ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY AS k(n, i)
                 JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n) AS columns
         FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace s ON s.oid = t.relnamespace
        WHERE s.nspname = 'public' ORDER BY t.relname, c.conname`,
    );
    for (const c of constraints) {
      if (c.kind === 'p') table(c.table_name).primaryKey = c.columns.split(', ');
      else if (c.kind === 'u') table(c.table_name).uniques.push(c.columns);
      else if (c.kind === 'c') addCheck(table(c.table_name), c.expression.replace(/^CHECK /, ''));
    }
    for (const t of schema.values()) t.uniques.sort();
    // Indexes no constraint owns (those are the keys and UNIQUEs above).
    const indexes = pg.all<{ table_name: string; index_name: string; columns: string; predicate: string | null }>(
      `SELECT t.relname AS table_name, i.relname AS index_name, pg_get_expr(x.indpred, x.indrelid) AS predicate,
              (SELECT string_agg(a.attname, ', ' ORDER BY k.i) FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(n, i)
                 JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n) AS columns
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace s ON s.oid = t.relnamespace
        WHERE s.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)`,
    );
    for (const x of indexes) table(x.table_name).indexes.set(x.index_name, x.predicate === null ? x.columns : `${x.columns} where ${normal(x.predicate)}`);
    return schema;
  } finally {
    pg.close();
  }
}

const sorted = (names: Iterable<string>): string[] => [...names].sort();

/** Every key whose value differs between the two sides, one line each: `label(key): value on SQLite only`, or both values. */
function differences(lite: Map<string, string>, pg: Map<string, string>, label: (key: string) => string): string[] {
  const out: string[] = [];
  for (const key of sorted(new Set([...lite.keys(), ...pg.keys()]))) {
    const [l, p] = [lite.get(key), pg.get(key)];
    if (l === p) continue;
    if (p === undefined) out.push(`${label(key)}: ${l} on SQLite only`);
    else if (l === undefined) out.push(`${label(key)}: ${p} on Postgres only`);
    else out.push(`${label(key)}: ${l} on SQLite, ${p} on Postgres`);
  }
  return out;
}

/** Fails naming every problem found, one a line, then what to do. */
function none(problems: string[], fix: string): void {
  assert.ok(problems.length === 0, `${problems.length} difference(s):\n  ${problems.join('\n  ')}\n${fix}`);
}

const FIX = 'Add what one side lacks as a new migration on that side (engine/schema/ or engine/store/pg/schema/, the next number); never edit a shipped one.';

test('the catalog readers see what the migrations declare (else the comparisons below would pass on nothing)', () => {
  for (const [store, schema] of [['SQLite', sqlite], ['Postgres', postgres]] as const) {
    const approvals = schema.get('approvals');
    assert.deepEqual(approvals?.primaryKey, ['run_id', 'seq'], store);
    assert.equal(approvals?.columns.find((c) => c.name === 'deny_reason')?.notNull, false, store);
    assert.equal(approvals?.indexes.get('approvals_pending'), "state, run_id where state = 'pending'", store);
    assert.equal(approvals?.checks.get('reason'), "'confirm_command', 'outcome_unknown', 'review'", store);
    assert.deepEqual(schema.get('events')?.uniques, ['run_id, seq'], store);
    // Both record their migrations, each in its own numbering: not a table of the store.
    assert.deepEqual(schema.get('schema_migrations')?.columns.map((c) => c.name), ['version', 'name', 'applied_at'], store);
  }
});

test('each store holds the shared tables, and beside them only those named as kept on one side', () => {
  const problems: string[] = [];
  const sides = [
    { store: 'SQLite', other: 'Postgres', from: sqlite, to: postgres, list: 'SQLITE_ONLY', named: SQLITE_ONLY, fix: 'add it to Postgres (engine/store/pg/schema/) and to COPY_TABLES, or, if it belongs to the data folder alone, to SQLITE_ONLY' },
    { store: 'Postgres', other: 'SQLite', from: postgres, to: sqlite, list: 'POSTGRES_ONLY', named: POSTGRES_ONLY, fix: 'add it to SQLite (engine/schema/), or, if only the nodes sharing a database need it, to POSTGRES_ONLY' },
  ];
  for (const s of sides) {
    for (const name of s.from.keys()) if (!s.to.has(name) && !s.named.includes(name)) problems.push(`${name}: a table ${s.store} has and ${s.other} lacks: ${s.fix}`);
    for (const name of s.named) if (!s.from.has(name) || s.to.has(name)) problems.push(`${name}: listed in ${s.list}, but it is ${s.from.has(name) ? `in ${s.other} too` : `not in ${s.store}`}`);
  }
  none(problems, 'SQLITE_ONLY and POSTGRES_ONLY are at the top of this file.');
});

test('every shared table has the same columns, in the same order, with compatible types and the same NOT NULLs', () => {
  const problems: string[] = [];
  for (const name of shared) {
    const lite = new Map(sqlite.get(name)!.columns.map((c) => [c.name, c] as const));
    const pg = new Map(postgres.get(name)!.columns.map((c) => [c.name, c] as const));
    for (const [column, l] of lite) {
      const p = pg.get(column);
      if (p === undefined) {
        problems.push(`${name}.${column}: on SQLite only (${l.type}${l.notNull ? ' NOT NULL' : ''})`);
        continue;
      }
      if (COMPATIBLE[l.type]?.includes(p.type) !== true) problems.push(`${name}.${column}: SQLite declares ${l.type}, Postgres ${p.type} (${COMPATIBLE[l.type]?.join(' or ') ?? 'no Postgres type'} would match)`);
      // Times are ms since the epoch: a 32-bit integer holds 25 days of them.
      else if (/(^at|_at|_ms)$/.test(column) && p.type !== 'bigint') problems.push(`${name}.${column}: a time in ms, ${p.type} on Postgres: it must be bigint`);
      if (p.notNull !== l.notNull) problems.push(`${name}.${column}: NOT NULL on ${l.notNull ? 'SQLite' : 'Postgres'} only`);
    }
    for (const [column, p] of pg) if (!lite.has(column)) problems.push(`${name}.${column}: on Postgres only (${p.type}${p.notNull ? ' NOT NULL' : ''})`);
    const [inLite, inPg] = [[...lite.keys()].filter((c) => pg.has(c)), [...pg.keys()].filter((c) => lite.has(c))];
    if (inLite.join() !== inPg.join()) problems.push(`${name}: the columns are in another order (SQLite: ${inLite.join(', ')}; Postgres: ${inPg.join(', ')})`);
  }
  none(problems, FIX);
});

test('every shared table has the same primary key, UNIQUEs, indexes and CHECK value lists', () => {
  const problems: string[] = [];
  for (const name of shared) {
    const [lite, pg] = [sqlite.get(name)!, postgres.get(name)!];
    problems.push(...differences(new Map([['', `(${lite.primaryKey.join(', ')})`]]), new Map([['', `(${pg.primaryKey.join(', ')})`]]), () => `${name}: primary key`));
    const uniques = (t: Table) => new Map(t.uniques.map((u) => [u, `UNIQUE (${u})`]));
    problems.push(...differences(uniques(lite), uniques(pg), () => name));
    problems.push(...differences(lite.indexes, pg.indexes, (index) => `${name}: index ${index}`));
    const readable = (t: Table) => new Map([...t.checks].filter(([column]) => !column.startsWith('? ')));
    problems.push(...differences(readable(lite), readable(pg), (column) => `${name}.${column}: CHECK IN`));
    // A CHECK of another shape is compared whole, as both catalogs print it brought to one form (`"by"` quoted in Postgres, a reserved word there).
    const whole = (t: Table) => new Map([...t.checks.keys()].filter((check) => check.startsWith('? ')).map((check) => [check.slice(2).replace(/"/g, ''), 'CHECK'] as const));
    problems.push(...differences(whole(lite), whole(pg), (check) => `${name}: CHECK (${check})`));
  }
  none(problems, FIX);
});

test('store copy (COPY_TABLES) lists every shared table, every column in order with the type Postgres gives it, and pages by the primary key', () => {
  const problems: string[] = [];
  const listed = COPY_TABLES.map((c) => c.name);
  for (const name of shared) if (!listed.includes(name)) problems.push(`${name}: in both stores but not in COPY_TABLES (store copy would leave it behind)`);
  for (const copy of COPY_TABLES) {
    const pg = postgres.get(copy.name);
    if (pg === undefined || !shared.includes(copy.name)) {
      problems.push(`${copy.name}: in COPY_TABLES but not in both stores`);
      continue;
    }
    const found = problems.length;
    const types = new Map(copy.columns.map((c) => [c.name, c.pg as string]));
    for (const c of pg.columns) {
      const t = types.get(c.name);
      if (t === undefined) problems.push(`${copy.name}.${c.name}: not in COPY_TABLES (store copy would leave it behind)`);
      else if (t !== c.type) problems.push(`${copy.name}.${c.name}: COPY_TABLES says ${t}, Postgres has ${c.type}`);
    }
    for (const c of copy.columns) if (!pg.columns.some((p) => p.name === c.name)) problems.push(`${copy.name}.${c.name}: in COPY_TABLES but not in the stores`);
    const [copied, declared] = [copy.columns.map((c) => c.name).join(', '), pg.columns.map((c) => c.name).join(', ')];
    // the same columns, in another order
    if (copied !== declared && problems.length === found) problems.push(`${copy.name}: COPY_TABLES lists the columns as (${copied}), the stores declare (${declared})`);
    if (copy.key.join() !== pg.primaryKey.join()) problems.push(`${copy.name}: COPY_TABLES pages by (${copy.key.join(', ')}), the primary key is (${pg.primaryKey.join(', ')})`);
  }
  none(problems, 'COPY_TABLES is in engine/store/copy-tables.ts.');
});
