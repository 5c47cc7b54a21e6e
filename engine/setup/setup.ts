/**
 * Setup: the model provider, the tools folder, semantic search over the vault and web
 * search (engine/setup/setup-web-search.ts), read from and written to config.toml.
 * Keys are never read back in full. Only the lines of the keys that change are edited,
 * keeping comments (engine/setup/setup-file.ts: how config.toml is written).
 */
import path from 'node:path';
import { DEFAULT_CONFIG, parseConfig } from '../config.js';
import { bad, httpUrl, keyHint, str, sub } from './setup-fields.js';
import type { Table } from './setup-fields.js';
import { Changes, readText, saveChanges } from './setup-file.js';
import { webSearchEdits, webSearchOf } from './setup-web-search.js';
import type { KeyedSetup, Setup, SetupPatch, SetupWritten } from '../../contract/setup.js';
export type { KeyedSetup, Setup, SetupPatch, SetupWritten, ToolCalling } from '../../contract/setup.js';

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
  const written = saveChanges(file, old, c);
  const modelTouched = patch.model?.default !== undefined || Object.values(patch.providers ?? {}).some((p) => Object.keys(p ?? {}).length > 0);
  return { setup: setupOf(c.raw, file, env), written, modelTouched };
}
