/** The three states every screen shows besides its content: loading, empty, error. */
import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return <p class="loading" role="status" aria-live="polite"><span class="spinner" aria-hidden="true" />{label}</p>;
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty" role="status">{children}</div>;
}

export function ErrorBox({ error, title = 'Something went wrong', onRetry }: { error: ApiError; title?: string; onRetry?: () => void }) {
  return (
    <div class="error-box" role="alert">
      <p class="error-box__title">{title}</p>
      <p><code class="error-code">{error.code}</code> {error.message}</p>
      {onRetry !== undefined && <button type="button" class="btn btn--small" onClick={onRetry}>Try again</button>}
    </div>
  );
}
