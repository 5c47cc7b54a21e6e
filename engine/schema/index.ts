/**
 * Numbered, append-only migrations. A migration's version and name are its file's name
 * (`004_state_checks.ts` → version 4, name `state_checks`), never its place in a list: the
 * list is sorted by that number and must hold 001, 002, 003… with no gap, duplicate or
 * stray file name, or the engine refuses to start (KW_ERR_STORE_MIGRATIONS_INVALID).
 * Never edit, rename or renumber a shipped migration; add the next number.
 */
import { KowalskiError } from '../../core/index.js';
import * as m001 from './001_init.js';
import * as m002 from './002_traces.js';
import * as m003 from './003_triggers.js';
import * as m004 from './004_state_checks.js';
import * as m005 from './005_chat.js';
import * as m006 from './006_vault_writes.js';
import * as m007 from './007_vault_index.js';
import * as m008 from './008_chat_recall.js';
import * as m009 from './009_rookery_drafts.js';
import * as m010 from './010_review_approvals.js';
import * as m011 from './011_adapters.js';
import * as m012 from './012_plugins.js';
import * as m013 from './013_step_sessions.js';
import * as m014 from './014_step_sends.js';
import * as m015 from './015_step_calls.js';
import * as m016 from './016_queued_firings.js';

export interface Migration {
  version: number;
  /** Recorded in `schema_migrations` beside the version (`init`, `traces`, …). */
  name: string;
  sql: string;
}

/** A migration file: its own URL (`import.meta.url`), whose file name numbers and names it, and its SQL. */
export interface MigrationModule {
  source: string;
  sql: string;
}

const FILE_NAME = /^(\d{3})_([a-z0-9]+(?:_[a-z0-9]+)*)\.(?:ts|js)$/;

function invalid(message: string): KowalskiError {
  return new KowalskiError('KW_ERR_STORE_MIGRATIONS_INVALID', `${message}. Migrations are files named NNN_name.ts numbered 001, 002, 003… with no gap or duplicate; never renumber a shipped one.`);
}

/** The migrations of these files, in version order; throws KW_ERR_STORE_MIGRATIONS_INVALID on a bad name, a gap or a duplicate. */
export function migrationsOf(modules: readonly MigrationModule[]): Migration[] {
  const list = modules.map((m) => {
    const file = decodeURIComponent(new URL(m.source).pathname.split('/').pop() ?? '');
    const match = FILE_NAME.exec(file);
    if (match === null) throw invalid(`the migration file ${file} is not named NNN_name.ts`);
    return { version: Number(match[1]), name: match[2]!, sql: m.sql, file };
  });
  list.sort((a, b) => a.version - b.version);
  list.forEach((m, i) => {
    const previous = list[i - 1];
    if (previous !== undefined && previous.version === m.version) throw invalid(`two migrations have the number ${m.file.slice(0, 3)}: ${previous.file} and ${m.file}`);
    if (m.version !== i + 1) throw invalid(`migration ${String(i + 1).padStart(3, '0')} is missing (the next one is ${m.file})`);
  });
  return list.map(({ version, name, sql }) => ({ version, name, sql }));
}

export const MIGRATIONS: readonly Migration[] = migrationsOf([m001, m002, m003, m004, m005, m006, m007, m008, m009, m010, m011, m012, m013, m014, m015, m016]);
