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
import { AdapterField } from './adapter-field';
import { ADAPTER_KEYS, keyLabel, keyProblem } from './adapter-keys';
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
      const problem = keyProblem(k, (values[k.key] ?? '').trim(), inFile(k.key));
      if (problem !== undefined) found[k.key] = problem;
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

  return (
    <form class="form mcp-servers__edit" noValidate onSubmit={(e) => { void submit(e); }} data-testid={`adapter-edit-${adapter.name}`}>
      <h3>Change "{adapter.name}" ({adapter.type})</h3>
      {adapter.type !== 'calendar' && <AdapterField id={id('agent')} label="Agent" value={agent} onInput={setAgent} placeholder="assistant" hint="The agent its messages go to." problem={problems.agent} />}
      <label class="check"><input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} data-testid={id('enabled')} />On when the server starts</label>
      {keys.map((k) => (
        <AdapterField key={k.key} id={id(k.key)} label={keyLabel(k)} value={values[k.key] ?? ''} onInput={(v) => setValues((old) => ({ ...old, [k.key]: v }))} placeholder={k.placeholder} problem={problems[k.key]}
          hint={k.secret === true
            ? inFile(k.key) ? 'Written in config.toml now: leave this empty to keep it, or name the variable that holds it (the written value is then removed).' : `Written as ${k.key.split('.').pop()}_env = "NAME"; the secret itself is never written here.`
            : undefined} />
      ))}
      {error !== null && <ErrorBox error={error} title="The adapter was not changed" />}
      <div class="actions">
        <button type="submit" class="btn btn--primary" disabled={busy} data-testid={`adapter-edit-${adapter.name}-submit`}>{busy ? 'Saving…' : 'Save changes'}</button>
        <button type="button" class="btn" disabled={busy} onClick={onCancel} data-testid={`adapter-edit-${adapter.name}-cancel`}>Cancel</button>
      </div>
    </form>
  );
}
