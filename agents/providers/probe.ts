/**
 * A cheap readiness check of one model before anything depends on it: is the provider
 * set up, does its server answer, does it have the model? Ollama lists its models at
 * `GET /api/tags`, an OpenAI-compatible server at `GET /models`; the hosted providers
 * (Anthropic, Gemini) are checked for a key only, so a check costs nothing and sends no
 * key anywhere new. One short request per call, bounded by `timeoutMs`.
 */
import http from 'node:http';
import https from 'node:https';
import type { ModelRef, ProviderSettings } from '../types.js';
import { PROVIDER_NAMES } from './model-ref.js';
import { messageOf } from '../../core/index.js';
import type { ProbeResult } from '../../contract/setup.js';
export type { ProbeResult, ProbeStatus } from '../../contract/setup.js';

/** Default for `timeoutMs`: 3 s. */
export const DEFAULT_PROBE_TIMEOUT_MS = 3000;

/**
 * `GET url` within the time: the JSON body, or why not. Over node:http with no agent, so
 * the connection closes with the answer: a kept-alive socket would hold a one-shot CLI
 * command open for as long as the server keeps it (fetch keeps it).
 */
function getJson(url: string, headers: Record<string, string>, timeoutMs: number): Promise<{ json: unknown } | { why: string }> {
  return new Promise((resolve) => {
    const get = url.startsWith('https:') ? https.get : http.get;
    let req: http.ClientRequest;
    try {
      req = get(url, { headers: { accept: 'application/json', ...headers }, agent: false, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => resolve({ why: `could not be read (${err.message})` }));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) return resolve({ why: `answered ${status}${status === 401 || status === 403 ? ' (the key was refused)' : ''}` });
          try {
            resolve({ json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
          } catch {
            resolve({ why: 'answered with something that is not JSON' });
          }
        });
      });
    } catch (err) {
      resolve({ why: `could not be asked (${messageOf(err)})` });
      return;
    }
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => {
      resolve({ why: err.code === 'TIMEOUT' ? `did not answer within ${timeoutMs} ms` : `could not be reached (${err.code ?? err.message})` });
    });
  });
}

/** Ollama's names carry a tag; a name without one means `:latest`. */
function sameOllamaModel(listed: string, wanted: string): boolean {
  const full = (n: string): string => (n.includes(':') ? n : `${n}:latest`);
  return full(listed) === full(wanted);
}

function namesIn(json: unknown, list: 'models' | 'data', key: 'name' | 'id'): string[] {
  const items = (json as Record<string, unknown> | null)?.[list];
  if (!Array.isArray(items)) return [];
  return items.flatMap((m) => {
    const v = (m as Record<string, unknown> | null)?.[key];
    return typeof v === 'string' ? [v] : [];
  });
}

async function probeOllama(model: string, host: string, timeoutMs: number): Promise<ProbeResult> {
  const got = await getJson(`${host}/api/tags`, {}, timeoutMs);
  if ('why' in got) return { status: 'unreachable', message: `Ollama at ${host} ${got.why}: is \`ollama serve\` running? (host: [providers.ollama] host in config.toml, or OLLAMA_HOST)` };
  const names = namesIn(got.json, 'models', 'name');
  if (!names.some((n) => sameOllamaModel(n, model))) {
    return { status: 'model_missing', message: `Ollama at ${host} does not have ${model}: run \`ollama pull ${model}\`${names.length > 0 ? ` (it has: ${names.slice(0, 8).join(', ')})` : ''}` };
  }
  return { status: 'ok', message: `Ollama at ${host} has ${model}` };
}

async function probeOpenAI(model: string, server: NonNullable<ProviderSettings['openai']>, timeoutMs: number): Promise<ProbeResult> {
  const headers: Record<string, string> = server.apiKey === undefined ? {} : { authorization: `Bearer ${server.apiKey}` };
  const got = await getJson(`${server.baseUrl}/models`, headers, timeoutMs);
  if ('why' in got) return { status: 'unreachable', message: `the OpenAI-compatible server at ${server.baseUrl} ${got.why} ([providers.openai] base_url in config.toml)` };
  const names = namesIn(got.json, 'data', 'id');
  if (!names.includes(model)) {
    return { status: 'model_missing', message: `the OpenAI-compatible server at ${server.baseUrl} does not list ${model}: load or download it there${names.length > 0 ? ` (it lists: ${names.slice(0, 8).join(', ')})` : ''}` };
  }
  return { status: 'ok', message: `the OpenAI-compatible server at ${server.baseUrl} lists ${model}` };
}

/** Checks `ref` against `settings` (as providerSettingsFrom read them). Never throws. */
export async function probeModel(ref: ModelRef, settings: ProviderSettings, timeoutMs = DEFAULT_PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  switch (ref.provider) {
    case 'ollama':
      return probeOllama(ref.model, settings.ollama.host, timeoutMs);
    case 'openai':
      if (settings.openai === undefined) {
        return { status: 'not_configured', message: 'an openai: model needs an OpenAI-compatible server: set [providers.openai] base_url in config.toml (e.g. "http://127.0.0.1:1234/v1" for LM Studio), or in Setup' };
      }
      return probeOpenAI(ref.model, settings.openai, timeoutMs);
    case 'anthropic':
      return settings.anthropic.apiKey === undefined
        ? { status: 'not_configured', message: 'an anthropic: model needs a key: set [providers.anthropic] api_key in config.toml (or ANTHROPIC_API_KEY), or in Setup' }
        : { status: 'ok', message: 'an Anthropic key is set (Anthropic is not contacted by this check)' };
    case 'gemini':
      return settings.gemini?.apiKey === undefined
        ? { status: 'not_configured', message: 'a gemini: model needs a key: set [providers.gemini] api_key in config.toml (or GEMINI_API_KEY), or in Setup' }
        : { status: 'ok', message: 'a Gemini key is set (Google is not contacted by this check)' };
    default: {
      const never: never = ref.provider;
      return { status: 'not_configured', message: `unknown provider ${String(never)} (known: ${PROVIDER_NAMES.join(', ')})` };
    }
  }
}
