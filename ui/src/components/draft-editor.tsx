/**
 * The Rookery's direct editor: the horde's own fields, each step (draft-step.tsx), a new step,
 * the edges (draft-edges.tsx) and "Create horde". Every change sends the whole draft
 * (`PUT /api/rookery/drafts/:id`) and shows what the server answers: the draft normalised,
 * its problems next to their step and key, its stage. Works without a model.
 */
import { useEffect, useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { DraftEdgesForm } from './draft-edges';
import { InlineProblems } from './draft-parts';
import { DraftStepForm } from './draft-step';
import { ErrorBox } from './status';
import { hordeProblems, stepProblems, withEdges, withNewStep, withoutStep, withStep } from '../rookery-draft';
import { href } from '../router';
import { useServices } from '../services';
import type { BirthResult, DraftView, HordeDraft, StepKindSummary } from '../types';

interface EditorProps {
  view: DraftView;
  kinds: StepKindSummary[];
  onChanged(view: DraftView): void;
}

export function DraftEditor({ view, kinds, onChanged }: EditorProps) {
  const { api } = useServices();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const draft = view.draft;

  const save = async (next: HordeDraft) => {
    setBusy(true);
    setError(undefined);
    try {
      onChanged(await api.putDraft(view.id, next));
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };

  const edgeProblems = hordeProblems(view.problems).filter((p) => p.key?.startsWith('edges') === true);
  const ownProblems = hordeProblems(view.problems).filter((p) => !edgeProblems.includes(p));
  return (
    <div class="draft-editor" data-testid="draft-editor">
      {error !== undefined && <ErrorBox error={error} title="The draft was not changed" />}
      <HordeFields draft={draft} busy={busy} onSave={(d) => void save(d)} />
      <InlineProblems problems={ownProblems} testId="draft-horde-problems" />
      <h3>Steps</h3>
      {draft.steps.length === 0 && <p class="muted">No steps yet.</p>}
      {draft.steps.map((s) => (
        <DraftStepForm key={s.name} step={s} kinds={kinds} problems={stepProblems(view.problems, s.name)} busy={busy}
          onSave={(step) => void save(withStep(draft, s.name, step))} onRemove={() => void save(withoutStep(draft, s.name))} />
      ))}
      <NewStep kinds={kinds} busy={busy} onAdd={(name, kind) => void save(withNewStep(draft, name, kind))} />
      <DraftEdgesForm edges={draft.edges} steps={draft.steps.map((s) => s.name)} problems={edgeProblems} busy={busy} onSave={(edges) => void save(withEdges(draft, edges))} />
      <Birth view={view} onBorn={() => void api.draft(view.id).then(onChanged, (err: unknown) => setError(asApiError(err)))} />
    </div>
  );
}

function HordeFields({ draft, busy, onSave }: { draft: HordeDraft; busy: boolean; onSave(d: HordeDraft): void }) {
  const [form, setForm] = useState(draft);
  useEffect(() => setForm(draft), [draft]);
  const text = (key: 'id' | 'display_name' | 'description', label: string) => (
    <div class="field">
      <label for={`horde-${key}`}>{label}</label>
      <input id={`horde-${key}`} type="text" value={form[key]} onInput={(e) => setForm((f) => ({ ...f, [key]: (e.target as HTMLInputElement).value }))} data-testid={`draft-horde-${key}`} />
    </div>
  );
  return (
    <form class="panel draft-horde" data-testid="draft-horde" onSubmit={(e) => { e.preventDefault(); onSave(form); }}>
      <h3>The horde</h3>
      <div class="draft-step__grid">
        {text('id', 'Id (the folder name)')}
        {text('display_name', 'Title')}
      </div>
      {text('description', 'Description')}
      <label class="check">
        <input type="checkbox" checked={form.confirm_commands !== false} onChange={(e) => setForm((f) => ({ ...f, confirm_commands: (e.target as HTMLInputElement).checked }))} data-testid="draft-horde-confirm" />
        {' '}Ask me before a step runs a command
      </label>
      <div><button type="submit" class="btn btn--small btn--primary" disabled={busy} data-testid="draft-horde-save">Save</button></div>
    </form>
  );
}

function NewStep({ kinds, busy, onAdd }: { kinds: StepKindSummary[]; busy: boolean; onAdd(name: string, kind: string): void }) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState('process');
  return (
    <form class="panel draft-new-step" data-testid="draft-new-step" onSubmit={(e) => { e.preventDefault(); if (name.trim() !== '') { onAdd(name.trim(), kind); setName(''); } }}>
      <div class="field field--inline">
        <label for="new-step-name">New step</label>
        <input id="new-step-name" type="text" placeholder="e.g. summarise" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} data-testid="draft-new-step-name" />
      </div>
      <div class="field field--inline">
        <label for="new-step-kind">Kind</label>
        <select id="new-step-kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)} data-testid="draft-new-step-kind">
          {kinds.map((k) => <option key={k.kind} value={k.kind} title={k.summary}>{k.kind}</option>)}
        </select>
      </div>
      <button type="submit" class="btn btn--small" disabled={busy || name.trim() === ''} data-testid="draft-new-step-add">Add step</button>
    </form>
  );
}

/** "Create horde": the folder written into Hordes; a horde of the same id made elsewhere needs "Replace it". */
function Birth({ view, onBorn }: { view: DraftView; onBorn(): void }) {
  const { api } = useServices();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [result, setResult] = useState<BirthResult | null>(view.born);
  useEffect(() => setResult(view.born), [view.born]);
  const create = async (overwrite: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      setResult(await api.birthDraft(view.id, overwrite));
      onBorn();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="panel draft-birth" data-testid="draft-birth">
      <button type="button" class="btn btn--primary" disabled={busy || !view.ok} onClick={() => void create(false)} data-testid="draft-create">
        {view.stage === 'born' ? 'Created' : result === null ? 'Create horde' : 'Create horde again'}
      </button>
      {!view.ok && <span class="muted small"> Fix the errors above first.</span>}
      {error !== undefined && <ErrorBox error={error} title="The horde was not created" />}
      {error?.code === 'KW_ERR_HORDE_EXISTS' && (
        <button type="button" class="btn btn--danger-outline btn--small" disabled={busy} onClick={() => void create(true)} data-testid="draft-replace">Replace the installed horde</button>
      )}
      {result !== null && (
        <p data-testid="draft-born">
          Written to <code>{result.horde_root}</code>. <a href={href({ name: 'horde', id: result.horde_id })} data-testid="draft-born-link">Open {result.horde_id} in Hordes</a> to run it.
        </p>
      )}
    </div>
  );
}
