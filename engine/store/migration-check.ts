/** What both stores check before migrating: the migrations a database recorded, against this build's. */
import { KowalskiError } from '../../core/index.js';
import type { Migration } from '../schema/index.js';

/**
 * Refuses a database recorded by a newer build, or one that recorded another migration
 * under a number this build uses. `database` names it in messages (a file, or a Postgres
 * address without its password); `file` is set when it is a file.
 */
export function checkRecorded(recorded: ReadonlyArray<{ version: number; name: string }>, migrations: readonly Migration[], database: string, file?: string): void {
  const where = file === undefined ? {} : { where: { file } };
  const known = Math.max(0, ...migrations.map((m) => m.version));
  const newest = Math.max(0, ...recorded.map((r) => r.version));
  if (newest > known) {
    throw new KowalskiError(
      'KW_ERR_STORE_TOO_NEW',
      `the database ${database} was written by a newer kowalski (schema ${newest}; this one knows ${known}). Upgrade kowalski; nothing was changed.`,
      where,
    );
  }
  const byVersion = new Map(migrations.map((m) => [m.version, m]));
  for (const r of recorded) {
    const ours = byVersion.get(r.version);
    if (ours !== undefined && ours.name !== r.name) {
      throw new KowalskiError(
        'KW_ERR_STORE_MIGRATIONS_INVALID',
        `the database ${database} recorded migration ${r.version} as "${r.name}", but this kowalski's migration ${r.version} is "${ours.name}": a shipped migration was renamed or renumbered. Nothing was changed.`,
        where,
      );
    }
  }
}
