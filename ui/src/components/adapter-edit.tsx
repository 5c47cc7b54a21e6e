/**
 * Setup's form that changes an adapter of config.toml in its place: the agent its messages
 * go to, whether it is on at the server's start, and the keys its type asks for, filled in
 * with what the section holds now (a secret as the name of its environment variable; one
 * written in config.toml shows empty and stays unless a variable's name is given). Only
 * what was changed is sent (`PATCH`); an optional key emptied is removed. Its type stays.
 */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { useServices } from '../services';
import type { AdapterChange, AdapterSetup, AdaptersSaved } from '../types';
import { ADAPTER_ENV_NAME, ADAPTER_KEYS } from './adapter-keys';
import { ErrorBox } from './status';

function valuesOf(a: AdapterSetup): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of a.settings) out[s.key] = String(s.value);
  for (const s of a.secrets) if (s.env !== null) out[s.key] = s.env;
  return out;
}

interface Props {
  adapter: AdapterSetup;
  onStart: () => void;
  onSaved: (answer: AdaptersSaved) => void;
  onCancel: () => void;
}

export function AdapterEditForm({ adapter, onStart, onSaved, onCancel }: Props) {
  const { api } = useServices();
  const keys = ADAPTER_KEYS[adapter.type];
  const was = valuesOf(adapter);
  const [agent, setAgent] = useState(adapter.agent ?? '');
  const [enabled, setEnabled] = useState(adapter.enabled);
  const [values, setValues] = useState<Record<string, string>>(was);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const id = (key: string) => `adapter-edit-${adapter.name}-${key.replace('.', '-')}`;
  const inFile = (key: string) => adapter.secrets.some((s) => s.key === key && s.inFile);

  const changeOf = (): AdapterChange => {
    const change: AdapterChange = {};
    if (adapter.type !== 'calendar' && agent.trim() !== (adapter.agent ?? '')) change.agent = agent.trim() === '' ? null : agent.trim();
    if (enabled !== adapter.enabled) change.enabled = enabled;
    for (const k of keys) {
      const v = (values[k.key] ?? '').trim();
      if (v === (was[k.key] ?? '')) continue;
      if (k.secret === true) (change.secretEnv ??= {})[k.key] = v === '' ? null : v;
      else (change.settings ??= {})[k.key] = v === '' ? null : v;
    }
    return change;
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    onStart();
    setError(null);
    const found: Record<string, string> = {};
    for (const k of keys) {
      const v = (values[k.key] ?? '').trim();
      if (v === '' && k.optional !== true && !inFile(k.key)) found[k.key] = k.secret === true ? 'The name of the environment variable that holds it.' : 'Required.';
      else if (v !== '' && k.secret === true && !ADAPTER_ENV_NAME.test(v)) found[k.key] = 'An environment variable\'s name: letters, digits and _ (not the secret itself).';
    }
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    const change = changeOf();
    if (Object.keys(change).length === 0) {
      onCancel();
      return;
    }
    setBusy(true);
    try {
      onSaved(await api.changeSetupAdapter(adapter.name, change));
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };

  const input = (key: string, label: string, value: string, onInput: (v: string) => void, placeholder: string, hint?: string) => (
    <div class="field" key={key}>
      <label for={id(key)}>{label}</label>
      <input id={id(key)} type="text" value={value} autocomplete="off" spellcheck={false} placeholder={placeholder}
        aria-invalid={problems[key] !== undefined} onInput={(e) => onInput(e.currentTarget.value)} data-testid={id(key)} />
      {hint !== undefined && <p class="field__hint">{hint}</p>}
      {problems[key] !== undefined && <p class="field__error" role="alert">{problems[key]}</p>}
    </div>
  );

  return (
    <form class="form mcp-servers__edit" noValidate onSubmit={(e) => { void submit(e); }} data-testid={`adapter-edit-${adapter.name}`}>
      <h3>Change "{adapter.name}" ({adapter.type})</h3>
      {adapter.type !== 'calendar' && input('agent', 'Agent', agent, setAgent, 'assistant', 'The agent its messages go to.')}
      <label class="check"><input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} data-testid={id('enabled')} />On when the server starts</label>
      {keys.map((k) => input(k.key, k.secret === true ? `${k.label}: environment variable name` : k.label, values[k.key] ?? '', (v) => setValues((old) => ({ ...old, [k.key]: v })), k.placeholder,
        k.secret === true
          ? inFile(k.key) ? 'Written in config.toml now: leave this empty to keep it, or name the variable that holds it (the written value is then removed).' : `Written as ${k.key.split('.').pop()}_env = "NAME"; the secret itself is never written here.`
          : undefined))}
      {error !== null && <ErrorBox error={error} title="The adapter was not changed" />}
      <div class="actions">
        <button type="submit" class="btn btn--primary" disabled={busy} data-testid={`adapter-edit-${adapter.name}-submit`}>{busy ? 'Saving…' : 'Save changes'}</button>
        <button type="button" class="btn" disabled={busy} onClick={onCancel} data-testid={`adapter-edit-${adapter.name}-cancel`}>Cancel</button>
      </div>
    </form>
  );
}
