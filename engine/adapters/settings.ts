/**
 * Reading `[adapters.<name>]` sections: the keys every adapter has (`type`, `enabled`,
 * `agent`) and helpers a definition's `settings()` uses for its own keys — strings, URLs,
 * whole numbers, and secrets that may come from the environment (`<key>_env = "NAME"`).
 * Every problem is KW_ERR_ADAPTER_CONFIG naming `[adapters.<name>] <key>`.
 */
import { ENV_NAME, KowalskiError } from '../../core/index.js';
import { SECRET_KEY_NAME } from '../secrets/secret-list.js';
import { ADAPTER_TYPES } from './types.js';
import type { AdapterType } from './types.js';

/** What config.toml says of one adapter; the rest of its section goes to its definition's `settings()`. */
export interface AdapterConfig {
  name: string;
  type: AdapterType;
  /** `enabled` (default false): switched on at start, unless the operator switched it since (the app, `kowalski adapters`). */
  enabled: boolean;
  /** `agent` (default `assistant`; none for the calendar, which gives tools): the agent its messages go to. */
  agent: string | null;
  /** The section's other keys, as written. */
  settings: Record<string, unknown>;
}

const NAME = /^[a-z][a-z0-9_-]{0,63}$/;
const AGENT = /^[a-z][a-z0-9-]*$/;

export function adapterConfigError(name: string, key: string, message: string, file = 'config.toml'): KowalskiError {
  return new KowalskiError('KW_ERR_ADAPTER_CONFIG', `${file}: [adapters.${name}] ${key}: ${message}`, { where: { file, key: `adapters.${name}.${key}` } });
}

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every `[adapters.<name>]` of the parsed file, their common keys checked. */
export function adaptersFrom(raw: Record<string, unknown>, file: string): AdapterConfig[] {
  const section = raw.adapters;
  if (section === undefined) return [];
  if (!isTable(section)) throw new KowalskiError('KW_ERR_ADAPTER_CONFIG', `${file}: adapters must be a table of [adapters.<name>] sections`, { where: { file, key: 'adapters' } });
  return Object.entries(section).map(([name, value]) => {
    if (!NAME.test(name)) throw new KowalskiError('KW_ERR_ADAPTER_CONFIG', `${file}: [adapters.${name}]: an adapter's name is a lowercase letter, then letters, digits, - or _ (at most 64)`, { where: { file, key: `adapters.${name}` } });
    if (!isTable(value)) throw adapterConfigError(name, '(section)', 'must be a table of settings', file);
    const { type = name, enabled = false, agent, ...settings } = value;
    if (typeof type !== 'string' || !(ADAPTER_TYPES as readonly string[]).includes(type)) {
      throw adapterConfigError(name, 'type', `must be one of ${ADAPTER_TYPES.join(', ')}, not ${JSON.stringify(type)}${value.type === undefined ? ' (type defaults to the section name)' : ''}`, file);
    }
    if (typeof enabled !== 'boolean') throw adapterConfigError(name, 'enabled', `must be true or false, not ${JSON.stringify(enabled)}`, file);
    if (agent !== undefined && (typeof agent !== 'string' || !AGENT.test(agent))) throw adapterConfigError(name, 'agent', `must name an agent of the team (lowercase letters, digits and -), not ${JSON.stringify(agent)}`, file);
    const adapterType = type as AdapterType;
    return { name, type: adapterType, enabled, agent: agent ?? (adapterType === 'calendar' ? null : 'assistant'), settings };
  });
}

/** A string setting; `required` makes its absence an error. */
export function stringSetting(raw: Record<string, unknown>, name: string, key: string, options: { required: true }): string;
export function stringSetting(raw: Record<string, unknown>, name: string, key: string, options?: { required?: boolean }): string | undefined;
export function stringSetting(raw: Record<string, unknown>, name: string, key: string, options: { required?: boolean } = {}): string | undefined {
  const v = raw[key];
  if (v === undefined || v === '') {
    if (options.required === true) throw adapterConfigError(name, key, 'is required');
    return undefined;
  }
  if (typeof v !== 'string') throw adapterConfigError(name, key, `must be a string, not ${JSON.stringify(v)}`);
  return v;
}

/** An http(s) URL setting, or `fallback` (e.g. the real service's API base). */
export function urlSetting(raw: Record<string, unknown>, name: string, key: string, fallback?: string): string | undefined {
  const v = stringSetting(raw, name, key) ?? fallback;
  if (v === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    throw adapterConfigError(name, key, `must be an http:// or https:// URL, not ${JSON.stringify(v)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw adapterConfigError(name, key, `must be an http:// or https:// URL, not ${JSON.stringify(v)}`);
  return v;
}

/** A whole-number setting within [min, max], or `fallback`. */
export function intSetting(raw: Record<string, unknown>, name: string, key: string, fallback: number, min: number, max: number): number {
  const v = raw[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw adapterConfigError(name, key, `must be a whole number from ${min} to ${max}, not ${JSON.stringify(v)}`);
  return v;
}

/**
 * A secret: `<key> = "…"` in the file, or `<key>_env = "NAME"` to read it from the environment
 * (which is then required to be set). Both at once is an error. Never put the value in a message.
 */
export function secretSetting(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, name: string, key: string, options: { required: true }): string;
export function secretSetting(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, name: string, key: string, options?: { required?: boolean }): string | undefined;
export function secretSetting(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, name: string, key: string, options: { required?: boolean } = {}): string | undefined {
  const fromEnv = raw[`${key}_env`];
  if (fromEnv !== undefined) {
    if (raw[key] !== undefined) throw adapterConfigError(name, key, `is given both in the file and as ${key}_env; keep one`);
    if (typeof fromEnv !== 'string' || !ENV_NAME.test(fromEnv)) throw adapterConfigError(name, `${key}_env`, `must name an environment variable, not ${JSON.stringify(fromEnv)}`);
    const value = env[fromEnv];
    if (value === undefined || value === '') throw adapterConfigError(name, `${key}_env`, `names $${fromEnv}, which is not set`);
    return value;
  }
  const v = raw[key];
  if (v === undefined || v === '') {
    if (options.required === true) throw adapterConfigError(name, key, `is required (or ${key}_env = "NAME" to read it from the environment)`);
    return undefined;
  }
  if (typeof v !== 'string') throw adapterConfigError(name, key, 'must be a string');
  return v;
}


/** The value at a dotted key (`caldav.password`) of settings whose tables nest, or undefined. */
export function settingAt(settings: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((v, k) => (isTable(v) ? v[k] : undefined), settings);
}

/**
 * The section as the status shows it: every secret replaced by `"(set)"` or `"(from $NAME)"`,
 * also in a nested table (`[adapters.<name>.caldav] password`: secret key `caldav.password`).
 */
export function shownSettings(raw: Record<string, unknown>, secretKeys: readonly string[], prefix = ''): Record<string, unknown> {
  const secret = (key: string): boolean => secretKeys.includes(prefix + key) || SECRET_KEY_NAME.test(key);
  const shown: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key.endsWith('_env') && secret(key.slice(0, -4))) shown[key.slice(0, -4)] = `(from $${String(value)})`;
    else if (secret(key)) shown[key] = '(set)';
    else shown[key] = isTable(value) ? shownSettings(value, secretKeys, `${prefix}${key}.`) : value;
  }
  return shown;
}

/**
 * The values of a section's secrets (on the data folder's list, or declared by the
 * definition), and of those read from the environment (`<key>_env`): what a message about
 * the adapter must never show.
 */
export function secretSettingValues(raw: Record<string, unknown>, secretKeys: readonly string[], env: NodeJS.ProcessEnv, prefix = ''): string[] {
  const secret = (key: string): boolean => secretKeys.includes(prefix + key) || SECRET_KEY_NAME.test(key);
  const out: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (key.endsWith('_env') && secret(key.slice(0, -4)) && typeof value === 'string') out.push(env[value] ?? '');
    else if (secret(key) && typeof value === 'string') out.push(value);
    else if (isTable(value)) out.push(...secretSettingValues(value, secretKeys, env, `${prefix}${key}.`));
  }
  return out.filter((v) => v !== '');
}
