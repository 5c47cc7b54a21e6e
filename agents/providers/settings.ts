/**
 * ProviderSettings from the parsed config.toml and the environment. The ecosystems'
 * own variables win over the file (OLLAMA_HOST, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
 * GEMINI_API_KEY, GOOGLE_GEMINI_BASE_URL), so a machine set up for `ollama`, Anthropic's
 * or Google's tools works with no config at all.
 */
import { KowalskiError, httpUrlOr } from '../../core/index.js';
import type { ProviderSettings } from '../types.js';

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';
const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_RETRY_BASE_MS = 500;

type Table = Record<string, unknown>;

/** `key` is a config.toml key, or the environment variable the value came from. */
function bad(key: string, message: string): KowalskiError {
  const fromEnv = /^[A-Z_]+$/.test(key);
  return new KowalskiError('KW_ERR_CONFIG_INVALID', `${fromEnv ? '' : 'config.toml: '}${key}: ${message}`, { where: fromEnv ? { key } : { file: 'config.toml', key } });
}

function table(t: Table, key: string, path: string): Table | undefined {
  const v = t[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(path, 'must be a table');
  return v as Table;
}

function text(t: Table | undefined, key: string, path: string): string | undefined {
  const v = t?.[key];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw bad(path, `must be a string, not ${JSON.stringify(v)}`);
  return v;
}

function wholeNumber(t: Table | undefined, key: string, path: string, min: number): number | undefined {
  const v = t?.[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw bad(path, `must be a whole number ≥ ${min}, not ${JSON.stringify(v)}`);
  return v;
}

function env(vars: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = vars[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

function httpUrl(value: string, path: string): string {
  return httpUrlOr(value, (why) => bad(path, why));
}

/** A base URL from the environment variable `name`, else from the file's `path`; checked either way. */
function baseUrlOf(vars: NodeJS.ProcessEnv, name: string, t: Table | undefined, path: string): string | undefined {
  const fromEnv = env(vars, name);
  if (fromEnv !== undefined) return httpUrl(fromEnv, name);
  const fromFile = text(t, path.slice(path.lastIndexOf('.') + 1), path);
  return fromFile === undefined ? undefined : httpUrl(fromFile, path);
}

/**
 * An Ollama host as the ollama CLI reads OLLAMA_HOST: the scheme defaults to http, the
 * port to 11434 (80/443 when a scheme is written), the host to 127.0.0.1. An unspecified
 * address (`0.0.0.0`, `::`) becomes 127.0.0.1: people set it for the server to listen on
 * every interface, and a client cannot connect to "any address" on every OS.
 * `source` names where the value came from, for the error.
 */
export function normalizeOllamaHost(value: string, source = 'OLLAMA_HOST'): string {
  const trimmed = value.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(trimmed)?.[1]?.toLowerCase();
  const rest = scheme === undefined ? trimmed : trimmed.slice(scheme.length + 3);
  const authority = rest.split('/')[0] ?? '';
  const defaultPort = scheme === 'https' ? '443' : scheme === 'http' ? '80' : '11434';
  // URL drops a port equal to its scheme's default, so the written one is read from the text.
  const port = /:(\d+)$/.exec(authority)?.[1] ?? defaultPort;
  let url: URL;
  try {
    url = new URL(`${scheme ?? 'http'}://${authority.startsWith(':') ? '127.0.0.1' : ''}${rest}`);
  } catch {
    throw bad(source, `${JSON.stringify(value)} is not a host, host:port or URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad(source, `${JSON.stringify(value)} must use http:// or https://`);
  const host = url.hostname === '0.0.0.0' || url.hostname === '[::]' ? '127.0.0.1' : url.hostname;
  return `${url.protocol}//${host}:${port}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * `raw` is the whole parsed config.toml. Reads `[providers.ollama] host`,
 * `[providers.anthropic] api_key, base_url`, `[providers.openai] base_url, api_key`,
 * `[providers.gemini] api_key, base_url` and
 * `[model] timeout_secs, max_retries`; a bad value is KW_ERR_CONFIG_INVALID naming the key.
 */
export function providerSettingsFrom(raw: Record<string, unknown>, vars: NodeJS.ProcessEnv): ProviderSettings {
  const providers = table(raw, 'providers', 'providers') ?? {};
  const model = table(raw, 'model', 'model');
  const ollama = table(providers, 'ollama', 'providers.ollama');
  const anthropic = table(providers, 'anthropic', 'providers.anthropic');
  const openai = table(providers, 'openai', 'providers.openai');
  const gemini = table(providers, 'gemini', 'providers.gemini');

  const envHost = env(vars, 'OLLAMA_HOST');
  const fileHost = text(ollama, 'host', 'providers.ollama.host');
  const host = envHost !== undefined ? normalizeOllamaHost(envHost)
    : fileHost !== undefined ? normalizeOllamaHost(fileHost, 'providers.ollama.host')
    : DEFAULT_OLLAMA_HOST;

  const settings: ProviderSettings = {
    ollama: { host },
    anthropic: {},
    timeoutMs: (wholeNumber(model, 'timeout_secs', 'model.timeout_secs', 1) ?? DEFAULT_TIMEOUT_MS / 1000) * 1000,
    maxRetries: wholeNumber(model, 'max_retries', 'model.max_retries', 0) ?? DEFAULT_MAX_RETRIES,
    retryBaseMs: DEFAULT_RETRY_BASE_MS,
  };
  const apiKey = env(vars, 'ANTHROPIC_API_KEY') ?? text(anthropic, 'api_key', 'providers.anthropic.api_key');
  if (apiKey !== undefined) settings.anthropic.apiKey = apiKey;
  const baseUrl = baseUrlOf(vars, 'ANTHROPIC_BASE_URL', anthropic, 'providers.anthropic.base_url');
  if (baseUrl !== undefined) settings.anthropic.baseUrl = baseUrl;
  const geminiKey = env(vars, 'GEMINI_API_KEY') ?? text(gemini, 'api_key', 'providers.gemini.api_key');
  const geminiBase = baseUrlOf(vars, 'GOOGLE_GEMINI_BASE_URL', gemini, 'providers.gemini.base_url');
  if (geminiKey !== undefined || geminiBase !== undefined) {
    settings.gemini = {};
    if (geminiKey !== undefined) settings.gemini.apiKey = geminiKey;
    if (geminiBase !== undefined) settings.gemini.baseUrl = geminiBase;
  }
  if (openai !== undefined) {
    const openaiBase = text(openai, 'base_url', 'providers.openai.base_url');
    const openaiKey = text(openai, 'api_key', 'providers.openai.api_key');
    settings.openai = { baseUrl: openaiBase === undefined ? DEFAULT_OPENAI_BASE_URL : httpUrl(openaiBase, 'providers.openai.base_url') };
    if (openaiKey !== undefined) settings.openai.apiKey = openaiKey;
  }
  return settings;
}
