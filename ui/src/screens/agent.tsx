/**
 * `#/agents/<name>`: one agent profile's file in an editor. Each change is checked by the
 * server (debounced) and its problems are shown with their lines; Save stays off while
 * there are any. A user profile that overrides a built-in can be reset to it.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, asApiError } from '../api';
import { AgentProblemList } from '../components/agent-problems';
import { OriginTag } from '../components/badge';
import { ErrorBox, Loading } from '../components/status';
import { useDebounced } from '../hooks/use-debounced';
import { useResource } from '../hooks/use-resource';
import { navigate } from '../router';
import { useServices } from '../services';
import type { AgentSource, TeamProblem } from '../types';

/** Quiet time after the last keystroke before the text is checked, ms. */
const CHECK_MS = 300;

/** What a new profile starts from: valid as it is. */
function template(name: string): string {
  return [
    '---', `name = "${name}"`, 'description = "What this agent is for, in one line."',
    '# model = "ollama:qwen2.5:7b"         # default: the configured model',
    '# tools = ["web_search", "web_fetch"]  # default: every tool; [] for none',
    '# max_iterations = 10', '---', '', `You are ${name}. Say in a few short lines how you work.`, '',
  ].join('\n');
}

export function AgentScreen({ name }: { name: string }) {
  const { api } = useServices();
  // A name with no profile yet opens a new one.
  const source = useResource(() => api.agent(name).catch((err: unknown) => {
    if (err instanceof ApiError && err.code === 'KW_ERR_AGENT_NOT_FOUND') return null;
    throw err;
  }), [api, name]);
  // A new editor (fresh text) after a reset, which changes the file in effect.
  const [version, setVersion] = useState(0);
  return (
    <section aria-labelledby="agent-title">
      <p class="crumbs"><a href="#/agents">Agents</a> <span aria-hidden="true">/</span> <code>{name}</code></p>
      {source.data === undefined && source.loading && <Loading label="Loading the profile…" />}
      {source.data === undefined && source.error !== undefined && (
        <>
          <h1 id="agent-title">{name}</h1>
          <ErrorBox error={source.error} title="Could not load this profile" onRetry={source.reload} />
        </>
      )}
      {source.data !== undefined && (
        <AgentEditor key={version} name={name} source={source.data}
          onSaved={source.refresh} onReset={() => { source.reload(); setVersion((v) => v + 1); }} />
      )}
    </section>
  );
}

function AgentEditor({ name, source, onSaved, onReset }: { name: string; source: AgentSource | null; onSaved: () => void; onReset: () => void }) {
  const { api } = useServices();
  const [text, setText] = useState(() => source?.text ?? template(name));
  const [checked, setChecked] = useState<{ text: string; problems: TeamProblem[] } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const textRef = useRef(text);
  textRef.current = text;

  const check = async () => {
    const asked = textRef.current;
    try {
      const { problems } = await api.validateAgent(name, asked);
      if (asked === textRef.current) setChecked({ text: asked, problems });
    } catch (err) {
      setError(asApiError(err));
    }
  };
  const checkSoon = useDebounced(() => { void check(); }, CHECK_MS);
  useEffect(() => { void check(); }, []);

  const checking = checked === null || checked.text !== text;
  const problems = checked?.problems ?? [];
  const invalid = !checking && problems.length > 0;

  const save = async (e: Event) => {
    e.preventDefault();
    if (checking || invalid) return;
    setBusy(true);
    setError(null);
    try {
      const saved = await api.saveAgent(name, text);
      setDone(`Saved to ${saved.file}.`);
      onSaved();
    } catch (err) {
      setError(asApiError(err));
      void check();
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.removeAgent(name);
      if (source?.hasBuiltin === true) onReset();
      else navigate({ name: 'agents' });
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
    }
  };

  /** Select the line in the text, so the operator lands on the problem. */
  const goToLine = (line: number) => {
    const el = area.current;
    if (el === null) return;
    const lines = el.value.split('\n');
    const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    el.focus();
    el.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
  };

  const isNew = source === null;
  const override = source !== null && source.origin === 'user' && source.hasBuiltin;
  return (
    <form class="form panel agent-editor" noValidate onSubmit={(e) => { void save(e); }} data-testid="agent-editor">
      <div class="page-head page-head--row">
        <div>
          <h1 id="agent-title">{name}</h1>
          <p class="muted">
            {isNew ? <span class="small">A new profile: it is written to your team folder when you save it.</span> : <OriginTag origin={source.origin} />}{' '}
            {override && <span class="small">Your version overrides the built-in one.</span>}
            {source?.origin === 'builtin' && <span class="small">Built in: saving writes your own version, which overrides it.</span>}
          </p>
        </div>
      </div>
      <div class="field field--wide">
        <label for="agent-text">Profile</label>
        <p class="field__hint" id="agent-text-hint">
          TOML front matter (<code>name</code>, <code>description</code>, <code>model</code>, <code>tools</code>, <code>max_iterations</code>) between <code>---</code> lines, then the system prompt in Markdown.
        </p>
        <textarea id="agent-text" ref={area} class="editor-text" rows={22} spellcheck={false} value={text} data-testid="agent-text"
          aria-invalid={invalid} aria-describedby="agent-text-hint agent-check"
          onInput={(e) => { setText(e.currentTarget.value); setDone(null); checkSoon(); }} />
      </div>
      <p id="agent-check" class="small" role="status" aria-live="polite" data-testid="agent-check">
        {checking ? 'Checking…' : invalid ? <span class="warn-text">{problems.length === 1 ? '1 problem: fix it to save.' : `${problems.length} problems: fix them to save.`}</span> : <span class="success">No problems.</span>}
      </p>
      <AgentProblemList problems={invalid ? problems : []} onLine={goToLine} testId="agent-problems" />
      {error !== null && <ErrorBox error={error} title={error.code === 'KW_ERR_AGENT_INVALID' ? 'The profile was not saved' : 'Something went wrong'} />}
      {done !== null && <p class="success" role="status" data-testid="agent-saved">{done}</p>}
      <div class="actions">
        <button type="submit" class="btn btn--primary" disabled={busy || checking || invalid} data-testid="agent-save">{busy ? 'Saving…' : 'Save'}</button>
        {override && <button type="button" class="btn btn--danger-outline" disabled={busy} onClick={() => { void remove(); }} data-testid="agent-reset">Reset to built-in</button>}
        {source !== null && source.origin === 'user' && !source.hasBuiltin && (
          <button type="button" class="btn btn--danger-outline" disabled={busy} onClick={() => { void remove(); }} data-testid="agent-delete">Delete profile</button>
        )}
      </div>
      {source !== null && <p class="muted small">File: <code>{source.file}</code></p>}
    </form>
  );
}
