/**
 * A parked step: what would run (argv, cwd, env names, hash) and why it asks, with Approve
 * and Deny (a reason is required). Sent over the websocket; over HTTP when the socket is down.
 */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { formatTime } from '../format';
import { useServices } from '../services';
import { SOCKET_DOWN } from '../socket';
import type { ApprovalRow } from '../types';
import { DenyField } from './deny-field';
import { ErrorBox } from './status';

const WHY: Record<ApprovalRow['reason'], string> = {
  confirm_command: 'This step runs a command.',
  outcome_unknown: 'This step was interrupted and may have partly run. Look at what it changed before you decide: approving runs it again, denying fails the step.',
  review: 'This step is a review: read the artifact before the run goes on.',
};

/** The argv as one line, quoting items a shell would split or expand. */
export function displayArgv(argv: readonly string[]): string {
  return argv.map((a) => (a !== '' && /^[\w@%+=:,./~-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`)).join(' ');
}

export function ApprovalPanel({ runId, approval, onDone }: { runId: string; approval: ApprovalRow; onDone: () => void }) {
  const { api, socket } = useServices();
  const [busy, setBusy] = useState<'approve' | 'deny' | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const step = approval.step;

  const act = async (kind: 'approve' | 'deny', reason = '') => {
    setBusy(kind);
    setError(null);
    try {
      try {
        if (kind === 'approve') await socket.approve(runId, step);
        else await socket.deny(runId, reason, step);
      } catch (err) {
        if (asApiError(err).code !== SOCKET_DOWN) throw err;
        if (kind === 'approve') await api.approve(runId, step);
        else await api.deny(runId, reason, step);
      }
      onDone();
    } catch (err) {
      setError(asApiError(err));
      setBusy(null);
    }
  };

  return (
    <section class="approval" data-testid="approval-panel" data-step={step} aria-labelledby={`approval-${step}`}>
      <h3 id={`approval-${step}`}>Waiting for your approval: <code>{step}</code></h3>
      <p class="approval__why" data-testid="approval-reason">{WHY[approval.reason]}</p>
      <h4>Command</h4>
      <pre class="pre approval__command" data-testid="approval-command">{displayArgv(approval.command.argv)}</pre>
      <p class="small muted argv__title" id={`argv-${step}`}>The same command as {approval.command.argv.length} argv items, exactly as they are passed:</p>
      <ol class="argv" data-testid="approval-argv" aria-labelledby={`argv-${step}`}>
        {approval.command.argv.map((a, i) => (
          <li key={i}><span class="argv__i" aria-hidden="true">{i}</span><code>{a === '' ? '(empty)' : a}</code></li>
        ))}
      </ol>
      <dl class="kv">
        <div class="kv__row"><dt>Working folder</dt><dd><code data-testid="approval-cwd">{approval.command.cwd}</code></dd></div>
        <div class="kv__row">
          <dt>Environment</dt>
          <dd data-testid="approval-env">
            {approval.command.env.length === 0 ? <span class="muted">no variables</span> : approval.command.env.map((n) => <code key={n} class="chip">{n}</code>)}
            <span class="muted small"> (names only)</span>
          </dd>
        </div>
        <div class="kv__row"><dt>Hash</dt><dd><code class="hash" data-testid="approval-hash">{approval.hash}</code></dd></div>
        <div class="kv__row"><dt>Asked</dt><dd>{formatTime(approval.requestedAt)}</dd></div>
      </dl>
      {error !== null && <ErrorBox error={error} title="That did not go through" />}
      <div class="approval__decide">
        <button type="button" class="btn btn--approve" data-testid="approve-button" disabled={busy !== null} onClick={() => { void act('approve'); }}>
          {busy === 'approve' ? 'Approving…' : 'Approve and run'}
        </button>
        <DenyField step={step} busy={busy !== null} denying={busy === 'deny'} onDeny={(reason) => { void act('deny', reason); }} />
      </div>
    </section>
  );
}
