/**
 * A child for the checkpointer test: the engine's own database (openDatabase) and
 * background checkpointer, and a writer committing small transactions back to back (one
 * event-loop turn apart, as the committer does) for `ms`. Prints one JSON line: commits,
 * the first refused commit's code, WAL truncations and the WAL's size at the end.
 * Usage: wal-writer.ts DATABASE MS
 */
import fs from 'node:fs';
import { openDatabase } from '../../engine/store/database.js';
import { startCheckpointer } from '../../engine/store/checkpointer.js';

const [file, ms] = [process.argv[2]!, Number(process.argv[3])];
const db = openDatabase(file, { synchronous: 'normal' });
db.exec('CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
let truncations = 0;
const errors: string[] = [];
const checkpointer = await startCheckpointer(db, file, {
  intervalMs: 1, truncatePages: 64, onTruncated: () => truncations++, onError: (m) => errors.push(m),
});
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
    if (performance.now() < until) setImmediate(turn);
    else resolve();
  };
  turn();
});
await checkpointer.stop();
const walBytes = fs.statSync(`${file}-wal`).size;
db.close();
process.stdout.write(`${JSON.stringify({ commits, refused, truncations, walBytes, errors })}\n`);
