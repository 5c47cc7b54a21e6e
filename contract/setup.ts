/** Setup (`GET/PUT /api/setup`): the model provider, the tools folder, semantic search over the vault and web search, as config.toml holds them. */
import type { AdapterType } from './adapters.js';
import type { CodedError } from './errors.js';

export type ToolCalling = 'auto' | 'native' | 'text';

/** A hosted provider's key (only a hint of it) and base URL. */
export interface KeyedSetup {
  apiKeySet: boolean;
  apiKeyHint: string | null;
  baseUrl: string | null;
}

export type WebSearchProvider = 'searxng' | 'brave' | 'staan';

/** `[tools.web_search]`: the search engine web_search asks. A key is never shown: only the variable's name, or a hint of a key written in the file. */
export interface WebSearchSetup {
  /** null: no `[tools.web_search]`, web_search is not offered. */
  provider: WebSearchProvider | null;
  /** SearXNG's base address, or Brave's or Staan's endpoint when it is not the default. */
  url: string | null;
  /** `api_key_env`: the environment variable holding Brave's or Staan's key (its name only). */
  apiKeyEnv: string | null;
  /** Whether that variable is set in the server's environment. */
  apiKeyEnvSet: boolean;
  /** Whether `BRAVE_API_KEY` and `STAAN_API_KEY` are set in the server's environment (the provider's is used when no `api_key_env` is named). */
  envKeySet: { brave: boolean; staan: boolean };
  /** Staan's `market` (e.g. `en-us`); null when the file sets none (Staan then uses `en-us`). */
  market: string | null;
  /** A hint of a literal `api_key` in the file ("abcd…wxyz"); null when there is none. */
  apiKeyHint: string | null;
}

export interface Setup {
  configFile: string;
  model: { default: string | null; toolCalling: ToolCalling };
  providers: {
    ollama: { host: string | null };
    anthropic: KeyedSetup;
    gemini: KeyedSetup;
    /** `[providers.openai]`: an OpenAI-compatible server (LM Studio, vLLM, llama.cpp, OpenAI). */
    openai: KeyedSetup;
  };
  tools: { root: string | null };
  /** `[vault.semantic]`: off by default; the model defaults to `ollama:nomic-embed-text`. */
  vault: { semantic: { enabled: boolean; model: string } };
  webSearch: WebSearchSetup;
}

/** Every key optional; `null` removes the setting. */
export interface SetupPatch {
  model?: { default?: string | null; toolCalling?: ToolCalling };
  providers?: {
    ollama?: { host?: string | null };
    anthropic?: { apiKey?: string | null; baseUrl?: string | null };
    gemini?: { apiKey?: string | null; baseUrl?: string | null };
    openai?: { apiKey?: string | null; baseUrl?: string | null };
  };
  tools?: { root?: string | null };
  /** A null model goes back to the default. */
  vault?: { semantic?: { enabled?: boolean; model?: string | null } };
  /**
   * `[tools.web_search]`: a null provider removes the table. `url`, `apiKeyEnv` (Brave's or
   * Staan's key as an environment variable's name, never the key) and `market` (Staan's only)
   * are kept when left out; SearXNG needs a url and takes no key.
   */
  webSearch?: { provider: WebSearchProvider | null; url?: string | null; apiKeyEnv?: string | null; market?: string | null };
}

/** How config.toml was written: its lines edited (comments kept), or written afresh from its values. */
export interface SetupWritten {
  comments: 'kept' | 'dropped';
  /** One sentence for the operator. */
  message: string;
}

export type ProbeStatus = 'ok' | 'unreachable' | 'model_missing' | 'not_configured';

/** A model's check: is its server there, and does it have the model? */
export interface ProbeResult {
  status: ProbeStatus;
  /** One sentence for the operator, naming the server or the config.toml key. */
  message: string;
}

/** `PUT /api/setup`'s answer: the new Setup, how config.toml was written, and the default model's check when the save changed the model or a provider. */
export interface SetupSaved extends Setup {
  written: SetupWritten;
  check: ProbeResult | null;
}

/** `GET /api/setup/mcp`: each MCP server reached over HTTP and whether kowalski holds a sign-in for it (never the tokens). */
export interface McpSignInStatus {
  name: string;
  url: string;
  /** A sign-in with tokens is stored (`<data>/secrets/mcp-oauth/<name>.json`). */
  signedIn: boolean;
  /** When the authorization server refused the stored sign-in (ISO time); null otherwise. */
  refusedAt: string | null;
  /** The stored sign-in cannot be read (KW_ERR_MCP_OAUTH_FILE's message); null otherwise. */
  problem: string | null;
}

/** `POST /api/setup/mcp/:server/sign-in`: where to send the browser; it comes back to `/api/mcp/oauth/callback`. */
export interface McpSignInStart {
  authorizationUrl: string;
}

/** The providers whose server Setup asks for its models (`GET /api/setup/models?provider=`). */
export type ModelListProvider = 'ollama' | 'openai';

/** The models the saved settings' server has, to offer in Setup's model field (the operator may still type another). */
export interface ModelList {
  provider: ModelListProvider;
  /** The server asked; null when none is set. */
  server: string | null;
  /** Sorted names as the server spells them (`qwen2.5:7b`, `gpt-4o-mini`). */
  models: string[];
  /** Why none are offered (the server does not answer, has none, is not set), naming the server and the config.toml key; null when there are models. */
  problem: string | null;
}

/** `GET /api/setup/mcp/servers`: one server of `[[mcp.servers]]` as config.toml holds it (never a token or an env value). */
export interface McpServerSetup {
  /** Its tools are offered as `name.tool`. */
  name: string;
  transport: 'stdio' | 'http';
  /** stdio: the program (`~/` expanded); null for http. */
  command: string | null;
  /** stdio: its arguments; [] for http. */
  args: string[];
  /** http: the address; null for stdio. */
  url: string | null;
  /** http: a `token` is set in config.toml (its value is never sent). */
  tokenSet: boolean;
  /** stdio: the names of the variables `env` sets (never their values). */
  envNames: string[];
  /** stdio: its working folder, absolute; null: kowalski's (and for http). */
  cwd: string | null;
  /** `timeout_secs`: longest one tool call may take. */
  timeoutSecs: number;
  /** `connect_timeout_secs`: longest starting it and listing its tools may take. */
  connectTimeoutSecs: number;
}

/** `POST /api/setup/mcp/servers`: a server to add; a command (stdio) or a url (http). */
export interface McpServerAdd {
  name: string;
  transport: 'stdio' | 'http';
  command?: string;
  args?: string[];
  /** stdio: its working folder (`~/` expanded; relative: from config.toml's folder). */
  cwd?: string;
  /** stdio: variables added to the small environment the child gets; written to config.toml (0600), never shown back. */
  env?: Record<string, string>;
  url?: string;
  /** http: sent as `Authorization: Bearer …`; written to config.toml (0600), never shown back. */
  token?: string;
  /** Absent: the defaults (60 s a call, 20 s to connect). */
  timeoutSecs?: number;
  connectTimeoutSecs?: number;
}

/**
 * `PUT /api/setup/mcp/servers/:name`: the server's whole new entry, in its place, except for
 * what is never shown back: `token` absent keeps the one set (null removes it); `env` absent
 * keeps every variable, and given, holds exactly the variables to keep, a null value keeping
 * that variable's current value.
 */
export interface McpServerEdit extends Omit<McpServerAdd, 'name' | 'env' | 'token'> {
  env?: Record<string, string | null>;
  token?: string | null;
}

/** The answer of an add, an edit or a remove: the servers now, and how config.toml was written. */
export interface McpServersSaved {
  servers: McpServerSetup[];
  written: SetupWritten;
}

/** `POST /api/setup/mcp/servers/:name/test`: whether the server started (or was reached) and listed its tools, within a bounded time. */
export interface McpServerTest {
  name: string;
  ok: boolean;
  /** Its tools, as it names and describes them ([] when not ok). */
  tools: { name: string; description: string }[];
  /** Why it did not answer (KW_ERR_MCP_UNAVAILABLE, KW_ERR_MCP_TIMEOUT, KW_ERR_MCP_SIGN_IN…); null when ok. */
  error: CodedError | null;
  /** Time taken, ms. */
  ms: number;
}

/** Setup's view of an adapter's live status: `pending` when it was added (or changed) since the server started, which takes effect at its next start. */
export type AdapterSetupState = 'running' | 'error' | 'disabled' | 'off' | 'pending';

/** One `[adapters.<name>]` section as Setup shows it: never a secret's value. */
export interface AdapterSetup {
  name: string;
  type: AdapterType;
  agent: string | null;
  enabled: boolean;
  /** Non-secret keys (a nested table's as `imap.host`) with their values as written. */
  settings: { key: string; value: string | number | boolean }[];
  /** Secret keys: the environment variable's name (`<key>_env`) and whether it is set in the server's environment, or `inFile` when the value is written in config.toml. */
  secrets: { key: string; env: string | null; envSet: boolean; inFile: boolean }[];
  state: AdapterSetupState;
  /** The running server's last error of it (secrets scrubbed), when `state` is `error`. */
  lastError: string | null;
}

/** `POST /api/setup/adapters`: settings' values as written; a secret only as an environment variable's name. */
export interface AdapterAdd {
  name: string;
  type: AdapterType;
  agent?: string;
  enabled?: boolean;
  /** Non-secret keys, a nested table's as `imap.host`. */
  settings?: Record<string, string | number | boolean>;
  /** Secret key → the environment variable's NAME, written as `<key>_env = "NAME"`. */
  secretEnv?: Record<string, string>;
}

/**
 * `PATCH /api/setup/adapters/:name`: keys to change, the others staying as they are; `null`
 * removes a key (a secret: its `<key>_env` and a value written in the file). Its type stays.
 */
export interface AdapterChange {
  agent?: string | null;
  enabled?: boolean | null;
  settings?: Record<string, string | number | boolean | null>;
  secretEnv?: Record<string, string | null>;
}

export interface AdaptersSaved {
  adapters: AdapterSetup[];
  written: SetupWritten;
  /** True: the running server starts (or stops) adapters as config.toml had them at its start; the change takes effect at its next start. */
  restartNeeded: boolean;
}
