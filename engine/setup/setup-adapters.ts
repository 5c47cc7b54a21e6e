/**
 * Setup's adapters: the `[adapters.<name>]` sections of config.toml listed (a secret only
 * as its environment variable's name, never its value), added and changed key by key (each
 * checked by the type's own `settings()` before anything is written) and removed; engine/setup/setup-file.ts keeps the
 * file's comments. The running server starts adapters as the file was at its start, so
 * an add, a change or a remove takes effect at its next start (`restartNeeded`).
 */
import { ENV_NAME, KowalskiError } from '../../core/index.js';
import { ADAPTER_DEFINITIONS, adaptersFrom } from '../adapters/index.js';
import type { AdapterConfig, AdapterStatus } from '../adapters/index.js';
import { parseConfig } from '../config.js';
import { SECRET_KEY_NAME } from '../secrets/secret-list.js';
import { bad } from './setup-fields.js';
import { Changes, readText, saveChanges } from './setup-file.js';
import type { AdapterAdd, AdapterChange, AdapterSetup, AdapterSetupState, AdaptersSaved } from '../../contract/setup.js';

/** A setting's key: a word, or a nested table's `table.key`. */
const KEY = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?$/;
const COMMON = ['type', 'agent', 'enabled'];

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

function secretKeysOf(type: string): readonly string[] {
  return ADAPTER_DEFINITIONS.find((d) => d.type === type)?.secretKeys ?? [];
}

const isSecret = (secretKeys: readonly string[], key: string): boolean => secretKeys.includes(key) || SECRET_KEY_NAME.test(key.split('.').pop()!);

function stateOf(config: AdapterConfig, status: AdapterStatus | undefined): { state: AdapterSetupState; lastError: string | null } {
  if (status === undefined || status.type !== config.type) return { state: 'pending', lastError: null };
  if (status.state === 'running') return { state: 'running', lastError: null };
  if (status.state === 'error') return { state: 'error', lastError: status.lastError };
  return { state: status.enabled ? 'off' : 'disabled', lastError: null };
}

/** A section's keys flattened in order, a nested table's as `table.key`. */
function flatKeys(t: Record<string, unknown>, prefix = ''): Array<[string, unknown]> {
  return Object.entries(t).flatMap(([k, v]): Array<[string, unknown]> => (isTable(v) ? flatKeys(v, `${prefix}${k}.`) : [[prefix + k, v]]));
}

/** `<secret>_env`: the key of the secret whose environment variable it names; undefined for any other key. */
function secretOfEnvKey(secretKeys: readonly string[], key: string): string | undefined {
  return key.endsWith('_env') && isSecret(secretKeys, key.slice(0, -4)) ? key.slice(0, -4) : undefined;
}

/** The names of the environment variables the section's secrets are read from. */
function secretEnvNames(config: AdapterConfig): string[] {
  const secretKeys = secretKeysOf(config.type);
  return flatKeys(config.settings).filter(([key]) => secretOfEnvKey(secretKeys, key) !== undefined).map(([, v]) => String(v));
}

function setupOf(config: AdapterConfig, status: AdapterStatus | undefined, env: NodeJS.ProcessEnv): AdapterSetup {
  const secretKeys = secretKeysOf(config.type);
  const settings: AdapterSetup['settings'] = [];
  const secrets: AdapterSetup['secrets'] = [];
  for (const [key, v] of flatKeys(config.settings)) {
    const secret = secretOfEnvKey(secretKeys, key);
    if (secret !== undefined) secrets.push({ key: secret, env: String(v), envSet: (env[String(v)] ?? '') !== '', inFile: false });
    else if (isSecret(secretKeys, key)) secrets.push({ key, env: null, envSet: false, inFile: true });
    else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') settings.push({ key, value: v });
    else settings.push({ key, value: JSON.stringify(v) });
  }
  return { name: config.name, type: config.type, agent: config.agent, enabled: config.enabled, settings, secrets, ...stateOf(config, status) };
}

/** The adapters of `file` as Setup shows them, with the running server's `statuses`; a bad section is KW_ERR_ADAPTER_CONFIG naming its key. */
export function readAdapters(file: string, statuses: readonly AdapterStatus[], env: NodeJS.ProcessEnv): AdapterSetup[] {
  return parseConfig(readText(file), file).adapters.map((c) => setupOf(c, statuses.find((s) => s.name === c.name), env));
}

type Edit = { path: string[]; value: string | number | boolean | null };

/** A setting's key, checked: not a common key, not a secret. */
function settingPath(secretKeys: readonly string[], key: string, value: string | number | boolean | null): string[] {
  if (!KEY.test(key) || COMMON.includes(key)) throw bad(`settings.${key}`, `is not a setting's key (lower-case words, a nested table's as table.key; type, agent and enabled have their own fields)`);
  if (key.endsWith('_env') || isSecret(secretKeys, key)) throw bad(`settings.${key}`, 'is a secret: give the name of the environment variable that holds it in secretEnv, never its value');
  if (typeof value === 'string' && /[\r\n]/.test(value)) throw bad(`settings.${key}`, 'must be one line');
  return key.split('.');
}

/** A secret's `<key>_env` path and the key's own (a value written in the file), checked; `envName` null: both go. */
function secretEdits(type: string, secretKeys: readonly string[], key: string, envName: string | null): Edit[] {
  if (!isSecret(secretKeys, key)) throw bad(`secretEnv.${key}`, `is not a secret of a ${type} adapter${secretKeys.length === 0 ? ' (it has none)' : ` (its secrets: ${secretKeys.join(', ')})`}`);
  if (envName !== null && !ENV_NAME.test(envName)) throw bad(`secretEnv.${key}`, `must be an environment variable's name (letters, digits and _), not ${JSON.stringify(envName)}`);
  const path = key.split('.');
  const envPath = [...path.slice(0, -1), `${path[path.length - 1]!}_env`];
  return [{ path: envPath, value: envName }, { path, value: null }];
}

/** The section's keys as `[table, key]` paths, checked: KW_ERR_BAD_REQUEST names the field. */
function sectionOf(add: AdapterAdd): Edit[] {
  const secretKeys = secretKeysOf(add.type);
  const out: Edit[] = [{ path: ['type'], value: add.type }];
  if (add.agent !== undefined) out.push({ path: ['agent'], value: add.agent });
  if (add.enabled !== undefined) out.push({ path: ['enabled'], value: add.enabled });
  for (const [key, value] of Object.entries(add.settings ?? {})) out.push({ path: settingPath(secretKeys, key, value), value });
  for (const [key, envName] of Object.entries(add.secretEnv ?? {})) out.push(secretEdits(add.type, secretKeys, key, envName)[0]!);
  return out;
}

/**
 * The section after `edits`, checked by its type's `settings()` (a secret's variable counts
 * as set: whether it is, the list says): KW_ERR_ADAPTER_CONFIG naming `[adapters.<name>] <key>`.
 */
function checked(changes: Changes, file: string, name: string, env: NodeJS.ProcessEnv, secretEnvNames: readonly string[]): void {
  const section = (changes.raw.adapters as Record<string, unknown>)[name] as Record<string, unknown>;
  const [config] = adaptersFrom({ adapters: { [name]: section } }, file);
  const definition = ADAPTER_DEFINITIONS.find((d) => d.type === config!.type)!;
  const assumed = { ...env, ...Object.fromEntries(secretEnvNames.map((n) => [n, env[n] || '(set)'])) };
  definition.settings(config!.settings, assumed, name);
}

function notFound(file: string, name: string, adapters: readonly AdapterConfig[]): KowalskiError {
  return new KowalskiError('KW_ERR_ADAPTER_NOT_FOUND', `${file}: no [adapters.${name}] section (there are: ${adapters.map((a) => a.name).join(', ') || 'none'})`, { where: { file, key: `adapters.${name}` } });
}

/**
 * Adds `[adapters.<name>]` at the end of the file. Checked first by the type's `settings()`
 * (a secret's variable counts as set: whether it is, the list says), so a missing required
 * key or a bad value is KW_ERR_ADAPTER_CONFIG naming `[adapters.<name>] <key>`, and nothing is written.
 */
export function addAdapter(file: string, add: AdapterAdd, env: NodeJS.ProcessEnv, statuses: readonly AdapterStatus[]): AdaptersSaved {
  const keys = sectionOf(add);
  const old = readText(file);
  const config = parseConfig(old, file);
  if (config.adapters.some((a) => a.name === add.name)) {
    const key = `adapters.${add.name}`;
    throw new KowalskiError('KW_ERR_ADAPTER_EXISTS', `${file}: [${key}]: an adapter named ${JSON.stringify(add.name)} is there already; choose another name or remove that one first`, { where: { file, key } });
  }
  const changes = new Changes(config.raw);
  for (const { path, value } of keys) changes.set(['adapters', add.name, ...path], value);
  checked(changes, file, add.name, env, Object.values(add.secretEnv ?? {}));
  const written = saveChanges(file, old, changes);
  return { adapters: readAdapters(file, statuses, env), written, restartNeeded: true };
}

/**
 * Changes `[adapters.<name>]` key by key (AdapterChange: a key given is set, null removes
 * it, a key not given stays as it is, comments included); its type stays. Checked as an add
 * is, and nothing is written when it is refused.
 */
export function changeAdapter(file: string, name: string, change: AdapterChange, env: NodeJS.ProcessEnv, statuses: readonly AdapterStatus[]): AdaptersSaved {
  const old = readText(file);
  const config = parseConfig(old, file);
  const now = config.adapters.find((a) => a.name === name);
  if (now === undefined) throw notFound(file, name, config.adapters);
  const secretKeys = secretKeysOf(now.type);
  const edits: Edit[] = [];
  if (change.agent !== undefined) edits.push({ path: ['agent'], value: change.agent });
  if (change.enabled !== undefined) edits.push({ path: ['enabled'], value: change.enabled });
  for (const [key, value] of Object.entries(change.settings ?? {})) edits.push({ path: settingPath(secretKeys, key, value), value });
  for (const [key, envName] of Object.entries(change.secretEnv ?? {})) edits.push(...secretEdits(now.type, secretKeys, key, envName));
  const changes = new Changes(config.raw);
  for (const { path, value } of edits) changes.set(['adapters', name, ...path], value);
  checked(changes, file, name, env, [...secretEnvNames(now), ...Object.values(change.secretEnv ?? {}).filter((n): n is string => n !== null)]);
  const written = saveChanges(file, old, changes);
  return { adapters: readAdapters(file, statuses, env), written, restartNeeded: true };
}

/** Removes the `[adapters.<name>]` section with its keys and sub-tables; the rest of the file (and its comments) stays. */
export function removeAdapter(file: string, name: string, env: NodeJS.ProcessEnv, statuses: readonly AdapterStatus[]): AdaptersSaved {
  const old = readText(file);
  const config = parseConfig(old, file);
  if (!config.adapters.some((a) => a.name === name)) throw notFound(file, name, config.adapters);
  const changes = new Changes(config.raw);
  changes.drop(['adapters', name]);
  const written = saveChanges(file, old, changes);
  return { adapters: readAdapters(file, statuses, env), written, restartNeeded: true };
}
