/**
 * Setup: the model provider, the tools folder, semantic search over the vault and web
 * search (engine/setup-web-search.ts), read from and written to config.toml.
 * The file is rewritten owner-only (0600) through a temp file and a rename, so a crash
 * leaves the old or the new file, never half of one; keys are never read back in full.
 * Only the lines of the keys that change are edited (engine/toml-edit.ts), so comments,
 * blank lines and order stay; the edited text is parsed and compared with the intended
 * values before it is written, and when the edit cannot be made safely the whole file is
 * written afresh from its values (without its comments), which the answer says.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { stringify } from 'smol-toml';
import { writeFileAtomic } from '../steps/index.js';
import { DEFAULT_CONFIG, parseConfig } from './config.js';
import { bad, httpUrl, keyHint, str, sub } from './setup-fields.js';
import type { Table } from './setup-fields.js';
import { editToml } from './toml-edit.js';
import { webSearchEdits, webSearchOf } from './setup-web-search.js';
import type { TomlEdit } from './toml-edit.js';
import type { KeyedSetup, Setup, SetupPatch, SetupWritten } from '../contract/setup.js';
export type { KeyedSetup, Setup, SetupPatch, SetupWritten, ToolCalling } from '../contract/setup.js';

const MODEL_PROVIDERS = ['ollama', 'anthropic', 'gemini', 'openai'] as const;
/** The providers with embeddings, for `[vault.semantic] model`. */
const EMBEDDING_PROVIDERS = ['ollama', 'openai', 'gemini'] as const;
/** The providers Setup writes a key and base URL for (openai: any OpenAI-compatible server). */
const KEYED_PROVIDERS = ['anthropic', 'gemini', 'openai'] as const;
type KeyedProvider = (typeof KEYED_PROVIDERS)[number];

export interface SetupWrite {
  setup: Setup;
  written: SetupWritten;
  /** Whether the patch touched the default model or a provider's settings (then the model is worth checking again). */
  modelTouched: boolean;
}


function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

function readRaw(file: string): Table {
  return parseConfig(readText(file), file).raw;
}

/** `env` (default the server's): whether the variables web search names are set. */
export function readSetup(file: string, env: NodeJS.ProcessEnv = process.env): Setup {
  return setupOf(readRaw(file), file, env);
}

function keyedOf(t: Table): KeyedSetup {
  const key = str(t.api_key);
  return { apiKeySet: key !== null, apiKeyHint: key === null ? null : keyHint(key), baseUrl: str(t.base_url) };
}

function setupOf(raw: Table, file: string, env: NodeJS.ProcessEnv): Setup {
  const model = sub(raw, 'model');
  const providers = sub(raw, 'providers');
  const tc = model.tool_calling;
  return {
    configFile: file,
    model: { default: str(model.default), toolCalling: tc === 'native' || tc === 'text' ? tc : 'auto' },
    providers: {
      ollama: { host: str(sub(providers, 'ollama').host) },
      anthropic: keyedOf(sub(providers, 'anthropic')),
      gemini: keyedOf(sub(providers, 'gemini')),
      openai: keyedOf(sub(providers, 'openai')),
    },
    tools: { root: str(sub(raw, 'tools').root) },
    vault: { semantic: semanticOf(sub(sub(raw, 'vault'), 'semantic')) },
    webSearch: webSearchOf(raw, env),
  };
}

function semanticOf(t: Table): Setup['vault']['semantic'] {
  const fallback = DEFAULT_CONFIG.vault.semantic;
  return { enabled: typeof t.enabled === 'boolean' ? t.enabled : fallback.enabled, model: str(t.model) ?? fallback.model };
}

/** Set or (with null) delete `t[section…][key]`, creating tables on the way and pruning empty ones. */
function put(t: Table, keys: string[], value: unknown): void {
  const [head, ...rest] = keys as [string, ...string[]];
  if (rest.length === 0) {
    if (value === null) delete t[head];
    else t[head] = value;
    return;
  }
  const child = sub(t, head);
  put(child, rest, value);
  if (Object.keys(child).length === 0) delete t[head];
  else t[head] = child;
}

/** `t` without its empty tables: an empty `[table]` left with only its comments means no setting. */
function pruned(t: Table): Table {
  const out: Table = {};
  for (const [k, v] of Object.entries(t)) {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Date) out[k] = v;
    else {
      const child = pruned(v as Table);
      if (Object.keys(child).length > 0) out[k] = child;
    }
  }
  return out;
}

/** The raw table and the line edits that make the same change to the file's text. */
class Changes {
  readonly edits: TomlEdit[] = [];
  constructor(readonly raw: Table) {}
  set(keys: string[], value: string | boolean | null): void {
    put(this.raw, keys, value);
    this.edits.push({ table: keys.slice(0, -1), key: keys[keys.length - 1]!, value });
  }
}

/** The new text of config.toml: the old one with its lines edited when that gives exactly `raw`, else written afresh. */
function newText(old: string, changes: Changes, file: string): { text: string; written: SetupWritten } {
  const edited = changes.edits.length === 0 ? old : editToml(old, changes.edits);
  if (edited !== null) {
    try {
      if (isDeepStrictEqual(pruned(parseConfig(edited, file).raw), pruned(changes.raw))) {
        return { text: edited, written: { comments: 'kept', message: `Saved to ${file}; only the changed keys were rewritten, its comments are kept.` } };
      }
    } catch {
      // fall through to a fresh write
    }
  }
  return {
    text: stringify(changes.raw).trimEnd() + '\n',
    written: { comments: 'dropped', message: `Saved to ${file}, written afresh from its values: its layout could not be edited line by line, so its comments were not kept.` },
  };
}

function putKeyed(c: Changes, name: KeyedProvider, p: { apiKey?: string | null; baseUrl?: string | null }): void {
  if (p.apiKey !== undefined) {
    if (p.apiKey !== null && /\s/.test(p.apiKey)) throw bad(`providers.${name}.apiKey`, 'must not contain spaces or line breaks');
    c.set(['providers', name, 'api_key'], p.apiKey);
  }
  if (p.baseUrl !== undefined) c.set( ['providers', name, 'base_url'], p.baseUrl === null ? null : httpUrl(`providers.${name}.baseUrl`, p.baseUrl));
}

/** Check a patch and write it; returns the new Setup and how the file was written. Throws KW_ERR_BAD_REQUEST naming the field. */
export function writeSetup(file: string, patch: SetupPatch, env: NodeJS.ProcessEnv = process.env): SetupWrite {
  const old = readText(file);
  const c = new Changes(parseConfig(old, file).raw);
  const model = patch.model ?? {};
  if (model.default !== undefined) {
    if (model.default !== null) {
      const provider = model.default.slice(0, model.default.indexOf(':'));
      const name = model.default.slice(provider.length + 1);
      if (!(MODEL_PROVIDERS as readonly string[]).includes(provider) || name.trim() === '') {
        throw bad('model.default', `must be "provider:model" with provider one of ${MODEL_PROVIDERS.join(', ')} (e.g. "ollama:qwen2.5:7b"), not ${JSON.stringify(model.default)}`);
      }
    }
    c.set(['model', 'default'], model.default);
  }
  if (model.toolCalling !== undefined) c.set(['model', 'tool_calling'], model.toolCalling);
  const ollama = patch.providers?.ollama ?? {};
  if (ollama.host !== undefined) c.set(['providers', 'ollama', 'host'], ollama.host === null ? null : httpUrl('providers.ollama.host', ollama.host));
  for (const name of KEYED_PROVIDERS) putKeyed(c, name, patch.providers?.[name] ?? {});
  const root = patch.tools?.root;
  if (root !== undefined) {
    if (root !== null && !path.isAbsolute(root) && !root.startsWith('~/')) throw bad('tools.root', `must be an absolute folder (or start with ~/), not ${JSON.stringify(root)}`);
    c.set(['tools', 'root'], root);
  }
  const semantic = patch.vault?.semantic ?? {};
  if (semantic.enabled !== undefined) c.set(['vault', 'semantic', 'enabled'], semantic.enabled);
  if (semantic.model !== undefined) {
    if (semantic.model !== null) {
      const provider = semantic.model.slice(0, Math.max(0, semantic.model.indexOf(':')));
      const name = semantic.model.slice(provider.length + 1);
      if (!(EMBEDDING_PROVIDERS as readonly string[]).includes(provider) || name.trim() === '' || /\s/.test(semantic.model)) {
        throw bad('vault.semantic.model', `must be "provider:model" with provider one of ${EMBEDDING_PROVIDERS.join(', ')} (e.g. "ollama:nomic-embed-text"), not ${JSON.stringify(semantic.model)}`);
      }
    }
    c.set(['vault', 'semantic', 'model'], semantic.model);
  }
  if (patch.webSearch !== undefined) {
    for (const edit of webSearchEdits(c.raw, patch.webSearch, env)) c.set(['tools', 'web_search', edit.key], edit.value);
  }
  const { text, written } = newText(old, c, file);
  parseConfig(text, file); // never write a file the engine would refuse at its next start
  writeFileAtomic(file, text, { mode: 0o600, fsync: true });
  const modelTouched = patch.model?.default !== undefined || Object.values(patch.providers ?? {}).some((p) => Object.keys(p ?? {}).length > 0);
  return { setup: setupOf(c.raw, file, env), written, modelTouched };
}
