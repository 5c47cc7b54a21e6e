/** Run the real kowalski CLI as a child process (the built one, see dist.ts) and collect what it printed and how it exited. */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { REPO, cliArgs } from './dist.js';
import { tempDir } from './tmp.js';

/** The repository root: children run there. */
export { REPO };
/** The CLI's source; a child runs `node ...cliArgs() <args>` (dist.ts), the built CLI when dist/ is current. */
export const CLI = path.join(REPO, 'bin', 'kowalski.ts');
/** The built-in hordes shipped in the package. */
export const BUILTIN_HORDES = path.join(REPO, 'hordes');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Kill the child with SIGKILL and fail after this long (a guard against a hung test, not a wait). Default 60 s. */
  limitMs?: number;
  /** Variables set (or, when undefined, removed) in the child's environment on top of the test's. */
  env?: NodeJS.ProcessEnv;
  /** The program and its first arguments, run instead of the built CLI (`node ...cliArgs()`): an installed `kowalski`, `sh install.sh`. */
  command?: string[];
  /** The child's working folder. Default: the repository root. */
  cwd?: string;
}

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  /** Resolves with the first stderr line that matches; rejects if the process exits first. */
  stderrLine(match: RegExp): Promise<string>;
  /** Resolves when the process has exited. */
  exited: Promise<CliResult>;
}

function cliEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, KOWALSKI_HOME: home };
  delete env.KOWALSKI_CRASH_AT;
  delete env.KOWALSKI_DEBUG;
  delete env.NODE_TEST_CONTEXT;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Start `kowalski <args>` with `KOWALSKI_HOME=home`; stdin closed, stdout and stderr piped (so not a terminal). */
export function startCli(home: string, args: string[], options: CliOptions = {}): RunningCli {
  const [file, ...first] = options.command ?? [process.execPath, ...cliArgs()];
  const child = spawn(file!, [...first, ...args], { cwd: options.cwd ?? REPO, env: cliEnv(home, options.env), stdio: 'pipe' });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  let pending = '';
  const waiters: { match: RegExp; resolve: (line: string) => void; reject: (err: Error) => void }[] = [];
  const lines: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    stderr += text;
    pending += text;
    let i;
    while ((i = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, i);
      pending = pending.slice(i + 1);
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.match.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  const exited = new Promise<CliResult>((resolve, reject) => {
    const limit = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kowalski ${args.join(' ')} did not finish in time\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, options.limitMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      const result = { code, signal, stdout, stderr };
      for (const w of waiters.splice(0)) w.reject(new Error(`kowalski ${args.join(' ')} exited (${code ?? signal}) before printing a line matching ${w.match}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
      resolve(result);
    });
  });
  return {
    child,
    exited,
    stderrLine(match) {
      const seen = lines.find((l) => match.test(l));
      if (seen !== undefined) return Promise.resolve(seen);
      if (child.exitCode !== null || child.signalCode !== null) return Promise.reject(new Error(`kowalski ${args.join(' ')} already exited`));
      return new Promise((resolve, reject) => waiters.push({ match, resolve, reject }));
    },
  };
}

/** Run `kowalski <args>` to the end. */
export function cli(home: string, args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(home, args, options).exited;
}

/** The result's stdout as one JSON value (fails with the whole output when it is not). */
export function stdoutJson<T = Record<string, unknown>>(r: CliResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`stdout is not one JSON value (exit ${r.code}):\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  }
}

/** Exit code, stdout and stderr in one string, for assertion messages. */
export function outputOf(r: CliResult): string {
  return `exit ${r.code ?? r.signal}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
}

/** A fresh temp folder for the test: `home` (KOWALSKI_HOME, not created yet) and `root` for hordes and files. */
export function cliSandbox(t: TestContext): { root: string; home: string } {
  const root = fs.realpathSync(tempDir(t, 'kw-cli-'));
  return { root, home: path.join(root, 'home') };
}

/** Write a horde folder: `horde.md` front matter and one `agents/<name>.md` per step (TOML lines). */
export function writeHorde(dir: string, hordeToml: string, steps: Record<string, string>): string {
  fs.mkdirSync(path.join(dir, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'horde.md'), `---\n${hordeToml.trim()}\n---\n`);
  for (const [name, toml] of Object.entries(steps)) fs.writeFileSync(path.join(dir, 'agents', `${name}.md`), `---\nname = "${name}"\n${toml.trim()}\n---\n`);
  return dir;
}

/** A verify step's TOML: `verify_command` as a TOML string. */
export function verifyStep(command: string, extra = ''): string {
  return `kind = "verify"\nverify_command = ${JSON.stringify(command)}\n${extra}`;
}

/** The lines of a file, [] when it does not exist (a verify command appends one line per run to prove what ran). */
export function linesOf(file: string): string[] {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
}

/** The `kowalski approve <run-id> --step <step>` line a parked run prints, as arguments for `cli`. */
export function approveLine(stdout: string): { runId: string; step: string; args: string[] } {
  const m = /^approve: kowalski (approve (r[0-9a-z]+) --step (\S+))$/m.exec(stdout);
  if (m === null) throw new Error(`no "approve: kowalski approve <run-id> --step <step>" line in:\n${stdout}`);
  return { runId: m[2]!, step: m[3]!, args: m[1]!.split(' ') };
}

/** A step as `run --json` and `show --json` print it (the fields the tests look at). */
export interface StepJson {
  name: string;
  state: string;
  attempt: number;
  outcome: 'pass' | 'fail' | null;
  error: { code: string; message: string | null } | null;
}

/** A run as `run --json`, `approve --json` and `show --json` print it. */
export interface RunJson {
  runId: string;
  state: string;
  horde: string;
  input: Record<string, string>;
  error: { code: string; message: string } | null;
  steps: StepJson[];
  pendingApproval: null | {
    step: string;
    reason: string;
    command: { argv: string[]; cwd: string; env: string[] };
    hash: string;
    approve: string;
  };
}

/** name, state, attempt and outcome of each step, for deepEqual. */
export function brief(steps: StepJson[]): Pick<StepJson, 'name' | 'state' | 'attempt' | 'outcome'>[] {
  return steps.map(({ name, state, attempt, outcome }) => ({ name, state, attempt, outcome }));
}
