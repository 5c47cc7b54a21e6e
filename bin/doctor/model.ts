/**
 * The configured model (`[model] default`): is its provider reachable, does it accept the
 * key, does it have the model? One listing request per provider (Ollama `/api/tags`,
 * OpenAI-compatible `/models`, Anthropic `/v1/models`, Gemini `/v1beta/models`); no model
 * call is made, so nothing is spent.
 */
import { parseModelRef, providerSettingsFrom } from '../../agents/index.js';
import type { ProviderSettings } from '../../agents/index.js';
import type { EngineConfig } from '../../engine/index.js';
import { fail, ok, reason, warn } from './check.js';
import type { Check } from './check.js';

const NAME = 'model';
const TIMEOUT_MS = 5000;
const SETUP = 'set it in the app\'s Setup screen, or in config.toml';

interface Listing {
  url: string;
  headers: Record<string, string>;
  /** The model names the answer lists. */
  names: (body: unknown) => string[];
  /** The setting to fix when the provider cannot be reached. */
  where: string;
}

const field = (body: unknown, key: string): unknown[] => {
  const v = (body as Record<string, unknown> | undefined)?.[key];
  return Array.isArray(v) ? v : [];
};
const str = (v: unknown, key: string): string => String((v as Record<string, unknown> | undefined)?.[key] ?? '');

function listing(provider: string, s: ProviderSettings): Listing | string {
  switch (provider) {
    case 'ollama':
      return { url: `${s.ollama.host}/api/tags`, headers: {}, names: (b) => field(b, 'models').map((m) => str(m, 'name')), where: 'start Ollama (`ollama serve`), or set [providers.ollama] host / $OLLAMA_HOST' };
    case 'openai':
      if (s.openai === undefined) return 'no [providers.openai] base_url is configured';
      return { url: `${s.openai.baseUrl}/models`, headers: s.openai.apiKey === undefined ? {} : { authorization: `Bearer ${s.openai.apiKey}` }, names: (b) => field(b, 'data').map((m) => str(m, 'id')), where: 'start the server, or correct [providers.openai] base_url' };
    case 'anthropic':
      if (s.anthropic.apiKey === undefined) return 'no Anthropic key: set $ANTHROPIC_API_KEY or [providers.anthropic] api_key';
      return { url: `${s.anthropic.baseUrl ?? 'https://api.anthropic.com'}/v1/models?limit=1000`, headers: { 'x-api-key': s.anthropic.apiKey, 'anthropic-version': '2023-06-01' }, names: (b) => field(b, 'data').map((m) => str(m, 'id')), where: 'check the network, or [providers.anthropic] base_url' };
    case 'gemini':
      if (s.gemini?.apiKey === undefined) return 'no Gemini key: set $GEMINI_API_KEY or [providers.gemini] api_key';
      return { url: `${s.gemini.baseUrl ?? 'https://generativelanguage.googleapis.com'}/v1beta/models?pageSize=1000`, headers: { 'x-goog-api-key': s.gemini.apiKey }, names: (b) => field(b, 'models').map((m) => str(m, 'name').replace(/^models\//, '')), where: 'check the network, or [providers.gemini] base_url' };
    default:
      return `unknown provider ${provider}`;
  }
}

export async function checkModel(config: EngineConfig, env: NodeJS.ProcessEnv = process.env): Promise<Check> {
  const text = config.model.default;
  if (text === undefined) return warn(NAME, 'no model is configured: model steps and chat cannot run', `${SETUP} ([model] default = "ollama:qwen2.5:7b")`);
  let ref;
  let settings;
  try {
    ref = parseModelRef(text);
    settings = providerSettingsFrom(config.raw, env);
  } catch (err) {
    return fail(NAME, reason(err), SETUP);
  }
  const how = listing(ref.provider, settings);
  if (typeof how === 'string') return fail(NAME, `${text}: ${how}`, SETUP);
  let res: Response;
  try {
    res = await fetch(how.url, { headers: how.headers, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    return fail(NAME, `${text}: ${ref.provider} does not answer at ${new URL(how.url).origin} (${reason(err)})`, how.where);
  }
  if (res.status === 401 || res.status === 403) return fail(NAME, `${text}: ${ref.provider} refused the key (HTTP ${res.status})`, `correct the key (${SETUP})`);
  if (!res.ok) return fail(NAME, `${text}: ${ref.provider} answered HTTP ${res.status} at ${how.url.split('?')[0]}`, how.where);
  const names = how.names(await res.json().catch(() => undefined));
  const present = names.includes(ref.model) || (ref.provider === 'ollama' && !ref.model.includes(':') && names.includes(`${ref.model}:latest`));
  if (present) return ok(NAME, `${text}: reachable, model present`);
  return fail(NAME, `${text}: ${ref.provider} answers but has no model "${ref.model}" (it has ${names.length === 0 ? 'none' : names.slice(0, 8).join(', ')})`, ref.provider === 'ollama' ? `ollama pull ${ref.model}` : `pick a model it has (${SETUP})`);
}
