/** `#/setup`: the model provider and default model, tool calling, the tools folder, semantic search over the vault, web search; signing in to MCP servers. */
import { useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { AdaptersSetup } from '../components/adapters-setup';
import { McpServers } from '../components/mcp-servers';
import { McpSignIns } from '../components/mcp-sign-ins';
import { ErrorBox, Loading } from '../components/status';
import { useResource } from '../hooks/use-resource';
import { checkSetup, fieldOfServerError, formFromSetup, isEmptyPatch, patchFrom } from '../setup-form';
import type { KeyedProvider, Provider, SetupField, SetupForm } from '../setup-form';
import { useServices } from '../services';
import { TOOL_CALLING } from '../types';
import type { KeyedSetup, Setup, SetupSaved, WebSearchSetup } from '../types';

export function SetupScreen() {
  const { api } = useServices();
  const setup = useResource(() => api.setup(), [api]);
  // The sign-in list reads the servers too: it loads again when one is added or removed.
  const [mcpVersion, setMcpVersion] = useState(0);
  return (
    <section aria-labelledby="setup-title">
      <div class="page-head">
        <h1 id="setup-title">Setup</h1>
        <p class="muted">Which model the hordes use, where kowalski finds tools, which search engine web_search asks, which MCP servers agents may use, and the adapters that bring them messages.</p>
      </div>
      {setup.data === undefined && setup.loading && <Loading label="Loading the settings…" />}
      {setup.data === undefined && setup.error !== undefined && (
        <ErrorBox error={setup.error} title="Could not load the settings" onRetry={setup.reload} />
      )}
      {setup.data !== undefined && <SetupEditor initial={setup.data} />}
      <McpServers onChange={() => setMcpVersion((v) => v + 1)} />
      <McpSignIns key={mcpVersion} />
      <AdaptersSetup />
    </section>
  );
}

type Problems = Partial<Record<SetupField, string>>;

function SetupEditor({ initial }: { initial: Setup }) {
  const { api } = useServices();
  const [saved, setSaved] = useState(initial);
  const [base, setBase] = useState(() => formFromSetup(initial));
  const [form, setForm] = useState(base);
  const [problems, setProblems] = useState<Problems>({});
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [answer, setAnswer] = useState<Pick<SetupSaved, 'written' | 'check'> | null>(null);
  const [busy, setBusy] = useState(false);

  const set = <K extends SetupField>(k: K, v: SetupForm[K]) => {
    setForm((f) => ({ ...f, [k]: v }));
    setDone(null);
    setProblems(({ [k]: _gone, ...rest }) => rest as Problems);
  };

  const put = async (patch: Parameters<typeof api.putSetup>[0], message: string) => {
    setBusy(true);
    setError(null);
    setAnswer(null);
    try {
      const { written, check, ...next } = await api.putSetup(patch);
      const nextForm = formFromSetup(next);
      setAnswer({ written, check });
      setSaved(next);
      setBase(nextForm);
      setForm(nextForm);
      setProblems({});
      setDone(message);
    } catch (err) {
      const e = asApiError(err);
      setError(e);
      const field = fieldOfServerError(e.message);
      if (field !== undefined) setProblems({ [field]: e.message });
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: Event) => {
    e.preventDefault();
    const found = checkSetup(form);
    setProblems(found);
    setError(null);
    const first = Object.keys(found)[0];
    if (first !== undefined) {
      document.getElementById(`setup-${first}`)?.focus();
      return;
    }
    const patch = patchFrom(base, form);
    if (isEmptyPatch(patch)) {
      setDone('Nothing changed.');
      return;
    }
    void put(patch, `Saved to ${saved.configFile}.`);
  };

  const providerNames: Record<Provider, string> = { ollama: 'Ollama (local models)', anthropic: 'Anthropic', gemini: 'Google Gemini', openai: 'OpenAI-compatible server' };
  const removeKey = (p: KeyedProvider) => { void put({ providers: { [p]: { apiKey: null } } }, `The ${providerNames[p]} API key was removed.`); };

  return (
    <form class="form panel setup" noValidate onSubmit={submit} data-testid="setup-form">
      <fieldset class="fieldset">
        <legend>Model provider</legend>
        <div class="radios">
          {(['ollama', 'anthropic', 'gemini', 'openai'] as const).map((p) => (
            <label key={p} class="radio">
              <input type="radio" name="provider" value={p} checked={form.provider === p} onChange={() => set('provider', p)} data-testid={`provider-${p}`} />
              {providerNames[p]}
            </label>
          ))}
        </div>
      </fieldset>

      <Field id="model" label="Default model" problem={problems.model}
        hint={<>Saved as <code>{form.provider}:{form.model.trim() === '' ? '<model>' : form.model.trim()}</code> (<code>model.default</code>). Leave empty for none.</>}>
        {(aria) => <input {...aria} type="text" value={form.model} autocomplete="off" spellcheck={false} data-testid="setup-model"
          placeholder={MODEL_EXAMPLES[form.provider]} onInput={(e) => set('model', e.currentTarget.value)} />}
      </Field>
      {(form.provider === 'ollama' || form.provider === 'openai') && (
        <ServerModels provider={form.provider} saved={saved} chosen={form.model.trim()} choose={(m) => set('model', m)}
          typed={form.provider === 'ollama' ? form.ollamaHost.trim() : form.openaiBaseUrl.trim()} />
      )}

      {form.provider === 'ollama' && (
        <Field id="ollamaHost" label="Ollama host" problem={problems.ollamaHost} hint="Empty: the default, http://127.0.0.1:11434.">
          {(aria) => <input {...aria} type="url" value={form.ollamaHost} placeholder="http://127.0.0.1:11434" autocomplete="off"
            onInput={(e) => set('ollamaHost', e.currentTarget.value)} />}
        </Field>
      )}

      {form.provider !== 'ollama' && (
        <KeyFields provider={form.provider} label={providerNames[form.provider]} saved={saved.providers[form.provider]} form={form}
          problems={problems} busy={busy} set={set} remove={() => removeKey(form.provider as KeyedProvider)} />
      )}

      <Field id="toolCalling" label="Tool calling" problem={problems.toolCalling}
        hint="auto: the provider's native tool calls when the model has them, else text; native or text: always that.">
        {(aria) => <select {...aria} value={form.toolCalling}
          onChange={(e) => set('toolCalling', TOOL_CALLING.find((t) => t === e.currentTarget.value) ?? 'auto')}>
          {TOOL_CALLING.map((t) => <option key={t} value={t}>{t}</option>)}
        </select>}
      </Field>

      <Field id="toolsRoot" label="Tools folder" problem={problems.toolsRoot} hint="A folder on the machine where kowalski runs (tools.root). Empty: none.">
        {(aria) => <input {...aria} type="text" value={form.toolsRoot} placeholder="~/kowalski-tools" autocomplete="off" spellcheck={false}
          onInput={(e) => set('toolsRoot', e.currentTarget.value)} />}
      </Field>

      <fieldset class="fieldset">
        <legend>Semantic search</legend>
        <label class="radio">
          <input type="checkbox" id="setup-semanticEnabled" checked={form.semanticEnabled} data-testid="semantic-enabled"
            onChange={(e) => set('semanticEnabled', e.currentTarget.checked)} />
          Search the vault's notes by meaning too (each note is embedded by the model below)
        </label>
        <Field id="semanticModel" label="Embedding model" problem={problems.semanticModel}
          hint={<>provider:model (<code>vault.semantic.model</code>): ollama, openai or gemini. Changing it needs <code>kowalski vault reindex</code>.</>}>
          {(aria) => <input {...aria} type="text" value={form.semanticModel} placeholder="ollama:nomic-embed-text" autocomplete="off" spellcheck={false}
            data-testid="semantic-model" onInput={(e) => set('semanticModel', e.currentTarget.value)} />}
        </Field>
      </fieldset>

      <WebSearchFields saved={saved.webSearch} form={form} problems={problems} set={set} />

      {error !== null && <ErrorBox error={error} title="The settings were not saved" />}
      {done !== null && <p class="success" role="status" data-testid="setup-saved">{done}</p>}
      {answer !== null && <SaveAnswer answer={answer} />}
      <div class="actions">
        <button type="submit" class="btn btn--primary" disabled={busy} data-testid="setup-save">{busy ? 'Saving…' : 'Save'}</button>
        <button type="button" class="btn" disabled={busy} onClick={() => { setForm(base); setProblems({}); setError(null); }}>Undo changes</button>
      </div>
      <p class="muted small">Written to <code>{saved.configFile}</code>.</p>
    </form>
  );
}

const CHECK_TITLES = { ok: 'The model answers', unreachable: 'The model\'s server does not answer', model_missing: 'The server does not have the model', not_configured: 'The model is not set up' } as const;

/** After a save: the default model's check (when the save changed it), and a note when config.toml lost its comments. */
function SaveAnswer({ answer }: { answer: Pick<SetupSaved, 'written' | 'check'> }) {
  const { written, check } = answer;
  return (
    <>
      {check !== null && (
        <div class={check.status === 'ok' ? 'notice' : 'model-warning'} role={check.status === 'ok' ? 'status' : 'alert'} data-testid="setup-check" data-status={check.status}>
          <p><strong>{CHECK_TITLES[check.status]}.</strong> {check.message}</p>
        </div>
      )}
      {written.comments === 'dropped' && <p class="warn-text" data-testid="setup-written">{written.message}</p>}
    </>
  );
}

const MODEL_EXAMPLES: Record<Provider, string> = { ollama: 'e.g. qwen2.5-coder:7b', anthropic: 'e.g. claude-sonnet-4-5', gemini: 'e.g. gemini-2.5-flash', openai: 'e.g. qwen2.5-7b-instruct' };

/** A hosted provider's form fields: Anthropic's keep the ids and test ids they always had. */
const KEY_FIELDS: Record<KeyedProvider, { key: 'apiKey' | 'geminiApiKey' | 'openaiApiKey'; url: 'baseUrl' | 'geminiBaseUrl' | 'openaiBaseUrl'; testId: string; keyPlaceholder: string; urlPlaceholder: string; urlHint?: string }> = {
  anthropic: { key: 'apiKey', url: 'baseUrl', testId: '', keyPlaceholder: 'sk-ant-…', urlPlaceholder: 'https://api.anthropic.com' },
  gemini: { key: 'geminiApiKey', url: 'geminiBaseUrl', testId: 'gemini-', keyPlaceholder: 'AIza…', urlPlaceholder: 'https://generativelanguage.googleapis.com' },
  openai: {
    key: 'openaiApiKey', url: 'openaiBaseUrl', testId: 'openai-', keyPlaceholder: 'sk-… (a local server may need none)', urlPlaceholder: 'http://127.0.0.1:1234/v1',
    urlHint: 'The server\'s /v1 address (LM Studio: http://127.0.0.1:1234/v1); empty uses https://api.openai.com/v1.',
  },
};

function KeyFields({ provider, label, saved, form, problems, busy, set, remove }: {
  provider: KeyedProvider; label: string; saved: KeyedSetup; form: SetupForm; problems: Problems; busy: boolean;
  set: (k: SetupField, v: string) => void; remove: () => void;
}) {
  const f = KEY_FIELDS[provider];
  return (
    <>
      <Field id={f.key} label={`${label} API key`} problem={problems[f.key]}
        hint={saved.apiKeySet
          ? <>Key set: <code data-testid={`${f.testId}api-key-hint`}>{saved.apiKeyHint ?? 'hidden'}</code>. Leave empty to keep it.</>
          : 'No key set yet.'}>
        {(aria) => <input {...aria} type="password" value={form[f.key]} autocomplete="new-password" spellcheck={false} data-testid={`${f.testId}api-key`}
          placeholder={saved.apiKeySet ? 'unchanged' : f.keyPlaceholder} onInput={(e) => set(f.key, e.currentTarget.value)} />}
      </Field>
      {saved.apiKeySet && (
        <p><button type="button" class="btn btn--small btn--danger-outline" onClick={remove} disabled={busy} data-testid={`${f.testId}remove-key`}>Remove key</button></p>
      )}
      <Field id={f.url} label={`${label} base URL (optional)`} problem={problems[f.url]} hint={f.urlHint ?? `Only for a proxy or gateway; empty uses ${label}'s own.`}>
        {(aria) => <input {...aria} type="url" value={form[f.url]} placeholder={f.urlPlaceholder} autocomplete="off"
          onInput={(e) => set(f.url, e.currentTarget.value)} />}
      </Field>
    </>
  );
}

/**
 * The models the saved settings' server lists, to choose from (the field above still takes any
 * name). Asked again when the provider changes and after each save (a new host or base URL).
 * While the address typed differs from the saved one, it says to save rather than answer for
 * the server that is no longer meant: the server is asked only at a saved address.
 */
function ServerModels({ provider, saved, chosen, choose, typed }: {
  provider: 'ollama' | 'openai'; saved: Setup; chosen: string; choose: (model: string) => void; typed: string;
}) {
  const { api } = useServices();
  const list = useResource(() => api.setupModels(provider), [api, provider, saved]);
  const savedAddress = (provider === 'ollama' ? saved.providers.ollama.host : saved.providers.openai.baseUrl) ?? '';
  if (typed !== savedAddress) {
    return (
      <p class="field__hint" role="status" data-testid="setup-models-pending">
        Save, and the models {typed === '' ? 'of the default address' : <>at <code>{typed}</code></>} are offered here.
      </p>
    );
  }
  if (list.data === undefined) {
    return list.error !== undefined
      ? <p class="field__hint" data-testid="setup-models-problem">Could not ask for the server's models: {list.error.message}</p>
      : <p class="field__hint" data-testid="setup-models-loading">Asking the server for its models…</p>;
  }
  const { models, problem, server } = list.data;
  if (models.length === 0) return <p class="field__hint" role="status" data-testid="setup-models-problem">{problem}</p>;
  return (
    <div class="field">
      <label for="setup-model-choices">Models {server === null ? 'on the server' : <>at <code>{server}</code></>}</label>
      <select id="setup-model-choices" data-testid="setup-model-choices" value={models.includes(chosen) ? chosen : ''}
        onChange={(e) => { if (e.currentTarget.value !== '') choose(e.currentTarget.value); }}>
        <option value="">{models.length === 1 ? 'Choose its one model…' : `Choose one of its ${models.length} models…`}</option>
        {models.map((m) => <option key={m} value={m}>{m}</option>)}
      </select>
    </div>
  );
}

const WEB_SEARCH = [['', 'None'], ['searxng', 'SearXNG (your own instance)'], ['brave', 'Brave Search API'], ['staan', 'Staan (European index)']] as const;
const KEY_VARIABLE = { brave: 'BRAVE_API_KEY', staan: 'STAAN_API_KEY' } as const;
const ENDPOINT = {
  brave: { label: 'Brave endpoint (optional)', url: 'https://api.search.brave.com/res/v1/web/search', own: "Empty: Brave's own." },
  staan: { label: 'Staan endpoint (optional)', url: 'https://api.staan.ai/v2/search/web', own: "Empty: Staan's own." },
} as const;

/** `[tools.web_search]`: the engine web_search asks; a key only as the name of the variable holding it. */
function WebSearchFields({ saved, form, problems, set }: {
  saved: WebSearchSetup; form: SetupForm; problems: Problems; set: <K extends SetupField>(k: K, v: SetupForm[K]) => void;
}) {
  const provider = form.webSearchProvider;
  const keyEnv = form.webSearchKeyEnv.trim();
  const keyState = keyEnv !== '' && keyEnv === saved.apiKeyEnv
    ? (saved.apiKeyEnvSet ? <><code>{keyEnv}</code> is set where kowalski runs.</> : <><code>{keyEnv}</code> is <strong>not set</strong> where kowalski runs.</>)
    : saved.apiKeyHint !== null ? <>A key is written in config.toml (<code data-testid="web-search-key-hint">{saved.apiKeyHint}</code>); naming a variable here takes precedence.</>
    : provider !== '' && provider !== 'searxng' && saved.envKeySet[provider] ? <>Empty: <code>{KEY_VARIABLE[provider]}</code>, which is set, is used.</>
    : 'Set the variable where kowalski starts (it must be set before you save), then name it here.';
  return (
    <fieldset class="fieldset" data-testid="web-search">
      <legend>Web search</legend>
      <div class="radios">
        {WEB_SEARCH.map(([value, label]) => (
          <label key={value} class="radio">
            <input type="radio" name="webSearchProvider" value={value} checked={provider === value} data-testid={`web-search-${value === '' ? 'none' : value}`}
              onChange={() => set('webSearchProvider', value)} />
            {label}
          </label>
        ))}
      </div>
      {provider !== '' && (
        <Field id="webSearchUrl" label={provider === 'searxng' ? 'SearXNG address' : ENDPOINT[provider].label} problem={problems.webSearchUrl}
          hint={provider === 'searxng' ? <>Its JSON output must be on (<code>search.formats</code> in its settings.yml).</> : ENDPOINT[provider].own}>
          {(aria) => <input {...aria} type="url" value={form.webSearchUrl} autocomplete="off" data-testid="web-search-url"
            placeholder={provider === 'searxng' ? 'http://127.0.0.1:8888' : ENDPOINT[provider].url}
            onInput={(e) => set('webSearchUrl', e.currentTarget.value)} />}
        </Field>
      )}
      {(provider === 'brave' || provider === 'staan') && (
        <Field id="webSearchKeyEnv" label="Environment variable holding the key" problem={problems.webSearchKeyEnv} hint={keyState}>
          {(aria) => <input {...aria} type="text" value={form.webSearchKeyEnv} autocomplete="off" spellcheck={false} placeholder={provider === 'brave' ? 'BRAVE_KEY' : 'STAAN_KEY'}
            data-testid="web-search-key-env" onInput={(e) => set('webSearchKeyEnv', e.currentTarget.value)} />}
        </Field>
      )}
      {provider === 'staan' && (
        <Field id="webSearchMarket" label="Market" problem={problems.webSearchMarket} hint="The index's language and country. Empty: en-us.">
          {(aria) => <input {...aria} type="text" value={form.webSearchMarket} autocomplete="off" spellcheck={false} placeholder="en-us"
            data-testid="web-search-market" onInput={(e) => set('webSearchMarket', e.currentTarget.value)} />}
        </Field>
      )}
    </fieldset>
  );
}

interface Aria { id: string; 'aria-describedby': string | undefined; 'aria-invalid': boolean }

function Field({ id, label, hint, problem, children }: {
  id: SetupField; label: string; hint?: ComponentChildren; problem: string | undefined; children: (aria: Aria) => ComponentChildren;
}) {
  const domId = `setup-${id}`;
  const describedBy = [hint !== undefined ? `${domId}-hint` : null, problem !== undefined ? `${domId}-error` : null].filter((x) => x !== null).join(' ');
  return (
    <div class="field">
      <label for={domId}>{label}</label>
      {children({ id: domId, 'aria-describedby': describedBy === '' ? undefined : describedBy, 'aria-invalid': problem !== undefined })}
      {hint !== undefined && <p class="field__hint" id={`${domId}-hint`}>{hint}</p>}
      {problem !== undefined && <p class="field__error" id={`${domId}-error`} role="alert">{problem}</p>}
    </div>
  );
}
