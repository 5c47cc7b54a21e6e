/**
 * Writes per step (issue 35 item 4): what W1's 6-step no-op run writes to the SQLite file,
 * commit by commit. Statements are counted by wrapping better-sqlite3's `Statement.run`
 * (with the rows each changed) and grouped by the transaction they ran in; the bytes are
 * the WAL frames each commit appended, read from the WAL file itself (a frame is a 24-byte
 * header and one page; the last frame of a commit carries the database's size) and put
 * down to the table or index whose page it is (`dbstat`). The floor is `floor.ts`'s one
 * insert + commit per step, measured the same way.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createEngine } from '../engine/index.js';
import { engineOptions, noopSteps, removeDir, tempDir, writeHorde } from './setup.js';
import { W1_STEPS } from './w1.js';

/** One commit's writes. */
export interface CommitWrites {
  /** Each statement run in the transaction: its SQL (first words) and the rows it changed. */
  statements: { sql: string; rows: number }[];
  frames: number;
  bytes: number;
  /** WAL frames per table or index (`page 1` is the header page). */
  byTree: Record<string, number>;
}

export interface WritesSample {
  commits: CommitWrites[];
  statementsPerStep: number;
  rowsPerStep: number;
  framesPerStep: number;
  bytesPerStep: number;
  /** WAL frames per step, per table or index. */
  framesByTree: Record<string, number>;
}

const WAL_HEADER = 32;
const FRAME_HEADER = 24;

interface Frame {
  page: number;
  /** Non-zero on the last frame of a commit. */
  commitSize: number;
}

/** Where the next frame goes (after the last frame of the WAL's salt: a WAL started over keeps its file's length) and that salt. */
function walMark(walFile: string, pageSize: number): { end: number; salt: string } {
  const buf = fs.readFileSync(walFile);
  const salt = buf.subarray(16, 24).toString('hex');
  let end = WAL_HEADER;
  while (end + FRAME_HEADER + pageSize <= buf.length && buf.subarray(end + 8, end + 16).toString('hex') === salt) end += FRAME_HEADER + pageSize;
  return { end, salt };
}

/**
 * The frames written since `mark`: from there on when the WAL was not started over since,
 * else from its start (SQLite starts the WAL over at the first commit after a checkpoint
 * that copied all of it; the new frames carry a new salt, older ones past them are stale).
 */
function framesSince(walFile: string, mark: { end: number; salt: string }, pageSize: number): Frame[] {
  const buf = fs.readFileSync(walFile);
  const salt = buf.subarray(16, 24).toString('hex');
  const out: Frame[] = [];
  for (let at = salt === mark.salt ? Math.max(mark.end, WAL_HEADER) : WAL_HEADER; at + FRAME_HEADER + pageSize <= buf.length; at += FRAME_HEADER + pageSize) {
    if (buf.subarray(at + 8, at + 16).toString('hex') !== salt) break;
    out.push({ page: buf.readUInt32BE(at), commitSize: buf.readUInt32BE(at + 4) });
  }
  return out;
}

/** Which table or index each page belongs to, read through a connection of its own (it sees the WAL). */
function pageOwners(file: string): Map<number, string> {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT name, pageno FROM dbstat').all() as { name: string; pageno: number }[];
    const owners = new Map<number, string>();
    for (const r of rows) owners.set(r.pageno, r.pageno === 1 ? 'page 1' : r.name);
    return owners;
  } finally {
    db.close();
  }
}

interface Recorder {
  statements: { sql: string; rows: number }[][] | undefined;
}

/** Wrap `Statement.run` and `Database.transaction` of this process's better-sqlite3, so `rec` gets each transaction's statements while it is set. */
function instrument(rec: Recorder): () => void {
  const probe = new Database(':memory:');
  const stmtProto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as { run: (...args: unknown[]) => Database.RunResult };
  probe.close();
  const dbProto = Database.prototype as unknown as { transaction: (fn: (...args: unknown[]) => unknown) => unknown };
  const run = stmtProto.run;
  const transaction = dbProto.transaction;
  stmtProto.run = function (this: Database.Statement, ...args: unknown[]) {
    const result = run.apply(this, args);
    const open = rec.statements?.at(-1);
    // better-sqlite3's transaction runs BEGIN and COMMIT as statements too: not the caller's writes.
    if (/^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i.test(this.source)) return result;
    open?.push({ sql: this.source.replace(/\s+/g, ' ').trim(), rows: result.changes });
    return result;
  };
  dbProto.transaction = function (this: Database.Database, fn: (...args: unknown[]) => unknown) {
    return transaction.call(this, (...args: unknown[]) => {
      rec.statements?.push([]);
      return fn(...args);
    });
  };
  return () => {
    stmtProto.run = run;
    dbProto.transaction = transaction;
  };
}

function summarise(commits: CommitWrites[], steps: number): WritesSample {
  const framesByTree: Record<string, number> = {};
  for (const c of commits) for (const [tree, n] of Object.entries(c.byTree)) framesByTree[tree] = (framesByTree[tree] ?? 0) + n / steps;
  const sum = (pick: (c: CommitWrites) => number): number => commits.reduce((n, c) => n + pick(c), 0) / steps;
  return {
    commits,
    statementsPerStep: sum((c) => c.statements.length),
    rowsPerStep: sum((c) => c.statements.reduce((n, s) => n + s.rows, 0)),
    framesPerStep: sum((c) => c.frames),
    bytesPerStep: sum((c) => c.bytes),
    framesByTree,
  };
}

/** Split frames into commits (each ends with a frame carrying the database's size) and attribute their pages. */
function commitsOf(frames: Frame[], pageSize: number, owners: Map<number, string>): Omit<CommitWrites, 'statements'>[] {
  const out: Omit<CommitWrites, 'statements'>[] = [];
  let cur: Omit<CommitWrites, 'statements'> = { frames: 0, bytes: 0, byTree: {} };
  for (const f of frames) {
    cur.frames++;
    cur.bytes += FRAME_HEADER + pageSize;
    const tree = owners.get(f.page) ?? (f.page === 1 ? 'page 1' : 'freelist/other');
    cur.byTree[tree] = (cur.byTree[tree] ?? 0) + 1;
    if (f.commitSize !== 0) {
      out.push(cur);
      cur = { frames: 0, bytes: 0, byTree: {} };
    }
  }
  return out;
}

/**
 * `runs` runs of W1's horde, one at a time, after `warmup` (so the tables have pages and
 * the measured runs write as a run does on a used database); each run's commits measured.
 * Returns the last run's commits and the per-step means over all `runs`.
 */
export async function writesOnce(runs: number, warmup = 20): Promise<WritesSample & { floor: WritesSample }> {
  const dir = tempDir('writes');
  const rec: Recorder = { statements: undefined };
  const restore = instrument(rec);
  try {
    const hordeDir = writeHorde(dir, 'bench-writes', noopSteps());
    const dataDir = path.join(dir, 'data');
    const engine = await createEngine(engineOptions(dataDir, 'normal', 4));
    const file = path.join(dataDir, 'kowalski.sqlite');
    const wal = `${file}-wal`;
    const all: CommitWrites[] = [];
    let last: CommitWrites[] = [];
    try {
      const { horde } = await engine.resolveHorde(hordeDir);
      for (let i = 0; i < warmup; i++) await engine.waitForRun(await engine.startRun(horde, {}, { provenance: 'bench' }));
      for (let i = 0, tries = 0; i < runs; ) {
        const mark = walMark(wal, 4096);
        rec.statements = [];
        const id = await engine.startRun(horde, {}, { provenance: 'bench' });
        if ((await engine.waitForRun(id)) !== 'succeeded') throw new Error(`run ${id} did not succeed`);
        const statements = rec.statements;
        rec.statements = undefined;
        const commits = commitsOf(framesSince(wal, mark, 4096), 4096, pageOwners(file));
        if (commits.length !== statements.length) {
          // The WAL started over in the middle of the run (a checkpoint between two of its commits): measure another.
          if (++tries > 20) throw new Error(`${commits.length} commits in the WAL, ${statements.length} transactions seen`);
          continue;
        }
        last = commits.map((c, k) => ({ ...c, statements: statements[k]! }));
        all.push(...last);
        i++;
      }
    } finally {
      await engine.close();
    }
    const sample = summarise(all, runs * W1_STEPS);
    return { ...sample, commits: last, floor: floorWrites(runs, rec) };
  } finally {
    restore();
    removeDir(dir);
  }
}

/** floor.ts's floor: one event-sized insert per step, each in its own commit, measured the same way. */
function floorWrites(runs: number, rec: Recorder): WritesSample {
  const dir = tempDir('writes-floor');
  try {
    const file = path.join(dir, 'floor.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, at INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (run_id, seq))');
    const body = JSON.stringify({ type: 'step.finished', step: 's3', attempt: 1, outcome: 'pass', durationMs: 1, summary: 'x'.repeat(200) });
    const insert = db.prepare('INSERT INTO events (run_id, seq, at, body) VALUES (?, ?, ?, ?)');
    const commit = db.transaction((runId: string, seq: number) => insert.run(runId, seq, Date.now(), body));
    for (let i = 0; i < 20 * W1_STEPS; i++) commit(`warmup${Math.floor(i / W1_STEPS)}`, i % W1_STEPS);
    const mark = walMark(`${file}-wal`, 4096);
    rec.statements = [];
    for (let i = 0; i < runs * W1_STEPS; i++) commit(`r${Math.floor(i / W1_STEPS)}`, i % W1_STEPS);
    const statements = rec.statements;
    rec.statements = undefined;
    const commits = commitsOf(framesSince(`${file}-wal`, mark, 4096), 4096, pageOwners(file)).map((c, k) => ({ ...c, statements: statements[k] ?? [] }));
    db.close();
    return summarise(commits, runs * W1_STEPS);
  } finally {
    removeDir(dir);
  }
}

/** `node dist/bench/writes.js [--runs=10]`: each commit of the last run, then the means per step. */
async function main(): Promise<void> {
  const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 10);
  const s = await writesOnce(runs);
  const lines: string[] = [];
  s.commits.forEach((c, i) => {
    lines.push(`commit ${i + 1}: ${c.statements.length} statements, ${c.frames} frames (${c.bytes} B): ${Object.entries(c.byTree).map(([t, n]) => `${t} ${n}`).join(', ')}`);
    for (const st of c.statements) lines.push(`    ${st.rows} row(s)  ${st.sql.slice(0, 110)}`);
  });
  const per = (w: WritesSample): string =>
    `${w.statementsPerStep.toFixed(2)} statements, ${w.rowsPerStep.toFixed(2)} rows, ${w.framesPerStep.toFixed(2)} frames, ${Math.round(w.bytesPerStep)} B per step; frames per step: ` +
    Object.entries(w.framesByTree).sort((a, b) => b[1] - a[1]).map(([t, n]) => `${t} ${n.toFixed(2)}`).join(', ');
  lines.push(`kowalski (${runs} runs): ${per(s)}`);
  lines.push(`floor: ${per(s.floor)}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(path.basename(process.argv[1]))) await main();
