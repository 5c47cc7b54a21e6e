/**
 * A cheap readiness check of one model before anything depends on it: is the provider
 * set up, does its server answer, does it have the model? Ollama lists its models at
 * `GET /api/tags`, an OpenAI-compatible server at `GET /models`; the hosted providers
 * (Anthropic, Gemini) are checked for a key only, so a check costs nothing and sends no
 * key anywhere new. One short request per call, bounded by `timeoutMs`.
 */
import type { ModelRef, ProviderSettings } from '../types.js';
import { PROVIDER_NAMES } from './model-ref.js';
import { ollamaModels, openaiModels } from './list-models.js';
import type { ProbeResult } from '../../contract/setup.js';
export type { ProbeResult, ProbeStatus } from '../../contract/setup.js';

/** Default for `timeoutMs`: 3 s. */
export const DEFAULT_PROBE_TIMEOUT_MS = 3000;

/** Ollama's names carry a tag; a name without one means `:latest`. */
function sameOllamaModel(listed: string, wanted: string): boolean {
  const full = (n: string): string => (n.includes(':') ? n : `${n}:latest`);
  return full(listed) === full(wanted);
}

async function probeOllama(model: string, host: string, timeoutMs: number): Promise<ProbeResult> {
  const got = await ollamaModels(host, timeoutMs);
  if ('why' in got) return { status: 'unreachable', message: `Ollama at ${host} ${got.why}: is \`ollama serve\` running? (host: [providers.ollama] host in config.toml, or OLLAMA_HOST)` };
  const names = got.models;
  if (!names.some((n) => sameOllamaModel(n, model))) {
    return { status: 'model_missing', message: `Ollama at ${host} does not have ${model}: run \`ollama pull ${model}\`${names.length > 0 ? ` (it has: ${names.slice(0, 8).join(', ')})` : ''}` };
  }
  return { status: 'ok', message: `Ollama at ${host} has ${model}` };
}

async function probeOpenAI(model: string, server: NonNullable<ProviderSettings['openai']>, timeoutMs: number): Promise<ProbeResult> {
  const got = await openaiModels(server, timeoutMs);
  if ('why' in got) return { status: 'unreachable', message: `the OpenAI-compatible server at ${server.baseUrl} ${got.why} ([providers.openai] base_url in config.toml)` };
  const names = got.models;
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
