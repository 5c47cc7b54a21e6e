/**
 * The peers of the peers bench (issue 35): Mastra, LangGraph.js and DBOS, each driven in
 * the same shape as kowalski's W1 (6 no-op steps, one at a time, then Promise.all batches)
 * and parked at step 3 by one process, resumed by a new one. They are not dependencies of
 * kowalski: `bash bench/peers/install.sh` installs each driver (bench/peers/<peer>/ and
 * common.mjs) with its pinned versions into a folder of its own, KOWALSKI_BENCH_PEERS
 * (default ~/.cache/kowalski-bench-peers); KOWALSKI_BENCH_DBOS may name DBOS's folder alone.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeDir, tempDir } from './setup.js';

export type PeerName = 'mastra' | 'langgraph' | 'dbos';

const DRIVERS: Record<PeerName, { driver: string; pkg: string }> = {
  mastra: { driver: 'driver.mjs', pkg: '@mastra/core' },
  langgraph: { driver: 'driver.mjs', pkg: '@langchain/langgraph' },
  dbos: { driver: 'w1.mjs', pkg: '@dbos-inc/dbos-sdk' },
};

export interface PeerTimes {
  usPerStep: number;
  runsPerSec: number;
  /** The peer's whole process, per step, µs. */
  cpuUsPerStep: number;
  failed: number;
}

export interface PeerSample {
  peer: string;
  version: string;
  store: string;
  oneAtATime: PeerTimes;
  /** Promise.all batches. */
  batches: PeerTimes;
  parked: number;
  /** From letting the first parked run go on (a new process) to the last one's success. */
  resume: { ms: number; runs: number; bad: number };
}

export interface PeerRun {
  runs: number;
  batch: number;
  park: number;
  /** DBOS's Postgres database (DBOS creates it). */
  url?: string;
}

export function peersHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.KOWALSKI_BENCH_PEERS !== undefined && env.KOWALSKI_BENCH_PEERS !== '' ? env.KOWALSKI_BENCH_PEERS : path.join(os.homedir(), '.cache', 'kowalski-bench-peers');
}

/** The peer's installed folder, or why it cannot run. */
export function peerDir(name: PeerName, env: NodeJS.ProcessEnv = process.env): { dir: string } | { skipped: string } {
  const own = name === 'dbos' ? env.KOWALSKI_BENCH_DBOS : undefined;
  const dir = own !== undefined && own !== '' ? own : path.join(peersHome(env), name);
  const { driver, pkg } = DRIVERS[name];
  const install = 'bash bench/peers/install.sh installs it';
  if (!fs.existsSync(path.join(dir, driver)) || !fs.existsSync(path.join(dir, 'common.mjs'))) return { skipped: `${dir} has no ${driver} and common.mjs (${install})` };
  if (!fs.existsSync(path.join(dir, 'node_modules', pkg))) return { skipped: `${dir} has no node_modules/${pkg} (${install})` };
  return { dir };
}

/** One run of the peer's driver in its own process, in a scratch folder removed afterwards. */
export async function peerOnce(name: PeerName, dir: string, o: PeerRun): Promise<PeerSample> {
  const scratch = tempDir(`peer-${name}`);
  try {
    const argv = [path.join(dir, DRIVERS[name].driver), `--dir=${scratch}`, `--runs=${o.runs}`, `--batch=${o.batch}`, `--park=${o.park}`, ...(o.url === undefined ? [] : [`--url=${o.url}`])];
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, argv, { cwd: dir, timeout: 900_000, maxBuffer: 16 * 2 ** 20 }, (err, out, stderr) => {
        if (err !== null) reject(new Error(`the ${name} driver failed: ${err.message}\n${stderr.slice(-2000)}`));
        else resolve(out);
      });
    });
    const last = stdout.trim().split('\n').at(-1) ?? '';
    try {
      return JSON.parse(last) as PeerSample;
    } catch {
      throw new Error(`the ${name} driver printed no JSON line: ${stdout.slice(-500)}`);
    }
  } finally {
    removeDir(scratch);
  }
}
