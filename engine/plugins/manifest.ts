/**
 * A plugin's `kowalski-plugin.toml`, parsed with smol-toml and checked: the closed list of
 * keys and permissions, names, semver version, the `kowalski` range against our version,
 * tool input schemas (valid, bounded and compiled: input-schema.ts), granted paths absolute
 * and free of `*`, entries confined to the plugin's folder. Every problem names the file, the key and the line where it can
 * (KW_ERR_PLUGIN_MANIFEST); unknown keys are warnings.
 */
import path from 'node:path';
import { Ajv } from 'ajv';
import semver from 'semver';
import { parse, TomlError } from 'smol-toml';
import { ENV_NAME, KowalskiError } from '../../core/index.js';
import { expandHome } from '../../agents/index.js';
import { inputSchemaProblem } from './input-schema.js';
import { lineOf } from './manifest-lines.js';
import type { PluginAdapterDef, PluginManifest, PluginPermissions, PluginToolDef } from './types.js';

export const MANIFEST_FILE = 'kowalski-plugin.toml';
/** The largest manifest read, bytes. */
export const MANIFEST_MAX_BYTES = 64 * 1024;

const PLUGIN_NAME = /^[a-z][a-z0-9-]*$/;
const TOOL_NAME = /^[a-z][a-z0-9_]*$/;
const EXPORT_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const HOST = /^(?=.{1,253}$)(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/;
const ENTRY_EXT = /\.(m|c)?js$/;
/** Longest tool name providers take (Anthropic, OpenAI: 64). */
const WIRE_NAME_MAX = 64;

const TOP_KEYS = ['manifest_version', 'name', 'version', 'description', 'author', 'license', 'kowalski', 'permissions', 'tools', 'adapters'];
const PERMISSION_KEYS = ['fs', 'net', 'env', 'exec'];
const FS_KEYS = ['read', 'write'];
const TOOL_KEYS = ['name', 'description', 'input', 'entry', 'export'];
const ADAPTER_KEYS = ['name', 'description', 'entry', 'export'];

/** The name agents see a plugin's tool under: `<plugin>__<tool>` (no dot: Anthropic and OpenAI refuse one). */
export function pluginToolName(plugin: string, tool: string): string {
  return `${plugin}__${tool}`;
}

export interface ParsedManifest {
  manifest: PluginManifest;
  /** Unknown keys, each with file, key and line. */
  warnings: string[];
}

interface Problem { key: string; line: number | undefined; message: string }

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** Parse and check one manifest. `root` is the plugin's folder; `kowalskiVersion` ours. */
export function parseManifest(text: string, file: string, root: string, kowalskiVersion: string): ParsedManifest {
  let raw: Table;
  try {
    raw = parse(text) as Table;
  } catch (err) {
    if (!(err instanceof TomlError)) throw err;
    const detail = (err.message.split('\n')[0] ?? '').replace(/^Invalid TOML document:\s*/, '');
    throw new KowalskiError('KW_ERR_PLUGIN_MANIFEST', `${file}:${err.line}: TOML does not parse: ${detail || 'invalid document'} (column ${err.column})`,
      { where: { file, key: '(syntax)', line: err.line } });
  }
  const problems: Problem[] = [];
  const warnings: string[] = [];
  const at = (header: string, index: number, key: string): number | undefined => lineOf(text, header, index, key);
  const fail = (key: string, line: number | undefined, message: string): void => void problems.push({ key, line, message });
  const where = (key: string, line: number | undefined): string => `${file}${line === undefined ? '' : `:${line}`}: ${key}`;
  const unknownKeys = (t: Table, known: readonly string[], prefix: string, header: string, index: number): void => {
    for (const k of Object.keys(t)) {
      if (!known.includes(k)) warnings.push(`${where(`${prefix}${k}`, at(header, index, k))}: is not a manifest key (ignored)`);
    }
  };
  const str = (t: Table, key: string, shownKey: string, header: string, index: number): string => {
    const v = t[key];
    if (typeof v === 'string' && v.trim() !== '') return v;
    fail(shownKey, at(header, index, key), v === undefined ? 'is missing' : `must be a non-empty string, not ${JSON.stringify(v)}`);
    return '';
  };

  unknownKeys(raw, TOP_KEYS, '', '', 0);
  if (raw.manifest_version !== 1) {
    fail('manifest_version', at('', 0, 'manifest_version'), raw.manifest_version === undefined ? 'is missing (write manifest_version = 1)' : `must be 1, not ${JSON.stringify(raw.manifest_version)}`);
  }
  const name = str(raw, 'name', 'name', '', 0);
  if (name !== '' && !PLUGIN_NAME.test(name)) fail('name', at('', 0, 'name'), `must be lowercase letters, digits and hyphens, starting with a letter, not ${JSON.stringify(name)}`);
  const version = str(raw, 'version', 'version', '', 0);
  if (version !== '' && semver.valid(version) === null) fail('version', at('', 0, 'version'), `must be a semver version such as "1.2.0", not ${JSON.stringify(version)}`);
  const description = str(raw, 'description', 'description', '', 0);
  const author = str(raw, 'author', 'author', '', 0);
  const license = str(raw, 'license', 'license', '', 0);
  const range = str(raw, 'kowalski', 'kowalski', '', 0);
  if (range !== '' && semver.validRange(range) === null) fail('kowalski', at('', 0, 'kowalski'), `must be a semver range of kowalski versions such as ">=0.1 <1", not ${JSON.stringify(range)}`);

  const permissions = permissionsOf(raw.permissions, { fail, at, unknownKeys });
  const tools = toolsOf(raw.tools, name, root, { fail, at, unknownKeys, str });
  const adapters = adaptersOf(raw.adapters, root, { fail, at, unknownKeys, str });

  if (problems.length > 0) {
    const first = problems[0]!;
    const lines = problems.map((p) => `${where(p.key, p.line)}: ${p.message}`);
    throw new KowalskiError('KW_ERR_PLUGIN_MANIFEST', lines.join('\n'),
      { where: first.line === undefined ? { file, key: first.key } : { file, key: first.key, line: first.line } });
  }
  if (!semver.satisfies(kowalskiVersion, range, { includePrerelease: true })) {
    const line = at('', 0, 'kowalski');
    throw new KowalskiError('KW_ERR_PLUGIN_INCOMPATIBLE',
      `${where('kowalski', line)}: ${name} ${version} works with kowalski ${range}, and this is kowalski ${kowalskiVersion}: refused`,
      { where: line === undefined ? { file, key: 'kowalski' } : { file, key: 'kowalski', line } });
  }
  return {
    manifest: { manifestVersion: 1, name, version, description, author, license, kowalski: range, permissions, tools, adapters },
    warnings,
  };
}

interface Checks {
  fail(key: string, line: number | undefined, message: string): void;
  at(header: string, index: number, key: string): number | undefined;
  unknownKeys(t: Table, known: readonly string[], prefix: string, header: string, index: number): void;
}
interface EntryChecks extends Checks {
  str(t: Table, key: string, shownKey: string, header: string, index: number): string;
}

function stringList(v: unknown, key: string, line: number | undefined, c: Checks, each: (s: string) => string | undefined): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
    c.fail(key, line, `must be a list of strings, not ${JSON.stringify(v)}`);
    return [];
  }
  const out: string[] = [];
  for (const s of v as string[]) {
    const problem = each(s);
    if (problem === undefined) out.push(s);
    else c.fail(key, line, problem);
  }
  return out;
}

function pathList(v: unknown, key: string, line: number | undefined, c: Checks): string[] {
  const list = stringList(v, key, line, c, (p) => {
    if (p.includes('\0')) return `${JSON.stringify(p)} holds a NUL byte`;
    if (p.includes('*')) return `${JSON.stringify(p)} holds a *: a granted path is a file or a folder (which covers what is under it), not a pattern; name the folder instead`;
    return path.isAbsolute(expandHome(p)) ? undefined : `${JSON.stringify(p)} must be an absolute path or start with ~/`;
  });
  return list.map((p) => path.resolve(expandHome(p)));
}

function permissionsOf(v: unknown, c: Checks): PluginPermissions {
  const none: PluginPermissions = { fsRead: [], fsWrite: [], net: [], env: [], exec: false };
  if (v === undefined) return none;
  if (!isTable(v)) {
    c.fail('permissions', c.at('', 0, 'permissions'), 'must be a table ([permissions])');
    return none;
  }
  c.unknownKeys(v, PERMISSION_KEYS, 'permissions.', 'permissions', 0);
  const fs = v.fs ?? {};
  if (!isTable(fs)) c.fail('permissions.fs', c.at('permissions', 0, 'fs'), 'must be a table with read and write lists');
  const fsTable = isTable(fs) ? fs : {};
  c.unknownKeys(fsTable, FS_KEYS, 'permissions.fs.', 'permissions', 0);
  const exec = v.exec ?? false;
  if (typeof exec !== 'boolean') c.fail('permissions.exec', c.at('permissions', 0, 'exec'), `must be true or false, not ${JSON.stringify(exec)}`);
  return {
    fsRead: pathList(fsTable.read, 'permissions.fs.read', c.at('permissions', 0, 'read'), c),
    fsWrite: pathList(fsTable.write, 'permissions.fs.write', c.at('permissions', 0, 'write'), c),
    net: stringList(v.net, 'permissions.net', c.at('permissions', 0, 'net'), c,
      (h) => HOST.test(h) ? undefined : `${JSON.stringify(h)} must be a host name such as "api.example.com" or "*.example.com" (lowercase, no scheme or path; a port may follow)`),
    env: stringList(v.env, 'permissions.env', c.at('permissions', 0, 'env'), c,
      (e) => ENV_NAME.test(e) ? undefined : `${JSON.stringify(e)} is not an environment variable name`),
    exec: exec === true,
  };
}

/** `entry` relative, inside the plugin's folder, a JavaScript module. */
function entryOf(t: Table, key: string, header: string, index: number, root: string, c: EntryChecks): string {
  const entry = c.str(t, 'entry', key, header, index);
  if (entry === '') return '';
  const resolved = path.resolve(root, entry);
  const inside = resolved.startsWith(`${root}${path.sep}`);
  if (path.isAbsolute(entry) || entry.includes('\0') || !inside) {
    c.fail(key, c.at(header, index, 'entry'), `${JSON.stringify(entry)} must be a path relative to the plugin's folder and inside it`);
  } else if (!ENTRY_EXT.test(entry)) {
    c.fail(key, c.at(header, index, 'entry'), `${JSON.stringify(entry)} must be a JavaScript module (.js, .mjs or .cjs)`);
  }
  return path.relative(root, resolved);
}

function exportOf(t: Table, key: string, header: string, index: number, c: EntryChecks): string {
  const name = c.str(t, 'export', key, header, index);
  if (name !== '' && !EXPORT_NAME.test(name)) c.fail(key, c.at(header, index, 'export'), `${JSON.stringify(name)} is not a JavaScript export name`);
  return name;
}

function entries(v: unknown, header: string, c: Checks): Table[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every(isTable)) {
    c.fail(header, c.at('', 0, header), `must be written as [[${header}]] tables`);
    return [];
  }
  return v;
}

function toolsOf(v: unknown, plugin: string, root: string, c: EntryChecks): PluginToolDef[] {
  const ajv = new Ajv({ strict: false });
  const seen = new Set<string>();
  return entries(v, 'tools', c).map((t, i) => {
    const k = (key: string): string => `tools[${i}].${key}`;
    c.unknownKeys(t, TOOL_KEYS, `tools[${i}].`, 'tools', i);
    const name = c.str(t, 'name', k('name'), 'tools', i);
    if (name !== '' && !TOOL_NAME.test(name)) c.fail(k('name'), c.at('tools', i, 'name'), `must be lowercase letters, digits and _, starting with a letter, not ${JSON.stringify(name)}`);
    else if (name !== '' && seen.has(name)) c.fail(k('name'), c.at('tools', i, 'name'), `"${name}" is declared twice`);
    else if (name !== '' && pluginToolName(plugin, name).length > WIRE_NAME_MAX) {
      c.fail(k('name'), c.at('tools', i, 'name'), `"${pluginToolName(plugin, name)}" (how agents see it) is longer than ${WIRE_NAME_MAX} characters, which model providers refuse`);
    }
    seen.add(name);
    const description = c.str(t, 'description', k('description'), 'tools', i);
    const input = t.input;
    if (!isTable(input)) {
      c.fail(k('input'), c.at('tools', i, 'input'), input === undefined ? 'is missing (a JSON schema of the arguments, e.g. { type = "object", properties = {} })' : 'must be a JSON schema object');
    } else if (input.type !== 'object') {
      c.fail(k('input'), c.at('tools', i, 'input'), `must describe an object of arguments (type = "object"), not ${JSON.stringify(input.type)}`);
    } else {
      const problem = inputSchemaProblem(ajv, input);
      if (problem !== undefined) c.fail(k('input'), c.at('tools', i, 'input'), `${problem} (tool ${name || `#${i + 1}`} of plugin ${plugin || '(unnamed)'})`);
    }
    return { name, description, input: isTable(input) ? input : {}, entry: entryOf(t, k('entry'), 'tools', i, root, c), export: exportOf(t, k('export'), 'tools', i, c) };
  });
}

function adaptersOf(v: unknown, root: string, c: EntryChecks): PluginAdapterDef[] {
  return entries(v, 'adapters', c).map((t, i) => {
    const k = (key: string): string => `adapters[${i}].${key}`;
    c.unknownKeys(t, ADAPTER_KEYS, `adapters[${i}].`, 'adapters', i);
    const name = c.str(t, 'name', k('name'), 'adapters', i);
    if (name !== '' && !PLUGIN_NAME.test(name)) c.fail(k('name'), c.at('adapters', i, 'name'), `must be lowercase letters, digits and hyphens, not ${JSON.stringify(name)}`);
    const description = c.str(t, 'description', k('description'), 'adapters', i);
    return { name, description, entry: entryOf(t, k('entry'), 'adapters', i, root, c), export: exportOf(t, k('export'), 'adapters', i, c) };
  });
}
