/**
 * Setup's MCP servers that sign in: each server of `[[mcp.servers]]` reached over HTTP,
 * whether kowalski holds a sign-in for it, and a Sign in button. The button asks the server
 * to start the OAuth flow (`POST /api/setup/mcp/:server/sign-in`), opens the authorization
 * page in a new tab, and watches the status until the browser has come back (5 minutes at
 * most). The tokens never reach the app.
 */
import { useEffect, useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { useResource } from '../hooks/use-resource';
import { useServices } from '../services';
import type { McpSignInStatus } from '../types';
import { ErrorBox } from './status';

/** How often the status is asked while a sign-in is under way, ms. */
const POLL_MS = 1000;
/** How long a sign-in may take before the app stops waiting, ms (the server's limit too). */
const WAIT_MS = 5 * 60_000;

export function McpSignIns() {
  const { api } = useServices();
  const servers = useResource(() => api.mcpSignIns(), [api]);
  const [waiting, setWaiting] = useState<{ server: string; url: string; since: number } | null>(null);
  const [error, setError] = useState<ApiError | null>(null);

  const signedIn = waiting !== null && servers.data?.some((s) => s.name === waiting.server && s.signedIn && s.refusedAt === null) === true;
  useEffect(() => {
    if (waiting === null || signedIn) return undefined;
    const timer = setInterval(() => {
      if (Date.now() - waiting.since > WAIT_MS) setWaiting(null);
      else servers.refresh();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [waiting, signedIn]);

  if (servers.data === undefined || servers.data.length === 0) return null;

  const start = async (server: McpSignInStatus) => {
    setError(null);
    try {
      const { authorizationUrl } = await api.startMcpSignIn(server.name);
      setWaiting({ server: server.name, url: authorizationUrl, since: Date.now() });
      window.open(authorizationUrl, '_blank', 'noopener');
    } catch (err) {
      setError(asApiError(err));
    }
  };

  return (
    <section class="panel mcp-sign-ins" aria-labelledby="mcp-sign-ins-title" data-testid="mcp-sign-ins">
      <h2 id="mcp-sign-ins-title">MCP servers that sign in</h2>
      <p class="muted small">Servers of <code>[[mcp.servers]]</code> reached at a url. The sign-in is kept owner-only in the data folder, never in config.toml (the same as <code>kowalski mcp login</code>).</p>
      <ul class="mcp-sign-ins__list">
        {servers.data.map((s) => {
          const state = s.problem !== null ? 'problem' : s.refusedAt !== null ? 'refused' : s.signedIn ? 'signed-in' : 'signed-out';
          const busy = waiting?.server === s.name && !(s.signedIn && s.refusedAt === null);
          return (
            <li key={s.name} class="mcp-sign-ins__item" data-testid={`mcp-${s.name}`} data-state={state}>
              <div>
                <strong>{s.name}</strong> <code class="muted">{s.url}</code>
                <p class="small" data-testid={`mcp-${s.name}-state`}>
                  {state === 'signed-in' && 'Signed in.'}
                  {state === 'signed-out' && 'Not signed in.'}
                  {state === 'refused' && `The server refused the stored sign-in (${s.refusedAt ?? ''}): sign in again.`}
                  {state === 'problem' && s.problem}
                </p>
                {busy && waiting !== null && (
                  <p class="small" role="status">Waiting for the sign-in in the other tab… (<a href={waiting.url} target="_blank" rel="noopener noreferrer">open it again</a>)</p>
                )}
              </div>
              <button type="button" class="btn btn--small" disabled={busy} onClick={() => { void start(s); }} data-testid={`mcp-${s.name}-sign-in`}>
                {state === 'signed-in' ? 'Sign in again' : 'Sign in'}
              </button>
            </li>
          );
        })}
      </ul>
      {error !== null && <ErrorBox error={error} title="The sign-in did not start" />}
    </section>
  );
}
