/**
 * config.toml: every key optional. Unknown keys are kept (later issues read them);
 * a bad value is an error naming the file and the key.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { BUDGET_KEYS, KowalskiError, budgetValueProblem, messageOf } from '../core/index.js';
import type { BudgetKey, BudgetLimits } from '../core/index.js';
import { mcpServersFrom, parseModelRef, providerSettingsFrom, webSearchConfigFrom } from '../agents/index.js';
import type { McpServerConfig, ToolCallingSetting, WebSearchConfig } from '../agents/index.js';
import type { Synchronous } from './store/database.js';
import { adaptersFrom } from './adapters/settings.js';
import type { AdapterConfig } from './adapters/settings.js';
import { booleanDefault, choiceDefault, numberDefault, stringDefault } from './config/keys.js';

export interface EngineConfig {
  store: {
    /** `full` (default) or `normal`. */
    synchronous: Synchronous;
    /** `[store] url`: a `postgres://` address — the run store then lives in that PostgreSQL database, shared by every node pointed at it (KOWALSKI_DATABASE_URL wins over it); absent: SQLite in the data folder. */
    url?: string;
    /** `[store] files`: the folder, shared by every node of a Postgres store, that holds the run folders (`<files>/runs/<run id>`); absent: the data folder's `runs/`. */
    files?: string;
    /** `[store] lease_secs`: with a Postgres store, how long a node's hold on a run lasts without a heartbeat before another node may take the run (default 10). */
    leaseSecs: number;
  };
  runs: {
    /** Steps running at once across all runs (default 4). */
    maxParallelSteps: number;
    /** Default per-step limit in seconds (default 600). */
    stepTimeoutSecs: number;
  };
  model: {
    /** `provider:model`, e.g. `ollama:qwen2.5:7b`; absent = no model configured. */
    default?: string;
    /** How tools are offered to models: `auto` (default: native, and text for models that cannot), `native`, `text`. */
    toolCalling: ToolCallingSetting;
    /** `[model.tool_calling_by_model]`: the setting for one model (`"ollama:llama3.2:1b" = "text"`), over `toolCalling`. */
    toolCallingByModel: Record<string, ToolCallingSetting>;
    /** Most model calls in one step's tool loop (default 10). */
    maxToolIterations: number;
    /** Most failed tool calls a model may correct in one step (default 3). */
    maxToolErrors: number;
  };
  chat: {
    /** `[chat] max_iterations`: model calls one chat turn may make, the whole delegation tree together, when the agent's profile sets none (default 20). */
    maxIterations: number;
    /** `[chat] max_depth`: agents in a delegation chain, the root included (default 3). */
    maxDepth: number;
    /** `[chat] window_tokens`: the earlier turns a chat turn is given, in tokens (≈ characters / 4), when the agent's profile sets no `memory_window_tokens`; older turns are folded into a summary (default 6000). */
    windowTokens: number;
  };
  tools: {
    /** `[tools] root`: the only folder file tools may touch (may start with `~/`); null = none chosen. */
    root: string | null;
  };
  vault: {
    /** `[vault] max_note_bytes`: the largest note a vault write may leave and a read returns, bytes (default 1 048 576 = 1 MiB; at most 16 MiB). */
    maxNoteBytes: number;
    /** `[vault.semantic]`: semantic search over the vault's notes (docs/vault-search.md). */
    semantic: {
      /** `enabled` (default false): embed the notes and let searches ask for meaning too. */
      enabled: boolean;
      /** `model`: the embedding model, `provider:model` with provider ollama, openai or gemini (default `ollama:nomic-embed-text`). */
      model: string;
    };
  };
  /** `[budget]`: every run's limits where its horde's `[budget]` sets none (docs/budgets.md); {} = no limits. */
  budget: BudgetLimits;
  /** `[[mcp.servers]]`, checked. */
  mcpServers: McpServerConfig[];
  /** `[tools.web_search]` (with BRAVE_API_KEY or STAAN_API_KEY from the environment), checked; null = none. */
  webSearch: WebSearchConfig | null;
  /** `[adapters.<name>]`: inbound channels (docs/adapters.md), their common keys checked; each type's own settings are read when it starts. */
  adapters: AdapterConfig[];
  /** The whole file as parsed, for the sections other parts read. */
  raw: Record<string, unknown>;
}

/** The values of absent keys: each from the catalog of keys (config/keys.ts), which config.example.toml is rendered from too. */
export const DEFAULT_CONFIG: EngineConfig = {
  store: { synchronous: choiceDefault('store', 'synchronous', ['full', 'normal']), leaseSecs: numberDefault('store', 'lease_secs') },
  runs: { maxParallelSteps: numberDefault('runs', 'max_parallel_steps'), stepTimeoutSecs: numberDefault('runs', 'step_timeout_secs') },
  model: {
    toolCalling: choiceDefault('model', 'tool_calling', ['auto', 'native', 'text']), toolCallingByModel: {},
    maxToolIterations: numberDefault('model', 'max_tool_iterations'), maxToolErrors: numberDefault('model', 'max_tool_errors'),
  },
  chat: { maxIterations: numberDefault('chat', 'max_iterations'), maxDepth: numberDefault('chat', 'max_depth'), windowTokens: numberDefault('chat', 'window_tokens') },
  tools: { root: null },
  vault: {
    maxNoteBytes: numberDefault('vault', 'max_note_bytes'),
    semantic: { enabled: booleanDefault('vault.semantic', 'enabled'), model: stringDefault('vault.semantic', 'model') },
  },
  budget: {},
  mcpServers: [],
  webSearch: null,
  adapters: [],
  raw: {},
};

function bad(file: string, key: string, message: string, line?: number): KowalskiError {
  return new KowalskiError('KW_ERR_CONFIG_INVALID', `${file}: ${key}: ${message}`, { where: line === undefined ? { file, key } : { file, key, line } });
}

function table(raw: Record<string, unknown>, file: string, key: string): Record<string, unknown> {
  const v = raw[key];
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(file, key, 'must be a table');
  return v as Record<string, unknown>;
}

function positiveInt(t: Record<string, unknown>, file: string, key: string, name: string, fallback: number): number {
  const v = t[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw bad(file, `${key}.${name}`, `must be a whole number ≥ 1, not ${JSON.stringify(v)}`);
  return v;
}

/** Largest `[vault] max_note_bytes` taken: a note is read and diffed whole. */
const MAX_NOTE_BYTES_LIMIT = 16 * 1024 * 1024;

function maxNoteBytes(vault: Record<string, unknown>, file: string): number {
  const v = positiveInt(vault, file, 'vault', 'max_note_bytes', DEFAULT_CONFIG.vault.maxNoteBytes);
  if (v > MAX_NOTE_BYTES_LIMIT) throw bad(file, 'vault.max_note_bytes', `must be at most ${MAX_NOTE_BYTES_LIMIT} (16 MiB), not ${v}`);
  return v;
}

function toolCallingSetting(v: unknown, file: string, key: string): ToolCallingSetting {
  if (v !== 'auto' && v !== 'native' && v !== 'text') throw bad(file, key, `must be "auto", "native" or "text", not ${JSON.stringify(v)}`);
  return v;
}

function toolCallingByModel(model: Record<string, unknown>, file: string): Record<string, ToolCallingSetting> {
  const byModel = model.tool_calling_by_model ?? {};
  if (typeof byModel !== 'object' || byModel === null || Array.isArray(byModel)) throw bad(file, 'model.tool_calling_by_model', 'must be a table');
  const out: Record<string, ToolCallingSetting> = {};
  for (const [name, v] of Object.entries(byModel)) {
    if (!name.includes(':')) throw bad(file, `model.tool_calling_by_model."${name}"`, 'must name a model as "provider:model", e.g. "ollama:llama3.2:1b"');
    out[name] = toolCallingSetting(v, file, `model.tool_calling_by_model."${name}"`);
  }
  return out;
}

/** The providers that have embeddings. */
const EMBEDDING_PROVIDERS = ['ollama', 'openai', 'gemini'];

function vaultConfig(vault: Record<string, unknown>, file: string): Pick<EngineConfig['vault'], 'semantic'> {
  const semantic = table(vault, file, 'semantic');
  const enabled = semantic.enabled ?? DEFAULT_CONFIG.vault.semantic.enabled;
  if (typeof enabled !== 'boolean') throw bad(file, 'vault.semantic.enabled', `must be true or false, not ${JSON.stringify(enabled)}`);
  const model = semantic.model ?? DEFAULT_CONFIG.vault.semantic.model;
  if (typeof model !== 'string') throw bad(file, 'vault.semantic.model', `must be "provider:model", e.g. "ollama:nomic-embed-text", not ${JSON.stringify(model)}`);
  let provider: string;
  try {
    provider = parseModelRef(model).provider;
  } catch (err) {
    throw bad(file, 'vault.semantic.model', messageOf(err));
  }
  if (!EMBEDDING_PROVIDERS.includes(provider)) throw bad(file, 'vault.semantic.model', `${provider} has no embeddings: name an ${EMBEDDING_PROVIDERS.join(', ')} embedding model, e.g. "ollama:nomic-embed-text"`);
  return { semantic: { enabled, model } };
}

function budgetConfig(budget: Record<string, unknown>, file: string): BudgetLimits {
  const out: BudgetLimits = {};
  for (const [key, v] of Object.entries(budget)) {
    if (!(BUDGET_KEYS as readonly string[]).includes(key)) throw bad(file, `budget.${key}`, `is not a limit; the limits are ${BUDGET_KEYS.join(', ')}`);
    const problem = budgetValueProblem(key as BudgetKey, v);
    if (problem !== undefined) throw bad(file, `budget.${key}`, problem);
    out[key as BudgetKey] = v as number;
  }
  return out;
}

/** `[store] url`: absent, or a postgres:// (postgresql://) address. */
function postgresUrl(value: unknown, file: string): string | undefined {
  if (value === undefined) return undefined;
  const protocol = typeof value === 'string' ? URL.canParse(value) && new URL(value).protocol : false;
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
    throw bad(file, 'store.url', 'must be a PostgreSQL address, postgres://user@host:5432/database (leave it out to keep the run store in the data folder)');
  }
  return value as string;
}

export function parseConfig(text: string, file: string): EngineConfig {
  let raw: Record<string, unknown>;
  try {
    raw = parse(text) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof TomlError) {
      const first = err.message.split('\n')[0] ?? 'bad TOML';
      // The usual cause with a file `kowalski init` wrote: a [section] added again at the end, when the file has its header already.
      const twice = /redefine/.test(first) ? ': is a [section] written twice? Put its keys under the first one' : '';
      throw new KowalskiError('KW_ERR_CONFIG_INVALID', `${file}:${err.line}: (syntax): ${first}${twice}`, { where: { file, key: '(syntax)', line: err.line } });
    }
    throw err;
  }
  return configFrom(raw, file);
}

/** The configuration a parsed config.toml (`raw`) gives, every key the engine reads at start checked. */
export function configFrom(raw: Record<string, unknown>, file: string): EngineConfig {
  const store = table(raw, file, 'store');
  const runs = table(raw, file, 'runs');
  const model = table(raw, file, 'model');
  const tools = table(raw, file, 'tools');
  const chat = table(raw, file, 'chat');
  const vault = table(raw, file, 'vault');
  if (tools.root !== undefined && typeof tools.root !== 'string') throw bad(file, 'tools.root', `must be a folder path, not ${JSON.stringify(tools.root)}`);
  const sync = store.synchronous ?? DEFAULT_CONFIG.store.synchronous;
  if (sync !== 'full' && sync !== 'normal') throw bad(file, 'store.synchronous', `must be "full" or "normal", not ${JSON.stringify(sync)}`);
  const storeUrl = postgresUrl(store.url, file);
  if (store.files !== undefined && (typeof store.files !== 'string' || !path.isAbsolute(store.files))) {
    throw bad(file, 'store.files', 'must be an absolute folder path (a folder every node reaches, e.g. a network file system)');
  }
  const leaseSecs = store.lease_secs ?? DEFAULT_CONFIG.store.leaseSecs;
  if (typeof leaseSecs !== 'number' || !(leaseSecs >= 0.5 && leaseSecs <= 600)) throw bad(file, 'store.lease_secs', 'must be a number of seconds from 0.5 to 600');
  if (model.default !== undefined && (typeof model.default !== 'string' || !model.default.includes(':'))) {
    throw bad(file, 'model.default', 'must be "provider:model", e.g. "ollama:qwen2.5:7b"');
  }
  const config: EngineConfig = {
    store: {
      synchronous: sync, leaseSecs,
      ...(storeUrl === undefined ? {} : { url: storeUrl }),
      ...(typeof store.files === 'string' ? { files: store.files } : {}),
    },
    runs: {
      maxParallelSteps: positiveInt(runs, file, 'runs', 'max_parallel_steps', DEFAULT_CONFIG.runs.maxParallelSteps),
      stepTimeoutSecs: positiveInt(runs, file, 'runs', 'step_timeout_secs', DEFAULT_CONFIG.runs.stepTimeoutSecs),
    },
    model: {
      toolCalling: toolCallingSetting(model.tool_calling ?? DEFAULT_CONFIG.model.toolCalling, file, 'model.tool_calling'),
      toolCallingByModel: toolCallingByModel(model, file),
      maxToolIterations: positiveInt(model, file, 'model', 'max_tool_iterations', DEFAULT_CONFIG.model.maxToolIterations),
      maxToolErrors: positiveInt(model, file, 'model', 'max_tool_errors', DEFAULT_CONFIG.model.maxToolErrors),
    },
    chat: {
      maxIterations: positiveInt(chat, file, 'chat', 'max_iterations', DEFAULT_CONFIG.chat.maxIterations),
      maxDepth: positiveInt(chat, file, 'chat', 'max_depth', DEFAULT_CONFIG.chat.maxDepth),
      windowTokens: positiveInt(chat, file, 'chat', 'window_tokens', DEFAULT_CONFIG.chat.windowTokens),
    },
    tools: { root: typeof tools.root === 'string' && tools.root !== '' ? tools.root : null },
    vault: { maxNoteBytes: maxNoteBytes(vault, file), ...vaultConfig(vault, file) },
    budget: budgetConfig(table(raw, file, 'budget'), file),
    mcpServers: mcpServersFrom(raw, file),
    webSearch: webSearchConfigFrom(raw, file),
    adapters: adaptersFrom(raw, file),
    raw,
  };
  if (typeof model.default === 'string') config.model.default = model.default;
  // Checked now, so a bad value stops the start (or a Setup write) with the key named. The
  // settings themselves are read by the engine with the environment, which wins over the file.
  providerSettingsFrom(raw, {});
  return config;
}

/** The Postgres store a data folder is configured with: KOWALSKI_DATABASE_URL over `[store] url`; undefined: SQLite. */
export function configuredPostgresUrl(config: EngineConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = env.KOWALSKI_DATABASE_URL || config.store.url;
  return url === undefined || url === '' ? undefined : url;
}

/** Read `<data dir>/config.toml`; a missing file is the defaults. */
export function loadConfig(file: string): EngineConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return DEFAULT_CONFIG;
    throw bad(file, '(file)', messageOf(err));
  }
  return parseConfig(text, file);
}
