/**
 * `adapters` (every configured adapter: type, agent, state, last error, last activity) and
 * `adapters enable|disable NAME` (persisted, audited). Through the server that owns the data
 * directory, else on an embedded engine (which switches, but runs no adapter: the server does).
 */
import type { AdapterStatus } from '../../engine/index.js';
import { openEngine } from './backend.js';
import { EXIT, dataDir } from './common.js';
import { findServer } from './remote.js';

interface AdapterAccess {
  list(): Promise<AdapterStatus[]>;
  set(name: string, enabled: boolean): Promise<AdapterStatus>;
}

async function withAdapters<T>(fn: (access: AdapterAccess) => Promise<T>): Promise<T> {
  const dir = dataDir();
  const lookup = await findServer(dir);
  if (lookup.kind === 'server') {
    const { api } = lookup;
    return fn({
      list: async () => (await api.request<{ adapters: AdapterStatus[] }>('GET', 'api/adapters')).adapters,
      set: (name, on) => api.request<AdapterStatus>('POST', `api/adapters/${encodeURIComponent(name)}/${on ? 'enable' : 'disable'}`, {}),
    });
  }
  const engine = await openEngine(dir, lookup);
  try {
    return await fn({
      list: async () => engine.adapters.list(),
      set: (name, on) => (on ? engine.adapters.enable(name, 'operator (cli)') : engine.adapters.disable(name, 'operator (cli)')),
    });
  } finally {
    await engine.close();
  }
}

const when = (at: number | null): string => (at === null ? 'never' : new Date(at).toISOString());

function line(a: AdapterStatus): string {
  const switched = a.enabled ? 'on' : 'off';
  const error = a.lastError === null ? '' : `\n    ! ${a.lastError} (${when(a.lastErrorAt)})`;
  return `${a.name.padEnd(16)} ${a.type.padEnd(9)} ${switched.padEnd(4)}${a.state.padEnd(8)} agent ${a.agent ?? '-'}  last activity ${when(a.lastActivityAt)}  errors ${a.errorCount}${error}`;
}

export async function adaptersCommand(opts: { json?: boolean }): Promise<number> {
  const adapters = await withAdapters((a) => a.list());
  if (opts.json === true) process.stdout.write(`${JSON.stringify(adapters)}\n`);
  else if (adapters.length === 0) process.stdout.write('no adapter is configured: add an [adapters.<name>] section to config.toml (docs/adapters.md)\n');
  else process.stdout.write(`${adapters.map(line).join('\n')}\n`);
  return EXIT.ok;
}

/** The subcommand's options with `adapters --json` (commander gives the parent a flag both declare). */
interface Invoked { optsWithGlobals(): { json?: boolean } }

async function switchAdapter(name: string, enabled: boolean, command: Invoked): Promise<number> {
  const status = await withAdapters((a) => a.set(name, enabled));
  process.stdout.write(command.optsWithGlobals().json === true ? `${JSON.stringify(status)}\n` : `${line(status)}\n`);
  return status.state === 'error' ? EXIT.failed : EXIT.ok;
}

export const adapterEnableCommand = (name: string, _opts: unknown, command: Invoked): Promise<number> => switchAdapter(name, true, command);
export const adapterDisableCommand = (name: string, _opts: unknown, command: Invoked): Promise<number> => switchAdapter(name, false, command);
