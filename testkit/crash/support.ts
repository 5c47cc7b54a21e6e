/** Shared pieces of the crash tests: run the harness as a real process, read the ledger, check the invariants. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { foldRun } from '../../actors/index.js';
import { openHistory } from '../../engine/index.js';
import { EventLog } from '../../engine/store/event-log.js';
import { sqliteRunStore } from '../../engine/store/run-store.js';
import { postgresRunStore } from '../../engine/store/pg/run-store.js';
import { PgSession } from '../../engine/store/pg/session.js';
import { openSyncPg } from '../../engine/store/pg/sync-pg.js';
import Database from 'better-sqlite3';
import { nodeArgsFor } from '../dist.js';
import { childStoreEnv, postgresUrlOf } from '../pg-store.js';

const HARNESS = new URL('./harness.ts', import.meta.url).pathname;

export interface HarnessRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  lines: string[];
  stderr: string;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  /** The child script to run (default: harness.ts, the runs' one). */
  script?: string;
  /** Kill the process with SIGKILL after this many ms. */
  killAfterMs?: number;
  /** Kill it with SIGKILL when a stdout line matches. */
  killWhen?: (line: string) => boolean;
  /** Kill it with SIGKILL `ms` after the first stdout line that matches (a start-up of any length is not counted). */
  killAfterLine?: { line: (line: string) => boolean; ms: number };
  /** Kill it with SIGKILL when this settles. */
  killOn?: Promise<unknown>;
  /** Kill it with SIGKILL once a file holds this text (checked every 20 ms, bounded by limitMs). */
  killWhenFile?: { file: string; contains: string };
  /** Give up (and fail) after this long, ms. */
  limitMs?: number;
}

/** Run a child script on `dataDir`; on Postgres (KOWALSKI_TEST_STORE) it reaches the folder's database, the same one each time. */
export async function harness(dataDir: string, args: string[], options: HarnessOptions = {}): Promise<HarnessRun> {
  const store = await childStoreEnv(dataDir);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgsFor(options.script ?? HARNESS), dataDir, ...args], {
      env: { ...process.env, ...store, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let lineKiller: NodeJS.Timeout | undefined;
    let stderr = '';
    let buf = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lines.push(line);
        if (options.killWhen?.(line) === true) child.kill('SIGKILL');
        const after = options.killAfterLine;
        if (after !== undefined && lineKiller === undefined && after.line(line)) lineKiller = setTimeout(() => child.kill('SIGKILL'), after.ms);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const killer = options.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    void options.killOn?.then(() => child.kill('SIGKILL'));
    const watch = options.killWhenFile;
    const poll = watch === undefined ? undefined : setInterval(() => {
      if (fs.existsSync(watch.file) && fs.readFileSync(watch.file, 'utf8').includes(watch.contains)) child.kill('SIGKILL');
    }, 20);
    const limit = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`harness ${args.join(' ')} did not finish in time; stderr:\n${stderr}\nstdout:\n${lines.join('\n')}`));
    }, options.limitMs ?? 60_000);
    child.on('exit', (code, signal) => {
      clearTimeout(limit);
      if (killer !== undefined) clearTimeout(killer);
      if (lineKiller !== undefined) clearTimeout(lineKiller);
      if (poll !== undefined) clearInterval(poll);
      resolve({ code, signal, lines, stderr });
    });
  });
}

export function acks(run: HarnessRun): string[] {
  return run.lines.filter((l) => l.startsWith('ACK ')).map((l) => l.slice(4));
}

/** Write a horde folder of `ledger` steps: a fork/join a → (b, c) → d. */
export function writeLedgerHorde(dir: string, kind = 'ledger', extra = ''): string {
  const h = path.join(dir, 'horde');
  fs.mkdirSync(path.join(h, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(h, 'horde.md'), `---
id = "crashy"
pipeline = ["a", "b", "c", "d"]
${extra}
[[edges]]
from = "a"
to = "b"
[[edges]]
from = "a"
to = "c"
[[edges]]
from = "b"
to = "d"
when = "pass"
[[edges]]
from = "c"
to = "d"
when = "pass"
---
`);
  for (const s of ['a', 'b', 'c', 'd']) fs.writeFileSync(path.join(h, 'agents', `${s}.md`), `---\nname = "${s}"\nkind = "${kind}"\n---\n`);
  return h;
}

export type Ledger = Map<string, number[]>;

export function readLedger(file: string): Ledger {
  const out: Ledger = new Map();
  if (!fs.existsSync(file)) return out;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const [runId, step, attempt] = line.split(' ');
    const key = `${runId}/${step}`;
    out.set(key, [...(out.get(key) ?? []), Number(attempt)]);
  }
  return out;
}

/**
 * The invariants of DESIGN.md, checked against the ledger and the run store (SQLite, or the folder's Postgres database):
 * every acknowledged run exists and finished as expected; no finished step ran again
 * (its passed attempt ran exactly once and nothing after it); earlier attempts are
 * interrupted ones; folding each run's events gives the state its projection holds.
 */
export function checkInvariants(dataDir: string, acked: Iterable<string>, ledger: Ledger, expected: 'succeeded' = 'succeeded'): { runs: number; reruns: number } {
  const url = postgresUrlOf(path.resolve(dataDir));
  const history = openHistory(dataDir, url === undefined ? process.env : { ...process.env, KOWALSKI_DATABASE_URL: url });
  assert.ok(history !== undefined, 'the database exists');
  const db = url === undefined ? new Database(path.join(dataDir, 'kowalski.sqlite'), { readonly: true }) : openSyncPg(url);
  const log = new EventLog(db instanceof Database ? sqliteRunStore(db) : postgresRunStore(new PgSession(db)));
  let reruns = 0;
  try {
    for (const id of acked) assert.doesNotThrow(() => history.getRun(id), `acknowledged run ${id} exists`);
    const all = history.listRuns({ limit: 500 });
    for (const row of all) {
      const view = history.getRun(row.id);
      assert.equal(row.state, expected, `run ${row.id} is ${row.state}: ${row.error ?? ''}`);
      const folded = foldRun(row.id, log.read(row.id).map((s) => s.event));
      assert.ok(folded.ok, `run ${row.id} replays`);
      if (folded.ok) assert.equal(folded.actor.state, row.state, `run ${row.id}: the fold and the projection agree`);
      for (const step of view.steps) {
        const passed = view.attempts.filter((a) => a.step === step.name && a.state === 'passed');
        assert.equal(passed.length, 1, `${row.id}/${step.name} passed exactly once`);
        const p = passed[0]!.attempt;
        const ran = ledger.get(`${row.id}/${step.name}`) ?? [];
        assert.equal(ran.filter((a) => a === p).length, 1, `${row.id}/${step.name} attempt ${p} left exactly one ledger line (ledger: ${ran.join(',')})`);
        assert.ok(ran.every((a) => a <= p), `${row.id}/${step.name} never ran after it finished (ledger: ${ran.join(',')})`);
        for (const a of view.attempts.filter((x) => x.step === step.name && x.attempt < p)) {
          assert.equal(a.state, 'interrupted', `${row.id}/${step.name} attempt ${a.attempt} before the passing one was interrupted`);
          reruns++;
        }
      }
    }
    return { runs: all.length, reruns };
  } finally {
    db.close();
    history.close();
  }
}
