/** After a restart: what recovery found (resumed, retried, parked, outcome unknown), until dismissed. */
import { useEffect, useState } from 'preact/hooks';
import { plural } from '../format';
import { href, runHref } from '../router';
import { useServices } from '../services';
import type { Health, Recovery } from '../types';

const DISMISSED_KEY = 'kowalski.recoveryDismissed';
const MAX_LINKS = 8;

export function recoverySentence(r: Recovery): string | null {
  const parts: string[] = [];
  if (r.resumed.length > 0) {
    parts.push(`${plural(r.resumed.length, 'run')} resumed${r.retried.length > 0 ? ` (${plural(r.retried.length, 'step')} run again)` : ''}`);
  } else if (r.retried.length > 0) {
    parts.push(`${plural(r.retried.length, 'step')} run again`);
  }
  if (r.parked > 0) parts.push(`${r.parked} parked waiting for you`);
  if (r.outcomeUnknown.length > 0) parts.push(`${r.outcomeUnknown.length} outcome unknown`);
  if (r.failed.length > 0) parts.push(`${r.failed.length} could not be replayed`);
  return parts.length === 0 ? null : `After the restart: ${parts.join(', ')}`;
}

export function RecoveryBanner() {
  const { api, socket } = useServices();
  const [health, setHealth] = useState<Health | null>(null);
  const [dismissed, setDismissed] = useState<string | null>(null);

  // Asked at load and again whenever the live connection opens: a server restarted while
  // the app stays open has a new start and maybe a new recovery to tell.
  useEffect(() => {
    const load = () => { api.health().then(setHealth, (err: unknown) => console.warn('kowalski: /api/health failed', err)); };
    load();
    return socket.onStatus((s) => { if (s === 'open') load(); });
  }, [api, socket]);

  if (health === null) return null;
  const r = health.recovery;
  const sentence = r === null ? null : recoverySentence(r);
  if (r === null || sentence === null) return null;
  const startKey = String(health.startedAt);
  if (dismissed === startKey || readDismissed() === startKey) return null;

  const affected = [...new Set([...r.outcomeUnknown.map((o) => o.runId), ...r.resumed, ...r.failed.map((f) => f.runId)])];
  const review = r.parked > 0 || r.outcomeUnknown.length > 0 ? href({ name: 'runs', status: 'awaiting_input', horde: undefined }) : '#/runs';
  const dismiss = () => {
    writeDismissed(startKey);
    setDismissed(startKey);
  };

  return (
    <div class="banner" role="region" aria-label="Recovery after restart" data-testid="recovery-notice">
      <div class="banner__inner">
        <p>
          <strong>{sentence}</strong> — <a href={review}>review</a>
          {r.failed.length > 0 && <span class="muted"> ({r.failed.map((f) => `${f.runId}: ${f.message}`).join('; ')})</span>}
        </p>
        {affected.length > 0 && (
          <p class="banner__runs">
            Runs:{' '}
            {affected.slice(0, MAX_LINKS).map((id, i) => (
              <span key={id}>{i > 0 && ', '}<a href={runHref(id)}><code>{id}</code></a></span>
            ))}
            {affected.length > MAX_LINKS && ` and ${affected.length - MAX_LINKS} more`}
          </p>
        )}
        <button type="button" class="btn btn--small btn--ghost banner__close" onClick={dismiss} aria-label="Dismiss the recovery notice">
          Dismiss
        </button>
      </div>
    </div>
  );
}

function readDismissed(): string | null {
  try {
    return localStorage.getItem(DISMISSED_KEY);
  } catch {
    return null;
  }
}

function writeDismissed(value: string): void {
  try {
    localStorage.setItem(DISMISSED_KEY, value);
  } catch {
    // Storage refused: the banner is still hidden for this page.
  }
}
