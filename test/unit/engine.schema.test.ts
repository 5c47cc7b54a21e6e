/** The schema's migrations are numbered by their file names, and its state columns refuse values the code never writes. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Database } from 'better-sqlite3';
import type { KowalskiError } from '../../core/index.js';
import { RUN_STATES } from '../../actors/index.js';
import type { ApprovalReason, RunState } from '../../actors/index.js';
import { MIGRATIONS, migrationsOf } from '../../engine/schema/index.js';
import { openDatabase } from '../../engine/store/database.js';
import type { ApprovalRow, AttemptRow } from '../../engine/store/queries.js';
import type { FiringOutcome } from '../../engine/store/triggers.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';

const at = (file: string): string => new URL(`file:///src/engine/schema/${file}`).href;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return (err as KowalskiError).code;
  }
  return undefined;
}

test('a migration is numbered and named by its file name, whatever its place in the list', () => {
  const list = migrationsOf([
    { source: at('002_second.ts'), sql: 'b' },
    { source: at('001_first_one.js'), sql: 'a' },
    { source: at('003_third.ts'), sql: 'c' },
  ]);
  assert.deepEqual(list, [
    { version: 1, name: 'first_one', sql: 'a' },
    { version: 2, name: 'second', sql: 'b' },
    { version: 3, name: 'third', sql: 'c' },
  ]);
});

test('a gap, a duplicate number or a file not named NNN_name refuses to load, with a coded error naming the files', () => {
  const cases: [string[], RegExp][] = [
    [['001_a.ts', '003_c.ts'], /migration 002 is missing \(the next one is 003_c\.ts\)/],
    [['002_b.ts'], /migration 001 is missing/],
    [['001_a.ts', '002_b.ts', '002_other.ts'], /two migrations have the number 002: 002_b\.ts and 002_other\.ts/],
    [['001_a.ts', '2_b.ts'], /2_b\.ts is not named NNN_name\.ts/],
    [['001_a.ts', '002-b.ts'], /002-b\.ts is not named/],
  ];
  for (const [files, message] of cases) {
    assert.throws(() => migrationsOf(files.map((f) => ({ source: at(f), sql: '' }))), (err: KowalskiError) => {
      assert.equal(err.code, 'KW_ERR_STORE_MIGRATIONS_INVALID', files.join(', '));
      assert.match(err.message, message);
      return true;
    });
  }
});

test('every NNN_*.ts file of engine/schema/ is a migration, under its own number and name', () => {
  const dir = new URL('../../engine/schema/', import.meta.url);
  const files = fs.readdirSync(dir).filter((f) => /^\d/.test(f)).sort();
  assert.deepEqual(files.map((f) => path.basename(f, '.ts')), MIGRATIONS.map((m) => `${String(m.version).padStart(3, '0')}_${m.name}`));
  // The first three keep the names older builds recorded in schema_migrations.
  assert.deepEqual(MIGRATIONS.slice(0, 3).map((m) => m.name), ['init', 'traces', 'triggers']);
});

// Every member of each union the code writes (the type checker fails here when a union grows:
// then the schema needs a new migration that widens its CHECK).
const runStates: Record<RunState, true> = { queued: true, running: true, awaiting_input: true, succeeded: true, failed: true, cancelled: true };
const attemptStates: Record<AttemptRow['state'], true> = { running: true, passed: true, failed: true, interrupted: true, cancelled: true };
const approvalReasons: Record<ApprovalReason, true> = { confirm_command: true, outcome_unknown: true, review: true };
const approvalStates: Record<ApprovalRow['state'], true> = { pending: true, granted: true, denied: true, void: true };
const firingOutcomes: Record<FiringOutcome, true> = { started: true, skipped: true, queued: true, missed: true, overflow: true, failed: true };

/** Insert one row whose checked column holds `value` (each call a fresh key). */
const inserts: Record<string, { values: readonly (string | number)[]; insert: (db: Database, value: string | number, n: number) => void }> = {
  'runs.state': {
    values: Object.keys(runStates),
    insert: (db, v, n) => db.prepare("INSERT INTO runs (id, horde_id, horde_hash, state, provenance, input, created_at, updated_at, last_seq) VALUES (?, 'h', 'x', ?, 'cli', '{}', 1, 1, 0)").run(`r${n}`, v),
  },
  'step_attempts.state': {
    values: Object.keys(attemptStates),
    insert: (db, v, n) => db.prepare("INSERT INTO step_attempts (run_id, step, attempt, state, started_at) VALUES ('r', 's', ?, ?, 1)").run(n, v),
  },
  'approvals.reason': {
    values: Object.keys(approvalReasons),
    insert: (db, v, n) => db.prepare("INSERT INTO approvals (run_id, seq, step, reason, command, hash, state, requested_at) VALUES ('r', ?, 's', ?, '{}', 'h', 'pending', 1)").run(n, v),
  },
  'approvals.state': {
    values: Object.keys(approvalStates),
    insert: (db, v, n) => db.prepare("INSERT INTO approvals (run_id, seq, step, reason, command, hash, state, requested_at) VALUES ('r2', ?, 's', 'confirm_command', '{}', 'h', ?, 1)").run(n, v),
  },
  'trigger_state.enabled': {
    values: [0, 1],
    insert: (db, v, n) => db.prepare("INSERT INTO trigger_state (horde_id, name, enabled, updated_at) VALUES ('h', ?, ?, 1)").run(`t${n}`, v),
  },
  'trigger_firings.outcome': {
    values: Object.keys(firingOutcomes),
    insert: (db, v, n) => db.prepare("INSERT INTO trigger_firings (horde_id, name, key, at, outcome) VALUES ('h', 't', ?, 1, ?)").run(`k${n}`, v),
  },
};

test('the state columns accept every value the code writes and refuse any other', (t) => {
  assert.deepEqual(Object.keys(runStates).sort(), [...RUN_STATES].sort(), 'RUN_STATES is the RunState union');
  const db = openDatabase(path.join(tempDir(t), 'k.sqlite'));
  cleanups(t)(() => db.close());
  let n = 0;
  for (const [column, { values, insert }] of Object.entries(inserts)) {
    for (const value of values) assert.doesNotThrow(() => insert(db, value, n++), `${column} = ${value}`);
    for (const bad of ['bogus', 'Running', '', 2, -1]) {
      if (values.includes(bad)) continue;
      assert.equal(codeOf(() => insert(db, bad, n++)), 'SQLITE_CONSTRAINT_CHECK', `${column} = ${JSON.stringify(bad)} is refused`);
    }
  }
});
