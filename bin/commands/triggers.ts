/**
 * `triggers` (list every trigger with its switch, next firing and last firing) and
 * `triggers enable|disable <horde>/<trigger>` (persisted). Through the server that owns
 * the data directory, else on an embedded engine (which switches, but fires nothing).
 */
import { KowalskiError } from '../../core/index.js';
import type { TriggerView } from '../../engine/index.js';
import { openEngine } from './backend.js';
import { EXIT, dataDir } from './common.js';
import { findServer } from './remote.js';

interface TriggerAccess {
  list(): Promise<TriggerView[]>;
  set(hordeId: string, name: string, enabled: boolean): Promise<TriggerView>;
}

async function withTriggers<T>(fn: (access: TriggerAccess) => Promise<T>): Promise<T> {
  const dir = dataDir();
  const lookup = await findServer(dir);
  if (lookup.kind === 'server') {
    const { api } = lookup;
    return fn({ list: async () => (await api.listTriggers()).triggers, set: (h, n, on) => api.setTrigger(h, n, on) });
  }
  const engine = await openEngine(dir, lookup);
  try {
    return await fn({ list: () => engine.triggers.list(), set: (h, n, on) => engine.triggers.setEnabled(h, n, on) });
  } finally {
    await engine.close();
  }
}

function what(t: TriggerView): string {
  switch (t.kind) {
    case 'cron':
      return `${t.schedule ?? ''}${t.timezone === undefined ? '' : ` (${t.timezone})`}`;
    case 'watch':
      return `${t.path ?? ''}${t.globs === undefined ? '' : ` [${t.globs.join(', ')}]`}`;
    default:
      return `POST ${t.hookPath ?? ''}${t.signed === true ? ' (signed)' : ''}`;
  }
}

function line(t: TriggerView): string {
  const state = t.enabled ? 'on' : 'off';
  const next = t.nextFireAt === null ? '' : `  next ${new Date(t.nextFireAt).toISOString()}`;
  const last = t.lastFiring === null ? '' : `  last ${t.lastFiring.outcome} ${new Date(t.lastFiring.at).toISOString()}${t.lastFiring.runId === null ? '' : ` (${t.lastFiring.runId})`}`;
  const error = t.error === undefined ? '' : `\n    ! ${t.error}`;
  return `${`${t.hordeId}/${t.name}`.padEnd(32)} ${t.kind.padEnd(7)} ${state.padEnd(3)} ${what(t)}${next}${last}${error}`;
}

export async function triggersCommand(opts: { json?: boolean }): Promise<number> {
  const triggers = await withTriggers((a) => a.list());
  if (opts.json === true) process.stdout.write(`${JSON.stringify(triggers)}\n`);
  else if (triggers.length === 0) process.stdout.write('no horde declares a trigger\n');
  else process.stdout.write(`${triggers.map(line).join('\n')}\n`);
  return EXIT.ok;
}

function parseRef(ref: string): { hordeId: string; name: string } {
  const slash = ref.indexOf('/');
  if (slash <= 0 || slash === ref.length - 1 || ref.indexOf('/', slash + 1) !== -1) {
    throw new KowalskiError('KW_ERR_USAGE', `name the trigger as <horde>/<trigger>, e.g. spreadsheet-profile/nightly, not ${JSON.stringify(ref)}`);
  }
  return { hordeId: ref.slice(0, slash), name: ref.slice(slash + 1) };
}

async function switchTrigger(ref: string, enabled: boolean, opts: { json?: boolean }): Promise<number> {
  const { hordeId, name } = parseRef(ref);
  const view = await withTriggers((a) => a.set(hordeId, name, enabled));
  process.stdout.write(opts.json === true ? `${JSON.stringify(view)}\n` : `${line(view)}\n`);
  return EXIT.ok;
}

export const triggerEnableCommand = (ref: string, opts: { json?: boolean }): Promise<number> => switchTrigger(ref, true, opts);
export const triggerDisableCommand = (ref: string, opts: { json?: boolean }): Promise<number> => switchTrigger(ref, false, opts);
