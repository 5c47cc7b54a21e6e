/**
 * One plugin on the Plugins screen: its state, origin, permissions in plain words, tools,
 * warnings, failures (phase, message, time) and process counters; Grant after a confirmation
 * that lists what it will be allowed, Revoke, and its audit (PluginAudit) on request.
 */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { formatTime, plural } from '../format';
import { useServices } from '../services';
import type { PluginStatus } from '../types';
import { Tag } from './badge';
import { PluginAudit } from './plugin-audit';
import { ErrorBox } from './status';

/** The run-state badge colours and icons the states borrow. */
const STATE_BADGE: Record<PluginStatus['state'], { cls: string; icon: string }> = {
  pending: { cls: 'awaiting_input', icon: '‖' },
  granted: { cls: 'succeeded', icon: '✓' },
  invalid: { cls: 'failed', icon: '✕' },
};
const SOURCE_LABEL: Record<PluginStatus['source'], string> = { package: 'npm package', folder: 'folder' };

export function PluginCard({ plugin, onChanged }: { plugin: PluginStatus; onChanged: () => void }) {
  const { api } = useServices();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState<'grant' | 'revoke' | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [showAudit, setShowAudit] = useState(false);
  const p = plugin;
  const badge = STATE_BADGE[p.state];

  // A grant binds to what the confirmation shows: the server refuses it if the plugin changed since.
  const shown = p.version !== null && p.permissionsHash !== null ? { version: p.version, permissionsHash: p.permissionsHash } : null;

  const act = (kind: 'grant' | 'revoke', call: () => Promise<PluginStatus>): void => {
    setBusy(kind);
    setError(null);
    call()
      .then(() => setConfirming(false), (err: unknown) => setError(asApiError(err)))
      .finally(() => {
        setBusy(null);
        onChanged();
      });
  };

  return (
    <li class={p.state === 'invalid' ? 'card card--invalid plugin' : 'card plugin'} data-testid={`plugin-card-${p.name}`}>
      <div class="card__head">
        <h2 class="card__title">{p.name}{p.version !== null && <> <code class="small">{p.version}</code></>}</h2>
        <div class="card__tags">
          <Tag kind="plain" testId={`plugin-source-${p.name}`}>{SOURCE_LABEL[p.source]}</Tag>
          <span class={`badge badge--${badge.cls}`} data-testid={`plugin-state-${p.name}`} data-state={p.state}>
            <span aria-hidden="true">{badge.icon}</span> {p.state}
          </span>
        </div>
      </div>
      {p.description !== null && p.description !== '' && <p class="card__desc">{p.description}</p>}
      <p class="small muted">{p.source === 'package' ? 'Installed at' : 'Folder'} <code>{p.root}</code></p>
      {p.state === 'granted' && <p class="small" data-testid={`plugin-granted-${p.name}`}>Granted by {p.grantedBy} on {formatTime(p.grantedAt)}.</p>}
      {p.state === 'pending' && <p class="small warn-text">Its tools are not offered to agents until you grant what it asks for.</p>}

      {p.state !== 'invalid' && (
        <div class="plugin__section">
          <h3>It may</h3>
          <ul class="plugin__list" data-testid={`plugin-permissions-${p.name}`}>{p.permissionsText.map((line) => <li key={line}>{line}</li>)}</ul>
        </div>
      )}
      {p.tools.length > 0 && (
        <div class="plugin__section">
          <h3>Tools</h3>
          <ul class="plugin__list" data-testid={`plugin-tools-${p.name}`}>
            {p.tools.map((t) => <li key={t.name}><code>{t.name}</code>{t.description !== '' && <span class="muted"> — {t.description}</span>}</li>)}
          </ul>
        </div>
      )}
      {p.adapters.length > 0 && (
        <div class="plugin__section">
          <h3>Adapters</h3>
          <ul class="plugin__list">{p.adapters.map((a) => <li key={a.name}><code>{a.name}</code> <span class="muted">— {a.description}</span></li>)}</ul>
        </div>
      )}
      {p.process !== null && (
        <p class="small" data-testid={`plugin-process-${p.name}`}>
          Process {p.process.running ? 'running' : 'not running'} · {plural(p.process.restarts, 'restart')} · {plural(p.process.failures, 'failure')}
        </p>
      )}
      {(p.warnings.length > 0 || p.failures.length > 0) && (
        <ul class="problems" data-testid={`plugin-problems-${p.name}`}>
          {p.failures.map((f, i) => (
            <li key={`f${i}`} class="problem" data-testid={`plugin-failure-${p.name}`}>
              <span class="problem__severity">{f.phase}</span> <span class="plugin__message">{f.message}</span> <span class="muted small">({formatTime(f.at)})</span>
            </li>
          ))}
          {p.warnings.map((w, i) => <li key={`w${i}`} class="problem problem--warning"><span class="problem__severity">warning</span> {w}</li>)}
        </ul>
      )}

      <div class="actions">
        {p.state === 'pending' && shown !== null && (
          <button type="button" class="btn btn--primary" data-testid={`plugin-grant-${p.name}`} disabled={busy !== null || confirming}
            aria-expanded={confirming} onClick={() => setConfirming(true)}>Grant…</button>
        )}
        {p.state === 'granted' && (
          <button type="button" class="btn btn--danger-outline" data-testid={`plugin-revoke-${p.name}`} disabled={busy !== null} onClick={() => act('revoke', () => api.revokePlugin(p.name))}
            title="Its tools are no longer offered and its process is stopped">
            {busy === 'revoke' ? 'Revoking…' : 'Revoke'}
          </button>
        )}
        {p.state === 'invalid' && <span class="small muted">Fix what failed, then Rescan.</span>}
        <button type="button" class="btn btn--ghost btn--small" aria-expanded={showAudit} data-testid={`plugin-history-${p.name}`}
          onClick={() => setShowAudit((v) => !v)}>
          {showAudit ? 'Hide history' : 'History'}
        </button>
      </div>
      {confirming && p.state === 'pending' && shown !== null && (
        <div class="confirm" role="group" aria-labelledby={`grant-q-${p.name}`} data-testid={`plugin-grant-confirm-${p.name}`}>
          <p id={`grant-q-${p.name}`}><strong>Grant {p.name} {p.version}?</strong> It will be allowed to:</p>
          <ul class="plugin__list">{p.permissionsText.map((line) => <li key={line}>{line}</li>)}</ul>
          <p class="small">
            {p.tools.length === 0 ? 'It has no tools.' : `Its ${plural(p.tools.length, 'tool')} will be offered to your agents.`} A new version,
            or any change to what it asks for, will need your grant again.
          </p>
          <div class="actions">
            <button type="button" class="btn btn--approve" data-testid={`plugin-grant-yes-${p.name}`} disabled={busy !== null} onClick={() => act('grant', () => api.grantPlugin(p.name, shown))}>
              {busy === 'grant' ? 'Granting…' : 'Yes, grant'}
            </button>
            <button type="button" class="btn" onClick={() => setConfirming(false)} disabled={busy !== null}>Not now</button>
          </div>
        </div>
      )}
      {error !== null && <ErrorBox error={error} title="That did not go through" />}
      {showAudit && <PluginAudit name={p.name} stamp={`${p.state}:${p.grantedAt ?? ''}`} />}
    </li>
  );
}
