/**
 * Run the real kowalski CLI on a pseudo-terminal, through util-linux `script` (in every
 * Debian): what is written goes in as keystrokes, what it prints (colours and cursor
 * moves taken out) comes back as it arrives.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { REPO } from '../../testkit/cli.js';
import { cliArgs } from '../../testkit/dist.js';

export interface PtyCli {
  child: ChildProcessWithoutNullStreams;
  /** Type text (`\r` is Enter, `\u0004` Ctrl-D). */
  type(text: string): void;
  /** Everything printed so far, plain. */
  output(): string;
  /** Resolves with the output once it matches after `from` (an offset in it); rejects if the process exits first. */
  until(match: RegExp, from?: number): Promise<string>;
  exited: Promise<{ code: number | null; output: string }>;
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Escape sequences (colours, cursor moves) and carriage returns out. */
export function plain(text: string): string {
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/\u001b[()][0-9A-Za-z]/g, '').replace(/\r/g, '');
}

export function startPty(home: string, args: string[], options: { limitMs?: number } = {}): PtyCli {
  const env: NodeJS.ProcessEnv = { ...process.env, KOWALSKI_HOME: home, TERM: 'xterm' };
  delete env.KOWALSKI_CRASH_AT;
  delete env.NODE_TEST_CONTEXT;
  delete env.NO_COLOR;
  const command = `stty cols 200 rows 50; exec ${[process.execPath, ...cliArgs(), ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: REPO, env, stdio: 'pipe' });
  let raw = '';
  const waiters: { match: RegExp; from: number; resolve: (s: string) => void; reject: (e: Error) => void }[] = [];
  const check = (): void => {
    const text = plain(raw);
    for (const w of [...waiters]) {
      if (w.match.test(text.slice(w.from))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(text);
      }
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    raw += chunk.toString();
    check();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    raw += chunk.toString();
    check();
  });
  const exited = new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const limit = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kowalski ${args.join(' ')} (on a pty) did not finish in time:\n${plain(raw)}`));
    }, options.limitMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(limit);
      for (const w of waiters.splice(0)) w.reject(new Error(`kowalski ${args.join(' ')} exited (${code}) before printing ${w.match}:\n${plain(raw)}`));
      resolve({ code, output: plain(raw) });
    });
  });
  return {
    child,
    type: (text) => void child.stdin.write(text),
    output: () => plain(raw),
    until(match, from = 0) {
      return new Promise((resolve, reject) => {
        if (child.exitCode !== null) return reject(new Error(`kowalski ${args.join(' ')} already exited:\n${plain(raw)}`));
        waiters.push({ match, from, resolve, reject });
        check();
      });
    },
    exited,
  };
}
