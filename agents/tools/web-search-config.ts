/** `[tools.web_search]` in config.toml: which search engine web_search asks. */
import { ENV_NAME, KowalskiError } from '../../core/index.js';

export const BRAVE_DEFAULT_URL = 'https://api.search.brave.com/res/v1/web/search';
export const STAAN_DEFAULT_URL = 'https://api.staan.ai/v2/search/web';
/** Staan's market: a language and a country, lower case, e.g. `en-us`, `fr-fr`, `de-de`. */
export const STAAN_DEFAULT_MARKET = 'en-us';
export const STAAN_MARKET = /^[a-z]{2}-[a-z]{2}$/;

export type WebSearchConfig =
  | {
    provider: 'searxng';
    /** The instance's base address, usually the operator's own, e.g. `http://127.0.0.1:8888` (no trailing slash). */
    url: string;
  }
  | {
    provider: 'brave';
    /** The full endpoint (default BRAVE_DEFAULT_URL); tests point it at a local server. */
    url: string;
    /** Sent as `X-Subscription-Token`; never shown in messages. */
    apiKey: string;
  }
  | {
    provider: 'staan';
    /** The full endpoint (default STAAN_DEFAULT_URL); tests point it at a local server. */
    url: string;
    /** Sent as `Authorization: Bearer …`; never shown in messages. */
    apiKey: string;
    /** Sent as `market`: the index's language and country, e.g. `en-us`. */
    market: string;
  };

type Table = Record<string, unknown>;

function bad(file: string, key: string, message: string): KowalskiError {
  const full = `tools.web_search.${key}`;
  return new KowalskiError('KW_ERR_CONFIG_INVALID', `${file}: ${full}: ${message}`, { where: { file, key: full } });
}

function table(v: unknown): v is Table {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function httpUrl(file: string, v: unknown): string {
  let u: URL | null = null;
  try {
    if (typeof v === 'string') u = new URL(v);
  } catch {
    // not a URL: reported below
  }
  if (u === null || (u.protocol !== 'http:' && u.protocol !== 'https:')) {
    throw bad(file, 'url', `must be an http:// or https:// URL, not ${JSON.stringify(v)}`);
  }
  return (v as string).replace(/\/+$/, '');
}

/** The providers that take a key, their name for messages and the variable read when `api_key_env` is absent. */
const KEYED = { brave: { name: 'Brave', env: 'BRAVE_API_KEY' }, staan: { name: 'Staan', env: 'STAAN_API_KEY' } } as const;

/**
 * A provider's key: from the variable `api_key_env` names when it is there (it is the file's
 * explicit choice), else the provider's own variable (`BRAVE_API_KEY`, `STAAN_API_KEY`), else the literal `api_key`.
 */
function providerKey(file: string, section: Table, env: NodeJS.ProcessEnv, provider: keyof typeof KEYED): string {
  const { name: who, env: fallback } = KEYED[provider];
  const name = section.api_key_env;
  let key: unknown;
  if (name !== undefined) {
    if (typeof name !== 'string' || !ENV_NAME.test(name)) {
      throw bad(file, 'api_key_env', `must name an environment variable (letters, digits and _, not starting with a digit), not ${JSON.stringify(name)}`);
    }
    key = env[name];
    if (key === undefined || key === '') throw bad(file, 'api_key_env', `the environment variable ${name} is not set (or is empty) in kowalski's environment: set it to ${who}'s key and start kowalski again`);
  } else {
    key = env[fallback] || section.api_key;
    if (key === undefined || key === '') throw bad(file, 'api_key', `${provider} needs an API key: api_key_env = "NAME" (the variable holding it), api_key = "…", or set ${fallback}`);
  }
  if (typeof key !== 'string' || /\s/.test(key)) throw bad(file, 'api_key', 'must be a string without spaces or line breaks');
  return key;
}

function market(file: string, v: unknown): string {
  if (v === undefined) return STAAN_DEFAULT_MARKET;
  if (typeof v !== 'string' || !STAAN_MARKET.test(v)) throw bad(file, 'market', `must be a language and a country in lower case, e.g. "en-us" or "fr-fr", not ${JSON.stringify(v)}`);
  return v;
}

/**
 * Read `[tools.web_search]` from the parsed config.toml (`raw`); null when it is absent.
 * A key (Brave, Staan): the variable `api_key_env` names wins, then `BRAVE_API_KEY` / `STAAN_API_KEY` in `env`, then `api_key`.
 * A bad value is KW_ERR_CONFIG_INVALID naming `tools.web_search.<key>` and `file`.
 */
export function webSearchConfigFrom(raw: Record<string, unknown>, file: string, env: NodeJS.ProcessEnv = process.env): WebSearchConfig | null {
  const tools = raw.tools;
  if (tools === undefined) return null;
  if (!table(tools)) throw new KowalskiError('KW_ERR_CONFIG_INVALID', `${file}: tools: must be a table`, { where: { file, key: 'tools' } });
  const section = tools.web_search;
  if (section === undefined) return null;
  if (!table(section)) {
    throw new KowalskiError('KW_ERR_CONFIG_INVALID', `${file}: tools.web_search: must be a table ([tools.web_search])`, { where: { file, key: 'tools.web_search' } });
  }
  if (Object.keys(section).length === 0) return null; // an empty table (Setup's "none" leaves its header and comments): no search engine
  if (section.market !== undefined && section.provider !== 'staan') throw bad(file, 'market', 'is read only for provider = "staan"; remove it');
  switch (section.provider) {
    case 'searxng':
      if (section.url === undefined) throw bad(file, 'url', 'searxng needs the address of its instance, e.g. url = "http://127.0.0.1:8888"');
      return { provider: 'searxng', url: httpUrl(file, section.url) };
    case 'brave':
      return { provider: 'brave', url: section.url === undefined ? BRAVE_DEFAULT_URL : httpUrl(file, section.url), apiKey: providerKey(file, section, env, 'brave') };
    case 'staan':
      return {
        provider: 'staan', url: section.url === undefined ? STAAN_DEFAULT_URL : httpUrl(file, section.url),
        apiKey: providerKey(file, section, env, 'staan'), market: market(file, section.market),
      };
    default:
      throw bad(file, 'provider', `must be "searxng", "brave" or "staan", not ${JSON.stringify(section.provider ?? null)}`);
  }
}
