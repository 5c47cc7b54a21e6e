/** The Setup screen's form values, and the PUT that carries only what the operator changed. */
import type { Setup, SetupPatch, ToolCalling, WebSearchProvider } from './types.js';

export type Provider = 'ollama' | 'anthropic' | 'gemini' | 'openai';
export type KeyedProvider = Exclude<Provider, 'ollama'>;

export interface SetupForm {
  provider: Provider;
  /** Without the `provider:` prefix. */
  model: string;
  toolCalling: ToolCalling;
  ollamaHost: string;
  /** Anthropic's. Never pre-filled; empty keeps the current key. */
  apiKey: string;
  baseUrl: string;
  /** Gemini's, the same way. */
  geminiApiKey: string;
  geminiBaseUrl: string;
  /** An OpenAI-compatible server's, the same way. */
  openaiApiKey: string;
  openaiBaseUrl: string;
  toolsRoot: string;
  /** Semantic search over the vault (`[vault.semantic]`). */
  semanticEnabled: boolean;
  /** `provider:model` of the embedding model. */
  semanticModel: string;
  /** `[tools.web_search]`: '' is none. */
  webSearchProvider: WebSearchProvider | '';
  /** SearXNG's address, or Brave's or Staan's endpoint (empty: the provider's own). */
  webSearchUrl: string;
  /** The environment variable holding Brave's or Staan's key: a name, never the key. */
  webSearchKeyEnv: string;
  /** Staan's market, e.g. `en-us` (empty: en-us). */
  webSearchMarket: string;
}

export type SetupField = keyof SetupForm;

export function formFromSetup(s: Setup): SetupForm {
  const current = s.model.default ?? '';
  const m = /^(ollama|anthropic|gemini|openai):(.*)$/.exec(current);
  const provider: Provider = m !== null ? (m[1] as Provider)
    : s.providers.anthropic.apiKeySet ? 'anthropic' : s.providers.gemini.apiKeySet ? 'gemini'
    : s.providers.openai.apiKeySet || s.providers.openai.baseUrl !== null ? 'openai' : 'ollama';
  return {
    provider,
    model: m !== null ? (m[2] ?? '') : current,
    toolCalling: s.model.toolCalling,
    ollamaHost: s.providers.ollama.host ?? '',
    apiKey: '',
    baseUrl: s.providers.anthropic.baseUrl ?? '',
    geminiApiKey: '',
    geminiBaseUrl: s.providers.gemini.baseUrl ?? '',
    openaiApiKey: '',
    openaiBaseUrl: s.providers.openai.baseUrl ?? '',
    toolsRoot: s.tools.root ?? '',
    semanticEnabled: s.vault.semantic.enabled,
    semanticModel: s.vault.semantic.model,
    webSearchProvider: s.webSearch.provider ?? '',
    webSearchUrl: s.webSearch.url ?? '',
    webSearchKeyEnv: s.webSearch.apiKeyEnv ?? '',
    webSearchMarket: s.webSearch.market ?? '',
  };
}

const orNull = (v: string): string | null => (v.trim() === '' ? null : v.trim());

/** Only the settings whose fields changed; an emptied field removes its setting (null). */
export function patchFrom(initial: SetupForm, f: SetupForm): SetupPatch {
  const patch: SetupPatch = {};
  const model: NonNullable<SetupPatch['model']> = {};
  if (f.provider !== initial.provider || f.model.trim() !== initial.model.trim()) {
    model.default = f.model.trim() === '' ? null : `${f.provider}:${f.model.trim()}`;
  }
  if (f.toolCalling !== initial.toolCalling) model.toolCalling = f.toolCalling;
  if (Object.keys(model).length > 0) patch.model = model;

  const ollama: NonNullable<NonNullable<SetupPatch['providers']>['ollama']> = {};
  if (f.ollamaHost.trim() !== initial.ollamaHost.trim()) ollama.host = orNull(f.ollamaHost);
  const keyed = (key: string, url: string, initialUrl: string): { apiKey?: string | null; baseUrl?: string | null } => ({
    ...(key.trim() === '' ? {} : { apiKey: key.trim() }),
    ...(url.trim() === initialUrl.trim() ? {} : { baseUrl: orNull(url) }),
  });
  const providers: NonNullable<SetupPatch['providers']> = {
    ollama,
    anthropic: keyed(f.apiKey, f.baseUrl, initial.baseUrl),
    gemini: keyed(f.geminiApiKey, f.geminiBaseUrl, initial.geminiBaseUrl),
    openai: keyed(f.openaiApiKey, f.openaiBaseUrl, initial.openaiBaseUrl),
  };
  for (const [name, changes] of Object.entries(providers)) {
    if (Object.keys(changes).length > 0) (patch.providers ??= {})[name as keyof typeof providers] = changes;
  }

  if (f.toolsRoot.trim() !== initial.toolsRoot.trim()) patch.tools = { root: orNull(f.toolsRoot) };
  const semantic: NonNullable<NonNullable<SetupPatch['vault']>['semantic']> = {};
  if (f.semanticEnabled !== initial.semanticEnabled) semantic.enabled = f.semanticEnabled;
  if (f.semanticModel.trim() !== initial.semanticModel.trim()) semantic.model = orNull(f.semanticModel);
  if (Object.keys(semantic).length > 0) patch.vault = { semantic };
  const web = (f: SetupForm): string => [f.webSearchProvider, f.webSearchUrl.trim(), f.webSearchKeyEnv.trim(), f.webSearchMarket.trim()].join('\n');
  if (web(f) !== web(initial)) {
    patch.webSearch = f.webSearchProvider === '' ? { provider: null }
      : f.webSearchProvider === 'searxng' ? { provider: 'searxng', url: orNull(f.webSearchUrl), apiKeyEnv: null, market: null }
      : f.webSearchProvider === 'brave' ? { provider: 'brave', url: orNull(f.webSearchUrl), apiKeyEnv: orNull(f.webSearchKeyEnv), market: null }
      : { provider: 'staan', url: orNull(f.webSearchUrl), apiKeyEnv: orNull(f.webSearchKeyEnv), market: orNull(f.webSearchMarket) };
  }
  return patch;
}

export function isEmptyPatch(p: SetupPatch): boolean {
  return Object.keys(p).length === 0;
}

/** Field → what is wrong with it, before anything is sent. */
export function checkSetup(f: SetupForm): Partial<Record<SetupField, string>> {
  const out: Partial<Record<SetupField, string>> = {};
  const url = /^https?:\/\/\S+$/i;
  if (f.ollamaHost.trim() !== '' && !url.test(f.ollamaHost.trim())) out.ollamaHost = 'Must be an http:// or https:// URL.';
  if (f.baseUrl.trim() !== '' && !url.test(f.baseUrl.trim())) out.baseUrl = 'Must be an http:// or https:// URL.';
  if (f.geminiBaseUrl.trim() !== '' && !url.test(f.geminiBaseUrl.trim())) out.geminiBaseUrl = 'Must be an http:// or https:// URL.';
  if (f.openaiBaseUrl.trim() !== '' && !url.test(f.openaiBaseUrl.trim())) out.openaiBaseUrl = 'Must be an http:// or https:// URL.';
  if (/\s/.test(f.model.trim())) out.model = 'A model name has no spaces.';
  const embedding = f.semanticModel.trim();
  if (embedding !== '' && !/^(ollama|openai|gemini):\S+$/.test(embedding)) out.semanticModel = 'Write provider:model with provider ollama, openai or gemini, e.g. ollama:nomic-embed-text.';
  const webUrl = f.webSearchUrl.trim();
  if (f.webSearchProvider === 'searxng' && webUrl === '') out.webSearchUrl = 'SearXNG needs the address of its instance, e.g. http://127.0.0.1:8888.';
  else if (f.webSearchProvider !== '' && webUrl !== '' && !url.test(webUrl)) out.webSearchUrl = 'Must be an http:// or https:// URL.';
  const keyEnv = f.webSearchKeyEnv.trim();
  if ((f.webSearchProvider === 'brave' || f.webSearchProvider === 'staan') && keyEnv !== '' && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(keyEnv)) {
    out.webSearchKeyEnv = `The name of an environment variable (letters, digits and _), e.g. ${f.webSearchProvider === 'brave' ? 'BRAVE_KEY' : 'STAAN_KEY'}: never the key itself.`;
  }
  const market = f.webSearchMarket.trim();
  if (f.webSearchProvider === 'staan' && market !== '' && !/^[a-z]{2}-[a-z]{2}$/.test(market)) out.webSearchMarket = 'A language and a country in lower case, e.g. en-us or fr-fr.';
  return out;
}

/** Which field a server 400 names (`body/providers/ollama/host must …`), if any. */
export function fieldOfServerError(message: string): SetupField | undefined {
  const table: [RegExp, SetupField][] = [
    [/webSearch[/.]url/, 'webSearchUrl'],
    [/webSearch[/.]apiKeyEnv/, 'webSearchKeyEnv'],
    [/webSearch[/.]provider/, 'webSearchProvider'],
    [/webSearch[/.]market/, 'webSearchMarket'],
    [/ollama\/host|ollama\.host/, 'ollamaHost'],
    [/gemini[/.]apiKey/, 'geminiApiKey'],
    [/gemini[/.]baseUrl/, 'geminiBaseUrl'],
    [/openai[/.]apiKey/, 'openaiApiKey'],
    [/openai[/.]baseUrl/, 'openaiBaseUrl'],
    [/apiKey/, 'apiKey'],
    [/baseUrl/, 'baseUrl'],
    [/model\/default|model\.default/, 'model'],
    [/toolCalling/, 'toolCalling'],
    [/tools\/root|tools\.root/, 'toolsRoot'],
    [/semantic\/model|semantic\.model/, 'semanticModel'],
    [/semantic\/enabled|semantic\.enabled/, 'semanticEnabled'],
  ];
  return table.find(([re]) => re.test(message))?.[1];
}
