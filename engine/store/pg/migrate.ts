/**
 * Apply the Postgres run store's missing migrations, in one transaction that first takes
 * an advisory lock: nodes starting together on one database apply each migration once
 * (the others wait on the lock, then find nothing to do). Refuses a database recorded by a
 * newer build, or one whose recorded migration has another name under the same number.
 * Returns the migrations it applied (none: the database was current).
 */
import { KowalskiError, messageOf } from '../../../core/index.js';
import { systemClock } from '../../base/clock.js';
import type { Clock } from '../../base/clock.js';
import type { Migration } from '../../schema/index.js';
import { checkRecorded } from '../migration-check.js';
import { PG_MIGRATIONS } from './schema/index.js';
import type { SyncPg } from './sync-pg.js';

/** The advisory lock key migrations take ("kw-migra" in ASCII). */
const MIGRATE_LOCK = 0x6b772d6d69677261n.toString();

/** `database` names it in messages (its address without the password). */
export function migratePg(pg: SyncPg, database: string, migrations: readonly Migration[] = PG_MIGRATIONS, clock: Clock = systemClock): Migration[] {
  return pg.transaction(() => {
    pg.get('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATE_LOCK]);
    pg.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    const recorded = pg.all<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version');
    checkRecorded(recorded, migrations, database);
    const applied = new Set(recorded.map((r) => r.version));
    const done: Migration[] = [];
    for (const m of migrations) {
      if (applied.has(m.version)) continue;
      try {
        pg.exec(m.sql);
      } catch (err) {
        // Class 23: integrity constraint violation (a row the migration's constraint refuses).
        if (!String((err as { code?: string }).code ?? '').startsWith('23')) throw err;
        throw new KowalskiError(
          'KW_ERR_STORE_MIGRATION_FAILED',
          `migration ${String(m.version).padStart(3, '0')}_${m.name} cannot be applied to ${database}: a row breaks it (${messageOf(err)}). ` +
            'Nothing was changed; this kowalski will not start on that database. Find the row with psql, or keep using the previous kowalski, and report it.',
          { cause: err },
        );
      }
      pg.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, clock.now()]);
      done.push(m);
    }
    return done;
  })();
}
