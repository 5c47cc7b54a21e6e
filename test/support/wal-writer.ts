/**
 * A child for the checkpointer test: the engine's own database (openDatabase) and
 * background checkpointer, and a writer committing small transactions back to back (one
 * event-loop turn apart, as the committer does) for `ms`. Prints one JSON line: commits,
 * the first refused commit's code, WAL restarts and truncations, and the WAL file's size
 * when the writer stopped and once it came back down (or 10 s later), and the size past
 * which the engine truncates it.
 * With PACE_MS > 0 it waits that long between commits, as the engine waits for its steps.
 * With READER_MS > 0 another connection holds a read transaction open for that long from
 * the start (as `kowalski history` or a backup in another process would).
 * Usage: wal-writer.ts DATABASE MS [CHECKPOINT_INTERVAL_MS, default 1] [PACE_MS, default 0] [READER_MS, default 0]
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { openDatabase } from '../../engine/store/database.js';
import { startCheckpointer, truncatedPastBytes } from '../../engine/store/checkpointer.js';

const [file, ms, intervalMs, paceMs, readerMs] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4] ?? 1), Number(process.argv[5] ?? 0), Number(process.argv[6] ?? 0)];
const WAL_PAGES = 64;
const db = openDatabase(file, { synchronous: 'normal' });
db.exec('CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
let restarts = 0;
let truncations = 0;
const errors: string[] = [];
const checkpointer = await startCheckpointer(db, file, {
  intervalMs, walPages: WAL_PAGES, onRestarted: () => restarts++, onTruncated: () => truncations++, onError: (m) => errors.push(m),
});
if (readerMs > 0) {
  const reader = new Database(file, { readonly: true });
  reader.exec('BEGIN');
  reader.prepare('SELECT count(*) FROM filler').get();
  setTimeout(() => { reader.exec('COMMIT'); reader.close(); }, readerMs);
}
const insert = db.prepare('INSERT INTO filler (body) VALUES (?)');
const commit = db.transaction(() => { for (let i = 0; i < 3; i++) insert.run('x'.repeat(400)); });
let commits = 0;
let refused: string | null = null;
const until = performance.now() + ms;
await new Promise<void>((resolve) => {
  const turn = (): void => {
    try {
      commit();
      commits++;
    } catch (err) {
      refused = (err as { code?: string }).code ?? String(err);
      resolve();
      return;
    }
    if (performance.now() >= until) resolve();
    else if (paceMs > 0) setTimeout(turn, paceMs);
    else setImmediate(turn);
  };
  turn();
});
// A disk busy enough can hold one checkpoint up for most of a second while commits pile
// up; what must hold is that the WAL comes back down: once the writer stops, within 10 s.
const walFileBytes = (): number => fs.statSync(`${file}-wal`).size;
const walBytesWriting = walFileBytes();
const settleBy = performance.now() + 10_000;
const truncatedPast = truncatedPastBytes(WAL_PAGES, db.pragma('page_size', { simple: true }) as number);
while (walFileBytes() > truncatedPast && performance.now() < settleBy) await new Promise((resolve) => setTimeout(resolve, 10));
await checkpointer.stop();
const walBytes = walFileBytes();
db.close();
process.stdout.write(`${JSON.stringify({ commits, refused, restarts, truncations, walBytesWriting, walBytes, truncatedPast, errors })}\n`);
