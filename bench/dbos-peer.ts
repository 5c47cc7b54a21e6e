/**
 * DBOS Transact beside kowalski on the same Postgres (issue 18). DBOS is not a
 * dependency of kowalski: its driver (bench/peers/dbos/w1.mjs) runs from a folder of its
 * own where `@dbos-inc/dbos-sdk` is installed, named by KOWALSKI_BENCH_DBOS.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface DbosTimes {
  usPerStep: number;
  runsPerSec: number;
  failed: number;
}

export interface DbosSample {
  version: string;
  oneAtATime: DbosTimes;
  /** Promise.all batches of `batch`. */
  batches: DbosTimes;
}

/** The folder of KOWALSKI_BENCH_DBOS if it holds the driver and an installed SDK; else why not. */
export function dbosPeerDir(env: NodeJS.ProcessEnv = process.env): { dir: string } | { skipped: string } {
  const dir = env.KOWALSKI_BENCH_DBOS;
  if (dir === undefined || dir === '') return { skipped: 'KOWALSKI_BENCH_DBOS is not set (bench/README.md says how to install the DBOS driver)' };
  if (!fs.existsSync(path.join(dir, 'w1.mjs'))) return { skipped: `${dir} has no w1.mjs (copy bench/peers/dbos/ there)` };
  if (!fs.existsSync(path.join(dir, 'node_modules', '@dbos-inc', 'dbos-sdk'))) return { skipped: `${dir} has no node_modules/@dbos-inc/dbos-sdk (run npm install there)` };
  return { dir };
}

/** One run of the driver against the database at `url` (DBOS creates it): W1 one at a time, then in batches. */
export function dbosW1Once(dir: string, url: string, runs: number, batch: number): Promise<DbosSample> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(dir, 'w1.mjs'), `--url=${url}`, `--runs=${runs}`, `--batch=${batch}`], { cwd: dir, timeout: 600_000, maxBuffer: 16 * 2 ** 20 }, (err, stdout, stderr) => {
      if (err !== null) {
        reject(new Error(`the DBOS driver failed: ${err.message}\n${stderr.slice(-2000)}`));
        return;
      }
      const last = stdout.trim().split('\n').at(-1) ?? '';
      try {
        const out = JSON.parse(last) as { dbos: string; oneAtATime: DbosTimes; batches: DbosTimes };
        resolve({ version: out.dbos, oneAtATime: out.oneAtATime, batches: out.batches });
      } catch {
        reject(new Error(`the DBOS driver printed no JSON line: ${stdout.slice(-500)}`));
      }
    });
  });
}
