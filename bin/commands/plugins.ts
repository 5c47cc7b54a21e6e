/**
 * `plugins` (each plugin found: state, version, permissions in plain words, warnings and
 * failures with their phase) and `plugins grant|revoke NAME` (audited as the user running the
 * command). Through the server that owns the data directory, else on an embedded engine.
 */
import os from 'node:os';
import type { Command } from 'commander';
import type { PluginStatus } from '../../engine/index.js';
import { openEngine } from './backend.js';
import { EXIT, dataDir } from './common.js';
import { findServer } from './remote.js';

interface PluginAccess {
  list(): Promise<PluginStatus[]>;
  set(name: string, grant: boolean, by: string): Promise<PluginStatus>;
}

async function withPlugins<T>(fn: (access: PluginAccess) => Promise<T>): Promise<T> {
  const dir = dataDir();
  const lookup = await findServer(dir);
  if (lookup.kind === 'server') {
    const { api } = lookup;
    return fn({ list: async () => (await api.listPlugins()).plugins, set: (name, grant, by) => api.setPluginGrant(name, grant, by) });
  }
  const engine = await openEngine(dir, lookup);
  try {
    return await fn({
      list: async () => engine.plugins.list(),
      set: async (name, grant, by) => (grant ? engine.plugins.grant(name, by) : engine.plugins.revoke(name, by)),
    });
  } finally {
    await engine.close();
  }
}

function describe(p: PluginStatus): string {
  const head = `${p.name.padEnd(24)} ${p.state.padEnd(8)} ${p.version ?? '?'}  (${p.source} ${p.root})`;
  const lines = [head];
  if (p.description !== null) lines.push(`    ${p.description}`);
  for (const w of p.permissionsText) lines.push(`    may ${w}`);
  if (p.tools.length > 0) lines.push(`    tools: ${p.tools.map((t) => t.name).join(', ')}`);
  if (p.grantedBy !== null && p.grantedAt !== null) lines.push(`    granted by ${p.grantedBy} at ${new Date(p.grantedAt).toISOString()}`);
  for (const w of p.warnings) lines.push(`    warning: ${w}`);
  for (const f of p.failures) lines.push(`    ! ${f.phase}: ${f.message.split('\n').join('\n      ')}`);
  return lines.join('\n');
}

export async function pluginsCommand(opts: { json?: boolean }): Promise<number> {
  const plugins = await withPlugins((a) => a.list());
  if (opts.json === true) process.stdout.write(`${JSON.stringify(plugins)}\n`);
  else if (plugins.length === 0) process.stdout.write('no plugins found (install one under <data>/plugins/: see docs/plugins.md)\n');
  else process.stdout.write(`${plugins.map(describe).join('\n')}\n`);
  return EXIT.ok;
}

/** `plugins grant NAME --json`: commander gives `--json` to `plugins`, which declares it too; read it from there as well. */
async function setGrant(name: string, grant: boolean, opts: { json?: boolean }, cmd?: Command): Promise<number> {
  const json = opts.json === true || cmd?.optsWithGlobals<{ json?: boolean }>().json === true;
  const view = await withPlugins((a) => a.set(name, grant, `${os.userInfo().username} (cli)`));
  process.stdout.write(json ? `${JSON.stringify(view)}\n` : `${describe(view)}\n`);
  return EXIT.ok;
}

export const pluginGrantCommand = (name: string, opts: { json?: boolean }, cmd?: Command): Promise<number> => setGrant(name, true, opts, cmd);
export const pluginRevokeCommand = (name: string, opts: { json?: boolean }, cmd?: Command): Promise<number> => setGrant(name, false, opts, cmd);
