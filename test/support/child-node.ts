/** A node of a shared store in a child process (a testkit script such as testkit/pg-chat-node.ts), and the facts it prints, one JSON line each. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import type { TestContext } from 'node:test';
import { cleanups } from '../../testkit/cleanup.js';
import { nodeArgsFor } from '../../testkit/dist.js';
import { waitFor } from '../../testkit/wait.js';

export interface ChildNode {
  child: ChildProcess;
  facts: Array<Record<string, unknown>>;
  /** The value of the first fact that has `key`, once printed (30 s at most). */
  fact(key: string): Promise<unknown>;
}

/** `script` (a testkit source, run from dist/) with `args`; killed at the test's end if still alive. */
export function childNode(t: TestContext, script: string, args: readonly string[]): ChildNode {
  const child = spawn(process.execPath, [...nodeArgsFor(script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups(t)(() => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  });
  const facts: Array<Record<string, unknown>> = [];
  readline.createInterface({ input: child.stdout! }).on('line', (line) => facts.push(JSON.parse(line) as Record<string, unknown>));
  return {
    child, facts,
    async fact(key) {
      await waitFor(() => facts.some((f) => key in f), `the child node printed ${key}`, 30_000);
      return facts.find((f) => key in f)![key];
    },
  };
}
