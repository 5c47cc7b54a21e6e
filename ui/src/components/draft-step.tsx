/**
 * One step of a Rookery draft: its front matter and prompt as a form, its problems inline.
 * "Save step" sends the whole draft with this step changed (the server normalises and checks);
 * "Remove" drops it and its edges.
 */
import { useEffect, useState } from 'preact/hooks';
import { InlineProblems } from './draft-parts';
import { listOf } from '../rookery-draft';
import type { DraftProblem, DraftStep, StepKindSummary } from '../types';

interface StepFormProps {
  step: DraftStep;
  kinds: StepKindSummary[];
  problems: DraftProblem[];
  busy: boolean;
  onSave(step: DraftStep): void;
  onRemove(): void;
}

export function DraftStepForm({ step, kinds, problems, busy, onSave, onRemove }: StepFormProps) {
  const [form, setForm] = useState(step);
  // A new draft from the server (the builder's edit, or this form's own save) is what the form shows.
  useEffect(() => setForm(step), [step]);
  const set = <K extends keyof DraftStep>(key: K, value: DraftStep[K]) => setForm((f) => ({ ...f, [key]: value }));
  const usesModel = kinds.find((k) => k.kind === form.kind)?.model ?? false;
  const id = (key: string) => `step-${step.name}-${key}`;
  const known = kinds.some((k) => k.kind === form.kind);

  return (
    <form class="panel draft-step" data-testid={`draft-step-${step.name}`} onSubmit={(e) => { e.preventDefault(); onSave(form); }}>
      <div class="draft-step__head">
        <h3>{step.name} <span class="muted small">({step.kind || 'no kind'})</span></h3>
        <button type="button" class="btn btn--small btn--danger-outline" disabled={busy} onClick={onRemove} data-testid="draft-step-remove">Remove</button>
      </div>
      <InlineProblems problems={problems} testId="draft-step-problems" />
      <div class="draft-step__grid">
        <div class="field">
          <label for={id('name')}>Name</label>
          <input id={id('name')} type="text" value={form.name} onInput={(e) => set('name', (e.target as HTMLInputElement).value)} data-testid="draft-step-name" />
        </div>
        <div class="field">
          <label for={id('kind')}>Kind</label>
          <select id={id('kind')} value={form.kind} onChange={(e) => set('kind', (e.target as HTMLSelectElement).value)} data-testid="draft-step-kind">
            {!known && <option value={form.kind}>{form.kind || '(choose a kind)'}</option>}
            {kinds.map((k) => <option key={k.kind} value={k.kind} title={k.summary}>{k.kind}</option>)}
          </select>
        </div>
        <div class="field">
          <label for={id('title')}>Title</label>
          <input id={id('title')} type="text" value={form.display_name} onInput={(e) => set('display_name', (e.target as HTMLInputElement).value)} />
        </div>
        {form.kind === 'review'
          ? (
            <div class="field">
              <strong>Output file</strong>
              <p class="field__hint" data-testid="draft-step-no-output">None: a review shows the operator the previous step's file and passes it on.</p>
            </div>
          )
          : (
            <div class="field">
              <label for={id('output')}>Output file</label>
              <input id={id('output')} type="text" value={form.output} onInput={(e) => set('output', (e.target as HTMLInputElement).value)} data-testid="draft-step-output" />
            </div>
          )}
      </div>
      <div class="field">
        <label for={id('description')}>Description</label>
        <input id={id('description')} type="text" value={form.description} onInput={(e) => set('description', (e.target as HTMLInputElement).value)} />
      </div>
      {(usesModel || form.prompt_body !== '') && (
        <div class="field">
          <label for={id('prompt')}>Prompt</label>
          <textarea id={id('prompt')} rows={5} value={form.prompt_body} onInput={(e) => set('prompt_body', (e.target as HTMLTextAreaElement).value)} data-testid="draft-step-prompt" />
        </div>
      )}
      {(form.kind === 'verify' || form.verify_command !== undefined) && (
        <div class="field">
          <label for={id('verify')}>Command</label>
          <input id={id('verify')} type="text" value={form.verify_command ?? ''} onInput={(e) => set('verify_command', (e.target as HTMLInputElement).value)} data-testid="draft-step-verify" />
          <p class="field__hint">Run with <code>sh -c</code>; the step passes when it exits 0.</p>
        </div>
      )}
      <div class="draft-step__grid">
        <div class="field">
          <label for={id('tools')}>Tools</label>
          <input id={id('tools')} type="text" value={form.tools.join(', ')} onInput={(e) => set('tools', listOf((e.target as HTMLInputElement).value))} data-testid="draft-step-tools" />
          <p class="field__hint">Comma-separated, e.g. <code>web_fetch, read_file</code>; empty: none.</p>
        </div>
        <div class="field">
          <label for={id('reads')}>Reads</label>
          <input id={id('reads')} type="text" value={form.context_paths.join(', ')} onInput={(e) => set('context_paths', listOf((e.target as HTMLInputElement).value))} />
          <p class="field__hint"><code>@artifact@</code> (the step before), <code>@step:name@</code>, or files.</p>
        </div>
      </div>
      <button type="submit" class="btn btn--small btn--primary" disabled={busy} data-testid="draft-step-save">Save step</button>
    </form>
  );
}
