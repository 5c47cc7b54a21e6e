/**
 * A plugin's permissions as one canonical form: sorted, without duplicates, in a fixed key
 * order. Its sha256 keys the grant (with name and version), so any change to what a plugin
 * asks for sends it back to pending. Also the permissions in plain words, as the app and
 * `kowalski plugins` show them to the operator who grants them.
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import type { PluginPermissions } from './types.js';

export const NO_PERMISSIONS: PluginPermissions = { fsRead: [], fsWrite: [], net: [], env: [], exec: false };

const sorted = (list: readonly string[]): string[] => [...new Set(list)].sort();

export function canonicalPermissions(p: PluginPermissions): PluginPermissions {
  return { fsRead: sorted(p.fsRead), fsWrite: sorted(p.fsWrite), net: sorted(p.net), env: sorted(p.env), exec: p.exec };
}

/** sha256 (hex) of the canonical permissions' JSON. */
export function permissionsHash(p: PluginPermissions): string {
  const c = canonicalPermissions(p);
  const text = JSON.stringify({ fs_read: c.fsRead, fs_write: c.fsWrite, net: c.net, env: c.env, exec: c.exec });
  return createHash('sha256').update(text).digest('hex');
}

/** `/home/ann/Documents` → `~/Documents`: how the operator wrote it. */
function shown(p: string, home: string): string {
  return p === home ? '~' : p.startsWith(`${home}/`) ? `~/${p.slice(home.length + 1)}` : p;
}

/** One line per permission, in plain words ("read files in ~/Documents", "reach api.example.com"). */
export function permissionsInWords(p: PluginPermissions, home: string = os.homedir()): string[] {
  const c = canonicalPermissions(p);
  const lines = [
    ...c.fsRead.map((f) => `read files in ${shown(f, home)}`),
    ...c.fsWrite.map((f) => `write files in ${shown(f, home)}`),
    ...c.net.map((h) => h.startsWith('*.') ? `reach any host under ${h.slice(2)} (through kowalski's fetch)` : `reach ${h} (through kowalski's fetch)`),
    ...c.env.map((e) => `read the environment variable ${e}`),
  ];
  if (c.exec) lines.push('start other programs (child processes and workers)');
  return lines.length === 0 ? ['nothing beyond its own folder'] : lines;
}
