/**
 * `#/import`: install a horde from a `.kwf.zip` bundle. The file is sent to be checked and
 * staged (`POST /api/bundles`; a bar shows how far the check got); the review shows what the horde is, the commands it will ask
 * to run, the tools and MCP servers it wants, its triggers (all arriving off) and the
 * server's warnings. Nothing is installed until Install; Cancel drops the staged bundle.
 * When its id is taken, the operator picks a new id or explicitly replaces the horde (never
 * a built-in one).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, asApiError } from '../api';
import { ErrorBox } from '../components/status';
import { WorkProgress } from '../components/work-progress';
import { formatTime, plural } from '../format';
import { navigate } from '../router';
import { useServices } from '../services';
import type { BundleInstall, BundleReview } from '../types';

/** The server takes bundles up to this size (docs/api.md). */
const MAX_BUNDLE_BYTES = 20 * 1024 * 1024;
/** What a horde id may look like. */
const HORDE_ID = /^[a-z0-9][a-z0-9_-]*$/;

type Stage =
  | { kind: 'choose'; note: string | null }
  | { kind: 'uploading'; file: string }
  | { kind: 'refused'; file: string; error: ApiError }
  | { kind: 'review'; file: string; review: BundleReview };

export function ImportScreen() {
  const { api } = useServices();
  const [stage, setStage] = useState<Stage>({ kind: 'choose', note: null });
  /** The staged review not yet installed or discarded: dropped when the operator leaves the page. */
  const staged = useRef<string | null>(null);

  useEffect(() => () => {
    if (staged.current !== null) api.discardBundle(staged.current).catch(() => undefined);
  }, [api]);

  const upload = async (file: File) => {
    if (file.size > MAX_BUNDLE_BYTES) {
      setStage({ kind: 'refused', file: file.name, error: new ApiError('KW_ERR_BODY_TOO_LARGE', `${file.name} is ${mib(file.size)}; a bundle may be at most ${mib(MAX_BUNDLE_BYTES)}`, 0) });
      return;
    }
    setStage({ kind: 'uploading', file: file.name });
    try {
      const review = await api.uploadBundle(file);
      staged.current = review.reviewId;
      setStage({ kind: 'review', file: file.name, review });
    } catch (err) {
      setStage({ kind: 'refused', file: file.name, error: asApiError(err) });
    }
  };

  const cancel = async (reviewId: string) => {
    staged.current = null;
    let note = 'Cancelled: the bundle was dropped and nothing was installed.';
    try {
      await api.discardBundle(reviewId);
    } catch (err) {
      const e = asApiError(err);
      if (e.status !== 404) note = `Cancelled; nothing was installed (the server could not drop the staged bundle: ${e.message}; it expires on its own).`;
    }
    setStage({ kind: 'choose', note });
  };

  const installed = (hordeId: string) => {
    staged.current = null;
    navigate({ name: 'horde', id: hordeId });
  };

  return (
    <section aria-labelledby="import-title">
      <div class="page-head">
        <h1 id="import-title">Import a bundle</h1>
        <p class="muted">Install a horde someone shared as a <code>.kwf.zip</code> file. You see what it will do before anything is saved.</p>
      </div>
      {stage.kind !== 'review' && (
        <FilePicker busy={stage.kind === 'uploading'} onFile={(f) => { void upload(f); }} />
      )}
      {stage.kind === 'choose' && stage.note !== null && <p class="success" role="status" data-testid="import-note">{stage.note}</p>}
      {stage.kind === 'uploading' && <p class="muted" data-testid="import-checking">Checking {stage.file}…</p>}
      <WorkProgress op="bundle-import" running={stage.kind === 'uploading'} />
      {stage.kind === 'refused' && (
        <div data-testid="bundle-refused">
          <ErrorBox error={stage.error} title={`${stage.file} was refused; nothing was installed`} />
        </div>
      )}
      {stage.kind === 'review' && (
        <Review file={stage.file} review={stage.review} onCancel={() => { void cancel(stage.review.reviewId); }} onInstalled={installed}
          onExpired={() => { staged.current = null; setStage({ kind: 'choose', note: null }); }} />
      )}
    </section>
  );
}

/** A file input inside a drop zone. */
function FilePicker({ busy, onFile }: { busy: boolean; onFile: (f: File) => void }) {
  const [over, setOver] = useState(false);
  const take = (files: FileList | null | undefined) => {
    const f = files?.[0];
    if (f !== undefined && !busy) onFile(f);
  };
  return (
    <div class={over ? 'dropzone dropzone--over' : 'dropzone'} data-testid="bundle-dropzone"
      onDragOver={(e) => { e.preventDefault(); setOver(true); }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => { e.preventDefault(); setOver(false); take(e.dataTransfer?.files); }}>
      <label for="bundle-file" class="dropzone__label">Choose a bundle (<code>.kwf.zip</code>) or drop it here</label>
      <input id="bundle-file" type="file" accept=".zip,application/zip" data-testid="bundle-file" disabled={busy}
        onChange={(e) => { const input = e.currentTarget; take(input.files); input.value = ''; }} />
      <p class="field__hint">At most {mib(MAX_BUNDLE_BYTES)}. It is checked like any untrusted zip; nothing is installed until you say so.</p>
    </div>
  );
}

interface ReviewProps {
  file: string;
  review: BundleReview;
  onCancel: () => void;
  onInstalled: (hordeId: string) => void;
  onExpired: () => void;
}

function Review({ file, review, onCancel, onInstalled, onExpired }: ReviewProps) {
  const h = review.horde;
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => { title.current?.focus(); }, []);
  const bytes = review.manifest.files.reduce((n, f) => n + f.bytes, 0);
  return (
    <div class="review" data-testid="bundle-review" data-review-id={review.reviewId}>
      <h2 ref={title} tabIndex={-1} id="review-title">Review: {h.displayName || h.id}</h2>
      <p class="muted small">
        From <code>{file}</code> · horde id <code data-testid="bundle-horde-id">{h.id}</code> · {plural(review.manifest.files.length, 'file')} ({kib(bytes)})
        {' '}· this review expires {formatTime(review.expiresAt)}
      </p>
      {h.description !== '' && <p class="lead">{h.description}</p>}
      <p class="notice" role="note"><strong>Nothing is installed yet.</strong> Read what this horde will do, then install it or cancel.</p>

      <h3 class="review__h">Commands it will ask to run</h3>
      {review.commands.length === 0
        ? <p class="muted" data-testid="bundle-commands">No commands: its steps run none.</p>
        : (
          <div class="review-commands" data-testid="bundle-commands">
            <p>Its steps will run {review.commands.length === 1 ? 'this command' : 'these commands'} on this computer:</p>
            <ul class="review-commands__list">
              {review.commands.map((c, i) => <li key={i}><pre class="pre cmd">{c}</pre></li>)}
            </ul>
            {h.confirmCommands === false
              ? <p class="warn-text" data-testid="bundle-no-confirm">Its horde.md sets confirm_commands = false: these would run without asking you first.</p>
              : <p class="small">Each one waits for your approval before it runs.</p>}
          </div>
        )}

      <h3 class="review__h">Steps</h3>
      <div class="table-wrap">
        <table class="table" data-testid="bundle-steps">
          <thead><tr><th scope="col">Step</th><th scope="col">Kind</th><th scope="col">Tools</th><th scope="col">Command, or what it reaches</th><th scope="col">Model</th></tr></thead>
          <tbody>
            {h.steps.map((s) => (
              <tr key={s.name}>
                <th scope="row"><code>{s.name}</code></th>
                <td>{s.kind}</td>
                <td>{s.tools.length === 0 ? <span class="muted">none</span> : s.tools.map((t) => <code key={t} class="chip">{t}</code>)}</td>
                <td>{s.command !== undefined ? <code class="cmd">{s.command}</code> : s.reaches !== undefined ? <span data-testid={`bundle-step-${s.name}-reaches`}>{s.reaches} <span class="muted small">(asks you each run)</span></span> : <span class="muted">—</span>}</td>
                <td>{s.model ?? <span class="muted">default</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h3 class="review__h">Tools and MCP servers it wants</h3>
      <p data-testid="bundle-tools">
        Tools: {review.tools.length === 0 ? <span class="muted">none</span> : review.tools.map((t) => <code key={t} class="chip">{t}</code>)}
      </p>
      <p data-testid="bundle-mcp">
        MCP servers: {review.mcpServers.length === 0 ? <span class="muted">none</span> : review.mcpServers.map((t) => <code key={t} class="chip">{t}</code>)}
      </p>
      <p class="small muted">A bundle never installs MCP servers: its steps can reach only the servers you set up yourself in <code>config.toml</code>.</p>

      <h3 class="review__h">Triggers</h3>
      {h.triggers.length === 0
        ? <p class="muted" data-testid="bundle-triggers">None: it runs only when started by hand.</p>
        : (
          <>
            <ul class="review-list" data-testid="bundle-triggers">
              {h.triggers.map((t) => (
                <li key={t.name}>
                  <code>{t.name}</code> <span class="muted">{t.kind}</span>
                  {t.schedule !== undefined && <> <code>{t.schedule}</code></>}
                  {t.path !== undefined && <> changes in <code>{t.path}</code></>}
                  {' '}— <strong>arrives switched off</strong>
                </li>
              ))}
            </ul>
            <p class="small muted">Nothing fires until you switch a trigger on, on the horde's page.</p>
          </>
        )}

      {review.warnings.length > 0 && (
        <>
          <h3 class="review__h">Warnings</h3>
          <ul class="problems" data-testid="bundle-warnings">
            {review.warnings.map((w, i) => (
              <li key={i} class="problem problem--warning">
                <span class="problem__severity">warning</span> <code>{w.file}{w.key !== undefined ? ` ${w.key}` : ''}</code> {w.message}{' '}
                <span class="muted small">({w.code})</span>
              </li>
            ))}
          </ul>
        </>
      )}

      <details class="review-files">
        <summary>Files in the bundle</summary>
        <ul class="review-list">
          {review.manifest.files.map((f) => <li key={f.path}><code>{f.path}</code> <span class="muted small">{kib(f.bytes)}</span></li>)}
        </ul>
      </details>

      <InstallForm review={review} onCancel={onCancel} onInstalled={onInstalled} onExpired={onExpired} />
    </div>
  );
}

function InstallForm({ review, onCancel, onInstalled, onExpired }: Omit<ReviewProps, 'file'>) {
  const { api } = useServices();
  const existing = review.existing;
  const canReplace = existing !== null && existing.origin !== 'builtin';
  const [mode, setMode] = useState<'new' | 'replace'>('new');
  const [newId, setNewId] = useState(existing === null ? '' : `${review.horde.id}-2`);
  const [confirmed, setConfirmed] = useState(false);
  const [checks, setChecks] = useState<{ id?: string; confirm?: string }>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const idInput = useRef<HTMLInputElement>(null);
  const confirmInput = useRef<HTMLInputElement>(null);

  const choice = (): BundleInstall | null => {
    if (existing === null) return {};
    if (mode === 'replace') {
      if (!confirmed) {
        setChecks({ confirm: `Tick the box to confirm that ${existing.hordeId} is replaced.` });
        confirmInput.current?.focus();
        return null;
      }
      return { id: existing.hordeId, replace: true };
    }
    const id = newId.trim();
    const problem = id === '' ? 'Write the id to install it under.'
      : !HORDE_ID.test(id) ? 'An id is lower-case letters, digits, - or _, starting with a letter or digit.'
        : id === existing.hordeId ? `${id} is the id already taken: choose another.`
          : undefined;
    if (problem !== undefined) {
      setChecks({ id: problem });
      idInput.current?.focus();
      return null;
    }
    return { id };
  };

  const install = async () => {
    setError(null);
    const body = choice();
    if (body === null) return;
    setChecks({});
    setBusy(true);
    try {
      const { hordeId } = await api.installBundle(review.reviewId, body);
      onInstalled(hordeId);
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
    }
  };

  return (
    <form class="panel install" aria-labelledby="install-title" onSubmit={(e) => { e.preventDefault(); void install(); }} noValidate>
      <h3 id="install-title" class="review__h">Install</h3>
      {existing === null
        ? <p>It will be installed as <code>{review.horde.id}</code>, marked imported: every step runs in a separate process.</p>
        : (
          <fieldset class="fieldset" data-testid="install-choice">
            <legend>
              The id <code>{existing.hordeId}</code> is already taken by {existing.origin === 'builtin' ? 'a built-in' : existing.origin === 'imported' ? 'an imported' : 'your own'} horde.
            </legend>
            <label class="radio">
              <input type="radio" name="install-mode" value="new" checked={mode === 'new'} onChange={() => { setMode('new'); setChecks({}); }} data-testid="install-mode-new" />
              Install under a new id
            </label>
            {mode === 'new' && (
              <div class="field">
                <label for="install-id">New id</label>
                <input ref={idInput} id="install-id" type="text" value={newId} spellcheck={false} autocomplete="off" data-testid="install-id"
                  aria-invalid={checks.id !== undefined} aria-describedby={checks.id !== undefined ? 'install-id-error' : 'install-id-hint'}
                  onInput={(e) => { setNewId(e.currentTarget.value); setChecks({}); }} />
                <p id="install-id-hint" class="field__hint">Lower-case letters, digits, - and _.</p>
                {checks.id !== undefined && <p id="install-id-error" class="field__error" data-testid="install-id-error">{checks.id}</p>}
              </div>
            )}
            <label class="radio">
              <input type="radio" name="install-mode" value="replace" checked={mode === 'replace'} disabled={!canReplace}
                onChange={() => { setMode('replace'); setChecks({}); }} data-testid="install-mode-replace" />
              Replace the existing horde
            </label>
            {!canReplace && <p class="field__hint">A built-in horde can never be replaced.</p>}
            {mode === 'replace' && (
              <div class="field">
                <label class="radio">
                  <input ref={confirmInput} type="checkbox" checked={confirmed} data-testid="install-confirm-replace"
                    aria-invalid={checks.confirm !== undefined} aria-describedby={checks.confirm !== undefined ? 'install-confirm-error' : undefined}
                    onChange={(e) => { setConfirmed(e.currentTarget.checked); setChecks({}); }} />
                  Yes, replace <code>{existing.hordeId}</code>: its folder is overwritten by this bundle.
                </label>
                {checks.confirm !== undefined && <p id="install-confirm-error" class="field__error">{checks.confirm}</p>}
              </div>
            )}
          </fieldset>
        )}
      {error !== null && <ErrorBox error={error} title="It was not installed" />}
      {error?.status === 404 && <p><button type="button" class="btn btn--small" onClick={onExpired}>Choose the file again</button></p>}
      <div class="actions">
        <button type="submit" class="btn btn--primary" data-testid="install-bundle" disabled={busy}>{busy ? 'Installing…' : 'Install'}</button>
        <button type="button" class="btn" data-testid="cancel-bundle" disabled={busy} onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

function kib(n: number): string {
  return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KiB`;
}

function mib(n: number): string {
  return `${(n / 1024 / 1024).toFixed(n % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
}
