/** Small plugin folders written by a test, and a plugin's process started on them with its failures recorded. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { systemClock } from '../../engine/clock.js';
import { startPluginProcess } from '../../engine/plugins/runner/index.js';
import type { PluginProcess, PluginProcessOptions } from '../../engine/plugins/runner/index.js';
import type { PluginPermissions } from '../../engine/plugins/types.js';
import { systemTimers } from '../../engine/triggers/timers.js';
import { cleanups } from './cleanup.js';

export const NO_GRANTS: PluginPermissions = { fsRead: [], fsWrite: [], net: [], env: [], exec: false };

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
    ...rest,
    onFailure: (phase, err) => failures.push({ phase, err }),
  });
  cleanups(t)(() => proc.stop());
  return { dir, root, dataDir, proc, failures, call: (tool, args = {}) => proc.call(tool, args, new AbortController().signal) };
}
