/** The form generated from a horde's `inputs`; starts a run and opens it. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { answersToSend, checkInput, initialValues, serverProblemsByField } from '../input-check';
import { navigate } from '../router';
import { useServices } from '../services';
import type { HordeDetail, HordeReadiness, InputField } from '../types';
import { ErrorBox } from './status';

export function RunForm({ horde, onClose }: { horde: HordeDetail; onClose: () => void }) {
  const { api } = useServices();
  const [values, setValues] = useState(() => initialValues(horde.inputs));
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [readiness, setReadiness] = useState<HordeReadiness | null>(null);
  const form = useRef<HTMLFormElement>(null);

  useEffect(() => {
    form.current?.querySelector<HTMLElement>('input, textarea, select, button[type=submit]')?.focus();
  }, []);

  // The models' check is advice: a failure to ask leaves the form as it is.
  useEffect(() => {
    let live = true;
    api.hordeReadiness(horde.id).then((r) => { if (live) setReadiness(r); }, () => undefined);
    return () => { live = false; };
  }, [api, horde.id]);

  const focusFirstProblem = (p: Record<string, string>) => {
    const first = horde.inputs.find((f) => p[f.id] !== undefined);
    if (first !== undefined) document.getElementById(fieldDomId(first.id))?.focus();
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    const found = checkInput(horde.inputs, values);
    setProblems(found);
    setError(null);
    if (Object.keys(found).length > 0) {
      focusFirstProblem(found);
      return;
    }
    setBusy(true);
    try {
      const { runId } = await api.startRun(horde.id, answersToSend(horde.inputs, values));
      navigate({ name: 'run', id: runId });
    } catch (err) {
      const apiErr = asApiError(err);
      setError(apiErr);
      if (apiErr.code === 'KW_ERR_INPUT_INVALID') {
        const byField = serverProblemsByField(apiErr.message, horde.inputs);
        setProblems(byField);
        focusFirstProblem(byField);
      }
      setBusy(false);
    }
  };

  const set = (id: string, v: string) => {
    setValues((old) => ({ ...old, [id]: v }));
    if (problems[id] !== undefined) setProblems(({ [id]: _gone, ...rest }) => rest);
  };

  return (
    <form ref={form} class="form panel" noValidate onSubmit={(e) => { void submit(e); }} aria-labelledby="run-form-title" data-testid="run-form">
      <h2 id="run-form-title">Run {horde.displayName}</h2>
      {horde.display['default_question'] !== undefined && <p class="muted">{horde.display['default_question']}</p>}
      {horde.inputs.length === 0 && <p>This horde asks for no input.</p>}
      {horde.inputs.length > 0 && <p class="muted small">Fields marked <span class="req" aria-hidden="true">*</span> are required.</p>}
      {horde.inputs.map((f) => (
        <Field key={f.id} field={f} value={values[f.id] ?? ''} problem={problems[f.id]} onChange={(v) => set(f.id, v)} />
      ))}
      {readiness !== null && !readiness.ready && <ModelWarning readiness={readiness} />}
      {error !== null && <ErrorBox error={error} title="The run was not started" />}
      <div class="actions">
        <button type="submit" class="btn btn--primary" disabled={busy} data-testid="submit-run">
          {busy ? 'Starting…' : 'Start run'}
        </button>
        <button type="button" class="btn" onClick={onClose} disabled={busy}>Cancel</button>
      </div>
    </form>
  );
}

const fieldDomId = (id: string) => `input-${id}`;

/** Before starting: a model step has no model, or its provider does not answer or lacks the model. */
function ModelWarning({ readiness }: { readiness: HordeReadiness }) {
  const bad = readiness.models.filter((m) => m.status !== 'ok');
  return (
    <div class="model-warning" role="alert" data-testid="model-warning">
      <p><strong>This run would fail at its model steps.</strong> <a href="#/setup" data-testid="model-warning-setup">Fix the model in Setup</a> (it writes {readiness.configFile}).</p>
      <ul>{bad.map((m) => <li key={m.model ?? ''}>{m.message}</li>)}</ul>
    </div>
  );
}

function Field({ field, value, problem, onChange }: { field: InputField; value: string; problem: string | undefined; onChange: (v: string) => void }) {
  const id = fieldDomId(field.id);
  const hintId = `${id}-hint`;
  const errId = `${id}-error`;
  const isPath = field.type === 'path' || field.type === 'file' || field.type === 'folder';
  const describedBy = [isPath ? hintId : null, problem !== undefined ? errId : null].filter((x) => x !== null).join(' ') || undefined;
  const common = {
    id, 'data-testid': id, 'aria-required': field.required, 'aria-invalid': problem !== undefined,
    'aria-describedby': describedBy, class: problem !== undefined ? 'invalid' : undefined,
  };
  const onInput = (e: Event) => onChange((e.currentTarget as HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement).value);

  let control;
  switch (field.type) {
    case 'textarea':
      control = <textarea {...common} rows={5} value={value} placeholder={field.placeholder} onInput={onInput} />;
      break;
    case 'choice':
      control = (
        <select {...common} value={value} onChange={onInput}>
          {(!field.required || field.default === undefined) && <option value="">{field.required ? 'Choose…' : '— none —'}</option>}
          {(field.options ?? []).map((o) => <option key={o} value={o}>{o}</option>)}
        </select>
      );
      break;
    case 'url':
      control = <input {...common} type="url" value={value} placeholder={field.placeholder} autocomplete="off" spellcheck={false} onInput={onInput} />;
      break;
    default:
      control = <input {...common} type="text" value={value} placeholder={field.placeholder} autocomplete="off" spellcheck={!isPath} onInput={onInput} />;
  }

  return (
    <div class="field">
      <label for={id}>
        {field.label}
        {field.required && <><span class="req" aria-hidden="true"> *</span><span class="sr-only"> (required)</span></>}
      </label>
      {control}
      {isPath && (
        <p id={hintId} class="field__hint">
          {field.type === 'file' ? 'A file' : field.type === 'folder' ? 'A folder (used where it is)' : 'A folder or file'} path on the machine where kowalski runs (the server), e.g. <code>~/code/app</code> — not a file on this computer.
        </p>
      )}
      {problem !== undefined && <p id={errId} class="field__error">{problem}</p>}
    </div>
  );
}
