/**
 * Setup's form that adds an adapter to config.toml: a name, its type, the agent its
 * messages go to, and the keys its type needs. A secret is asked only as the name of the
 * environment variable that holds it (written `<key>_env = "NAME"`), never its value. The
 * server checks again with the type's own settings and names the key it refuses.
 */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { useServices } from '../services';
import type { AdapterAdd, AdaptersSaved, AdapterType } from '../types';
import { AdapterField } from './adapter-field';
import { ADAPTER_KEYS as KEYS, keyLabel, keyProblem } from './adapter-keys';
import { ErrorBox } from './status';

const TYPES = Object.keys(KEYS) as AdapterType[];
const NAME = /^[a-z][a-z0-9_-]{0,63}$/;
const fieldId = (key: string) => `adapter-add-${key.replace('.', '-')}`;

/** `onStart`: a submit began; `onAdded`: config.toml has the adapter. */
export function AdapterAddForm({ onStart, onAdded }: { onStart: () => void; onAdded: (answer: AdaptersSaved, name: string) => void }) {
  const { api } = useServices();
  const [name, setName] = useState('');
  const [type, setType] = useState<AdapterType>('webhook');
  const [agent, setAgent] = useState('assistant');
  const [values, setValues] = useState<Record<string, string>>({});
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const keys = KEYS[type];

  const check = (): Record<string, string> => {
    const out: Record<string, string> = {};
    if (!NAME.test(name.trim())) out.name = 'A lower-case letter, then letters, digits, - or _.';
    for (const k of keys) {
      const problem = keyProblem(k, (values[k.key] ?? '').trim());
      if (problem !== undefined) out[k.key] = problem;
    }
    return out;
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    onStart();
    setError(null);
    const found = check();
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    const body: AdapterAdd = { name: name.trim(), type, settings: {}, secretEnv: {} };
    if (type !== 'calendar' && agent.trim() !== '') body.agent = agent.trim();
    for (const k of keys) {
      const v = (values[k.key] ?? '').trim();
      if (v === '') continue;
      if (k.secret === true) body.secretEnv![k.key] = v;
      else body.settings![k.key] = v;
    }
    setBusy(true);
    try {
      onAdded(await api.addAdapter(body), body.name);
      setName('');
      setValues({});
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="form mcp-servers__add" noValidate onSubmit={(e) => { void submit(e); }} data-testid="adapter-add">
      <h3>Add an adapter</h3>
      <AdapterField id={fieldId('name')} label="Name" value={name} onInput={setName} placeholder="e.g. orders" hint="Unique in config.toml: [adapters.<name>]." problem={problems.name} />
      <div class="field">
        <label for="adapter-add-type">Type</label>
        <select id="adapter-add-type" value={type} onChange={(e) => { setType(e.currentTarget.value as AdapterType); setProblems({}); }} data-testid="adapter-add-type">
          {TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
        </select>
      </div>
      {type !== 'calendar' && <AdapterField id={fieldId('agent')} label="Agent" value={agent} onInput={setAgent} placeholder="assistant" hint="The agent its messages go to." problem={problems.agent} />}
      {keys.map((k) => (
        <AdapterField key={k.key} id={fieldId(k.key)} label={keyLabel(k)} value={values[k.key] ?? ''} onInput={(v) => setValues((old) => ({ ...old, [k.key]: v }))} placeholder={k.placeholder} problem={problems[k.key]}
          hint={k.secret === true ? `Written as ${k.key.split('.').pop()}_env = "NAME"; set the variable where the server runs. The secret itself is never written here.` : undefined} />
      ))}
      {error !== null && <ErrorBox error={error} title="The adapter was not added" />}
      <div class="actions">
        <button type="submit" class="btn btn--primary" disabled={busy} data-testid="adapter-add-submit">{busy ? 'Adding…' : 'Add adapter'}</button>
      </div>
    </form>
  );
}
