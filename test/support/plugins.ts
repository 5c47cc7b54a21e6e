/** Small plugin folders written by a test, and a plugin's process started on them with its failures recorded. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { systemClock } from '../../engine/base/clock.js';
import { detectSandbox, startPluginProcess } from '../../engine/plugins/runner/index.js';
import type { PluginProcess, PluginProcessOptions, Sandbox } from '../../engine/plugins/runner/index.js';
import type { PluginPermissions } from '../../engine/plugins/types.js';
import { systemTimers } from '../../engine/base/timers.js';
import { findTokenProcesses } from '../../steps/index.js';
import { cleanups } from '../../testkit/cleanup.js';

export const NO_GRANTS: PluginPermissions = { fsRead: [], fsWrite: [], net: [], env: [], exec: false };

let found: Promise<Sandbox> | undefined;
/** This machine's confinement (bubblewrap where it works), found once per test file. */
export function machineSandbox(): Promise<Sandbox> {
  found ??= detectSandbox();
  return found;
}

/** No bubblewrap: Node's permission model only, as on a machine without it. */
export const NODE_ONLY: Sandbox = { kind: 'node', cause: 'off', reason: 'bubblewrap is turned off for this test' };

/**
 * A mark put in this process's environment as KOWALSKI_STEP_TOKEN (restored after the test): a plugin
 * granted `env = ["KOWALSKI_STEP_TOKEN"]` carries it, and so does whatever it starts, so they are found
 * from outside its PID namespace (where the pids it sees mean nothing).
 */
export function markProcesses(t: TestContext): string {
  const before = process.env.KOWALSKI_STEP_TOKEN;
  const mark = `kw-plugin-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
  process.env.KOWALSKI_STEP_TOKEN = mark;
  cleanups(t)(() => {
    if (before === undefined) delete process.env.KOWALSKI_STEP_TOKEN;
    else process.env.KOWALSKI_STEP_TOKEN = before;
  });
  return mark;
}

/** The live processes carrying the mark, with their command lines (`sleep 60`); `except` left out. */
export function markedProcesses(mark: string, except: readonly number[] = []): { pid: number; command: string }[] {
  const out: { pid: number; command: string }[] = [];
  for (const pid of findTokenProcesses(mark).filter((p) => !except.includes(p))) {
    try {
      out.push({ pid, command: fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim() });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export interface TestPlugin {
  /** The folder the plugin's folder and data folder are in (a real path); nothing in it is granted. */
  dir: string;
  root: string;
  dataDir: string;
  proc: PluginProcess;
  failures: { phase: 'start' | 'call'; err: Error }[];
  /** Calls a tool with a fresh signal. */
  call(tool: string, args?: Record<string, unknown>): ReturnType<PluginProcess['call']>;
}

/**
 * Writes `files` (path → text) as the plugin's folder (an ES module package) and starts its process.
 * Every export of `index.js` named in `tools` is a tool of that name.
 */
export function startTestPlugin(
  t: TestContext,
  files: Record<string, string>,
  tools: string[],
  options: Partial<Omit<PluginProcessOptions, 'onFailure' | 'tools' | 'root' | 'dataDir' | 'timers'>> & {
    /** Default: the machine's (bubblewrap where it works). */
    sandbox?: PluginProcessOptions['sandbox'];
    tools?: PluginProcessOptions['tools'];
    /** Called with the plugin's folder once its files are written, before its process starts. */
    prepare?: (root: string) => void;
  } = {},
): TestPlugin {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'kw-plugin-')));
  cleanups(t)(() => fs.rmSync(dir, { recursive: true, force: true }));
  const root = path.join(dir, 'plugin');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'test-plugin', type: 'module' }));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  const { prepare, ...rest } = options;
  prepare?.(root);
  const dataDir = path.join(dir, 'data');
  const failures: TestPlugin['failures'] = [];
  const proc = startPluginProcess({
    name: options.name ?? 'hello',
    root,
    dataDir,
    permissions: NO_GRANTS,
    timers: systemTimers(options.clock ?? systemClock),
    tools: tools.map((name) => ({ name, entry: 'index.js', export: name })),
    sandbox: machineSandbox(),
    privateDirs: [],
    ...rest,
    onFailure: (phase, err) => failures.push({ phase, err }),
  });
  cleanups(t)(() => proc.stop());
  return { dir, root, dataDir, proc, failures, call: (tool, args = {}) => proc.call(tool, args, new AbortController().signal) };
}
