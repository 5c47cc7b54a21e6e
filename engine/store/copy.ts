/**
 * Copy a run store into an empty one (`kowalski store copy`): every table of
 * copy-tables.ts, page by page, in ONE transaction on the target, read from one snapshot
 * of the source. Before committing, the target is checked: each table holds as many rows
 * as the source's, and every run's log folds to the state its row holds (copy-verify.ts);
 * a failed check rolls everything back. Opening, locking and migrating the two ends is
 * the caller's (engine/standalone/store-copy.ts).
 */
import { KowalskiError, NO_PROGRESS } from '../../core/index.js';
import type { Progress } from '../../contract/progress.js';
import type { CopyEnd } from './copy-ends.js';
import { COPY_TABLES } from './copy-tables.js';
import { pages, verifyFolds } from './copy-verify.js';

export interface CopyReport {
  from: string;
  to: string;
  /** Rows copied per table, in copy order. */
  tables: Array<{ table: string; rows: number }>;
  /** Runs whose log was folded on the target and agreed with their row. */
  runsVerified: number;
}

/** Rows per page read and per insert statement (default 1,000). */
/** `onProgress` is told of each page copied (phase `rows`, item the table; the total is not counted beforehand); default none. */
export function copyRunStore(source: CopyEnd, target: CopyEnd, options: { chunk?: number; onProgress?: Progress } = {}): CopyReport {
  const chunk = options.chunk ?? 1000;
  const onProgress = options.onProgress ?? NO_PROGRESS;
  let copied = 0;
  return source.transaction('read', () => target.transaction('write', () => {
    const held = COPY_TABLES.map((t) => ({ table: t.name, rows: target.count(t) })).filter((c) => c.rows > 0);
    if (held.length > 0) {
      throw new KowalskiError(
        'KW_ERR_STORE_COPY_NOT_EMPTY',
        `the target ${target.where} is not empty (${held.map((c) => `${c.table}: ${c.rows} rows`).join(', ')}); a copy goes only into an empty store. Nothing was copied.`,
      );
    }
    const tables = COPY_TABLES.map((t) => {
      let rows = 0;
      for (const page of pages(source, t, t.key, chunk)) {
        target.insert(t, page);
        rows += page.length;
        copied += page.length;
        onProgress({ phase: 'rows', done: copied, total: null, item: t.name });
      }
      return { table: t.name, rows };
    });
    target.settle(COPY_TABLES);
    for (const [i, t] of COPY_TABLES.entries()) {
      const there = target.count(t);
      const here = source.count(t);
      if (there !== tables[i]!.rows || here !== there) {
        throw new KowalskiError(
          'KW_ERR_STORE_COPY_MISMATCH',
          `${t.name}: the source ${source.where} holds ${here} rows, ${tables[i]!.rows} were copied, the target ${target.where} holds ${there}; nothing was copied (the copy was rolled back)`,
        );
      }
    }
    return { from: source.where, to: target.where, tables, runsVerified: verifyFolds(target, chunk) };
  }));
}
