/**
 * Every key config.toml takes, in one list: its section, type, default (or an example where
 * there is none) and what it does in one line. engine/config.ts takes its defaults from here,
 * config.example.toml is rendered from here (example.ts), and `kowalski doctor` warns about a
 * key that is not here (unknown-keys.ts) — so the reader, the example and the warnings agree.
 */
import { BUDGET_KEYS, BUDGET_LABELS } from '../../core/index.js';
import { DEFAULT_MAX_RETRIES, DEFAULT_OLLAMA_HOST, DEFAULT_TIMEOUT_MS, MCP_DEFAULT_CONNECT_TIMEOUT_SECS, MCP_DEFAULT_TIMEOUT_SECS, STAAN_DEFAULT_MARKET } from '../../agents/index.js';
import { ADAPTER_TYPES } from '../adapters/types.js';

export type ConfigValue = string | number | boolean | readonly string[] | Readonly<Record<string, string>>;

export interface ConfigKey {
  key: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'table';
  /** What one line of the example says of it (its unit and choices included). */
  comment: string;
  /** The value the reader takes when the key is absent; absent: nothing (the feature is off, or the value has to be the user's). */
  default?: ConfigValue;
  /** The value the example shows when there is no default. */
  example?: ConfigValue;
  /** The values the reader accepts, when it is a closed list. */
  choices?: readonly string[];
  /** It holds a secret: the example names it in a comment and never shows a value. */
  secret?: true;
  /** Its own keys are the user's (variable names, …): not checked against this list. */
  freeForm?: true;
  /** Read only when another key of the section has one of these values (Staan's `market`: provider = "staan"); the reader refuses it otherwise. */
  onlyWith?: { key: string; values: readonly string[] };
}

export interface ConfigSection {
  /** As the header writes it: `model`, `tools.web_search`; `<name>` stands for a name the user picks (`adapters.<name>`). */
  name: string;
  /** `table` ([name]), `array` ([[name]], one table per entry), `map` (its keys are the user's: model names, `<horde>/<trigger>`). */
  kind: 'table' | 'array' | 'map';
  comment: string;
  /** The header alone switches something on (an adapter, an MCP server, a provider): the example leaves it commented out. */
  optIn?: true;
  /** A map's entries as the example shows them (commented out). */
  entries?: Readonly<Record<string, string>>;
  /** The section's other keys are the user's (an adapter type's own settings, docs/adapters.md): not checked; says where they are documented. */
  openEnded?: string;
  /** Keys that exclude some of the others (a server's url and its command): the example shows them in a second entry named `name`. */
  alternative?: { keys: readonly string[]; name: string; comment: string };
  keys: readonly ConfigKey[];
}

const budgetExample: Record<string, number> = { model_calls: 200, tokens: 500_000, cost_usd: 5, tool_calls: 400, wall_secs: 3600 };

export const CONFIG_SECTIONS: readonly ConfigSection[] = [
  {
    name: 'model', kind: 'table', comment: 'The model steps and chats use, and how they are called.',
    keys: [
      { key: 'default', type: 'string', example: 'ollama:qwen2.5:7b', comment: '"provider:model" (providers: ollama, anthropic, openai, gemini) used by steps and agents that name none' },
      { key: 'tool_calling', type: 'string', default: 'auto', choices: ['auto', 'native', 'text'], comment: 'how tools are offered: auto (native, text for models that cannot), native, text' },
      { key: 'max_tool_iterations', type: 'integer', default: 10, comment: "most model calls in one step's tool loop" },
      { key: 'max_tool_errors', type: 'integer', default: 3, comment: 'most failed tool calls a model may correct in one step' },
      { key: 'timeout_secs', type: 'integer', default: DEFAULT_TIMEOUT_MS / 1000, comment: 'longest one model call may take, seconds' },
      { key: 'max_retries', type: 'integer', default: DEFAULT_MAX_RETRIES, comment: 'retries of a model call that failed on the way (0 = none)' },
    ],
  },
  {
    name: 'model.tool_calling_by_model', kind: 'map', comment: 'tool_calling for one model, over [model] tool_calling: "provider:model" = "auto" | "native" | "text".',
    entries: { '"ollama:llama3.2:1b"': 'text' }, keys: [],
  },
  {
    name: 'providers.ollama', kind: 'table', comment: 'Ollama (local models). $OLLAMA_HOST wins over the file.',
    keys: [{ key: 'host', type: 'string', default: DEFAULT_OLLAMA_HOST, comment: 'host, host:port or URL of the Ollama server' }],
  },
  {
    name: 'providers.anthropic', kind: 'table', comment: 'Anthropic. $ANTHROPIC_API_KEY and $ANTHROPIC_BASE_URL win over the file.',
    keys: [
      { key: 'api_key', type: 'string', secret: true, comment: 'the API key: better in $ANTHROPIC_API_KEY; written here, this file must stay owner-only (0600)' },
      { key: 'base_url', type: 'string', example: 'https://api.anthropic.com', comment: "another address for Anthropic's API (a proxy); absent: Anthropic's own" },
    ],
  },
  {
    name: 'providers.openai', kind: 'table', optIn: true, comment: 'OpenAI or any OpenAI-compatible server (the section switches the provider on).',
    keys: [
      { key: 'base_url', type: 'string', default: 'https://api.openai.com/v1', comment: 'the API base address (e.g. http://127.0.0.1:8000/v1 for a local server)' },
      { key: 'api_key', type: 'string', secret: true, comment: 'the API key; this file must then stay owner-only (0600)' },
    ],
  },
  {
    name: 'providers.gemini', kind: 'table', comment: 'Google Gemini. $GEMINI_API_KEY and $GOOGLE_GEMINI_BASE_URL win over the file.',
    keys: [
      { key: 'api_key', type: 'string', secret: true, comment: 'the API key: better in $GEMINI_API_KEY; written here, this file must stay owner-only (0600)' },
      { key: 'base_url', type: 'string', example: 'https://generativelanguage.googleapis.com', comment: "another address for Gemini's API; absent: Google's own" },
    ],
  },
  {
    name: 'store', kind: 'table', comment: 'Where runs are kept: SQLite in the data folder, or PostgreSQL for several nodes (docs/postgres.md).',
    keys: [
      { key: 'synchronous', type: 'string', default: 'full', choices: ['full', 'normal'], comment: "SQLite's synchronous mode: full (safest) or normal (faster; the last commits may be lost at a power cut)" },
      { key: 'url', type: 'string', example: 'postgres://kowalski@127.0.0.1:5432/kowalski', comment: 'a postgres:// address: the run store lives there, shared by every node ($KOWALSKI_DATABASE_URL wins); absent: SQLite' },
      { key: 'files', type: 'string', example: '/shared/kowalski', comment: "with PostgreSQL: the absolute folder, shared by every node, that holds the run folders; absent: the data folder's runs/" },
      { key: 'lease_secs', type: 'number', default: 10, comment: "with PostgreSQL: how long a node's hold on a run lasts without a heartbeat, seconds (0.5 to 600)" },
    ],
  },
  {
    name: 'runs', kind: 'table', comment: 'Limits of running hordes.',
    keys: [
      { key: 'max_parallel_steps', type: 'integer', default: 4, comment: 'steps running at once across all runs' },
      { key: 'step_timeout_secs', type: 'integer', default: 600, comment: 'the per-step limit where a step sets none, seconds' },
    ],
  },
  {
    name: 'chat', kind: 'table', comment: 'Chat with the agent team (docs/chat.md).',
    keys: [
      { key: 'max_iterations', type: 'integer', default: 20, comment: "model calls one chat turn may make, the whole delegation tree together, when the agent's profile sets none" },
      { key: 'max_depth', type: 'integer', default: 3, comment: 'agents in a delegation chain, the root included' },
      { key: 'window_tokens', type: 'integer', default: 6000, comment: 'earlier turns a turn is given, in tokens (about characters / 4); older turns are summarised' },
    ],
  },
  {
    name: 'tools', kind: 'table', comment: 'The tools agents use (docs/tools.md).',
    keys: [{ key: 'root', type: 'string', example: '~/kowalski-files', comment: 'the only folder file tools may touch (may start with ~/); absent: file tools are off' }],
  },
  {
    name: 'tools.web_search', kind: 'table', comment: 'The search engine web_search asks; empty: no web search.',
    keys: [
      { key: 'provider', type: 'string', example: 'searxng', choices: ['searxng', 'brave', 'staan'], comment: 'searxng (your own instance), brave or staan (each needs a key)' },
      { key: 'url', type: 'string', example: 'http://127.0.0.1:8888', comment: "searxng: the instance's address (required); brave, staan: another endpoint (default the provider's own)" },
      { key: 'api_key_env', type: 'string', example: 'BRAVE_API_KEY', comment: 'brave, staan: the environment variable holding the key (default: $BRAVE_API_KEY, $STAAN_API_KEY)' },
      { key: 'api_key', type: 'string', secret: true, comment: 'brave, staan: the key itself; prefer api_key_env, else this file must stay owner-only (0600)' },
      { key: 'market', type: 'string', default: STAAN_DEFAULT_MARKET, onlyWith: { key: 'provider', values: ['staan'] }, comment: 'staan only (refused with another provider): the index\'s language and country, lower case, e.g. "fr-fr"' },
    ],
  },
  {
    name: 'vault', kind: 'table', comment: "The vault: the team's Markdown notes (docs/vault.md).",
    keys: [{ key: 'max_note_bytes', type: 'integer', default: 1024 * 1024, comment: 'the largest note a write may leave and a read returns, bytes (at most 16 MiB)' }],
  },
  {
    name: 'vault.semantic', kind: 'table', comment: "Semantic search over the vault's notes (docs/vault-search.md).",
    keys: [
      { key: 'enabled', type: 'boolean', default: false, comment: 'embed the notes, so searches can ask for meaning too' },
      { key: 'model', type: 'string', default: 'ollama:nomic-embed-text', comment: 'the embedding model, "provider:model" with provider ollama, openai or gemini' },
    ],
  },
  {
    name: 'budget', kind: 'table', comment: "Every run's limits where its horde's [budget] sets none; crossing one parks the run (docs/budgets.md). Absent: no limit.",
    keys: BUDGET_KEYS.map((key) => ({ key, type: key === 'cost_usd' ? 'number' : 'integer', example: budgetExample[key] ?? 1, comment: `most ${BUDGET_LABELS[key]} a run may use` })),
  },
  {
    name: 'mcp.servers', kind: 'array', optIn: true, comment: 'MCP servers whose tools agents may use (docs/mcp.md): one [[mcp.servers]] each, with command (stdio) or url (Streamable HTTP).',
    alternative: { keys: ['url', 'token'], name: 'remote', comment: 'or a server reached over Streamable HTTP:' },
    keys: [
      { key: 'name', type: 'string', example: 'data', comment: 'lower-case letters, digits, _ and -; unique; its tools are offered as name.tool' },
      { key: 'command', type: 'string', example: 'kowalski', comment: 'stdio: the program to run (~/ expanded; a bare name is looked up in PATH)' },
      { key: 'args', type: 'array', example: ['mcp', 'serve', 'data', '--root', '~/Spreadsheets'], comment: "stdio: the program's arguments" },
      { key: 'env', type: 'table', freeForm: true, example: { LOG_LEVEL: 'warn' }, comment: 'stdio: variables added to the small environment the child gets (HOME, PATH, USER…)' },
      { key: 'cwd', type: 'string', example: '~/Spreadsheets', comment: "stdio: its working folder (relative: from this file's folder); absent: kowalski's" },
      { key: 'url', type: 'string', example: 'http://127.0.0.1:9000/mcp', comment: 'Streamable HTTP: the address (instead of command)' },
      { key: 'token', type: 'string', secret: true, comment: 'Streamable HTTP: sent as Authorization: Bearer <token>; this file must then stay owner-only (0600)' },
      { key: 'timeout_secs', type: 'number', default: MCP_DEFAULT_TIMEOUT_SECS, comment: 'longest one tool call may take, seconds' },
      { key: 'connect_timeout_secs', type: 'number', default: MCP_DEFAULT_CONNECT_TIMEOUT_SECS, comment: 'longest starting the server and listing its tools may take, seconds' },
    ],
  },
  {
    name: 'adapters.<name>', kind: 'table', optIn: true, comment: 'Inbound channels (docs/adapters.md): one [adapters.<name>] each, off until enabled.',
    openEnded: "each type's own settings (signing_secret_env, bot_token_env, imap, caldav…): docs/adapters.md",
    keys: [
      { key: 'type', type: 'string', example: 'slack', choices: ADAPTER_TYPES, comment: `${ADAPTER_TYPES.join(', ')}; absent: the section's name` },
      { key: 'enabled', type: 'boolean', default: false, comment: 'switched on at start (the app and `kowalski adapters enable` switch it too)' },
      { key: 'agent', type: 'string', default: 'assistant', comment: 'the agent its messages go to (the calendar gives tools and takes none)' },
    ],
  },
  {
    name: 'webhook_secrets', kind: 'map', comment: "HMAC secrets of hordes' webhook triggers, \"<horde>/<trigger>\" = the secret (secrets: prefer the trigger's secret_env; this file must then stay owner-only, 0600).",
    keys: [],
  },
];

/** The section and key a dotted name (`runs.max_parallel_steps`, `adapters.<name>.agent`) stands for. */
export function configKey(section: string, key: string): ConfigKey {
  const found = CONFIG_SECTIONS.find((s) => s.name === section)?.keys.find((k) => k.key === key);
  if (found === undefined) throw new Error(`config catalog: no key ${section}.${key}`);
  return found;
}

/** A key's default, checked to be a number (for DEFAULT_CONFIG). */
export function numberDefault(section: string, key: string): number {
  const v = configKey(section, key).default;
  if (typeof v !== 'number') throw new Error(`config catalog: ${section}.${key} has no number default`);
  return v;
}

export function stringDefault(section: string, key: string): string {
  const v = configKey(section, key).default;
  if (typeof v !== 'string') throw new Error(`config catalog: ${section}.${key} has no string default`);
  return v;
}

export function booleanDefault(section: string, key: string): boolean {
  const v = configKey(section, key).default;
  if (typeof v !== 'boolean') throw new Error(`config catalog: ${section}.${key} has no boolean default`);
  return v;
}

/** A key's default, one of `choices` (the type the reader gives it). */
export function choiceDefault<C extends string>(section: string, key: string, choices: readonly C[]): C {
  const v = stringDefault(section, key);
  if (!(choices as readonly string[]).includes(v)) throw new Error(`config catalog: ${section}.${key} default ${v} is not one of ${choices.join(', ')}`);
  return v as C;
}

/** Every key's dotted name, `<name>` where the user picks one and `[]` after an array: `mcp.servers[].name`. */
export function configKeyNames(): string[] {
  return CONFIG_SECTIONS.flatMap((s) => s.keys.map((k) => `${s.name}${s.kind === 'array' ? '[]' : ''}.${k.key}`));
}
