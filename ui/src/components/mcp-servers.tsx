/**
 * Setup's MCP servers: each `[[mcp.servers]]` entry of config.toml with Test (starts or
 * reaches it and shows the tools it lists, or why it did not answer, in words), Edit (the
 * form in its place) and Remove (asked first), and a form that adds one (mcp-server-form.tsx). config.toml keeps its
 * comments; `onChange` tells the screen the list changed (the sign-in list reads it too).
 */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { useResource } from '../hooks/use-resource';
import { useServices } from '../services';
import type { McpServerSetup, McpServerTest, McpServersSaved } from '../types';
import { McpServerForm } from './mcp-server-form';
import { ErrorBox, Loading } from './status';

type TestState = { state: 'running' } | { state: 'done'; result: McpServerTest } | { state: 'failed'; error: ApiError };

/** What a failed test means, for a person; the code and the server's message follow. */
const TEST_FAILURES: Record<string, string> = {
  KW_ERR_MCP_UNAVAILABLE: 'The server could not be started or reached.',
  KW_ERR_MCP_TIMEOUT: 'The server did not answer in time.',
  KW_ERR_MCP_SIGN_IN: 'The server asks for a sign-in: use its Sign in button under "MCP servers that sign in".',
  KW_ERR_TOOL_FAILED: 'The server refused to list its tools.',
};

function targetOf(s: McpServerSetup): string {
  return s.transport === 'http' ? (s.url ?? '') : [s.command ?? '', ...s.args].join(' ');
}

/** What else is set, in words (never a value). */
function detailsOf(s: McpServerSetup): string {
  return [
    s.tokenSet ? 'A token is set.' : '',
    s.envNames.length > 0 ? `Sets ${s.envNames.join(', ')}.` : '',
    s.cwd !== null ? `Runs in ${s.cwd}.` : '',
    s.timeoutSecs !== 60 || s.connectTimeoutSecs !== 20 ? `Limits: ${s.timeoutSecs} s a call, ${s.connectTimeoutSecs} s to start.` : '',
  ].filter((x) => x !== '').join(' ');
}

export function McpServers({ onChange }: { onChange: () => void }) {
  const { api } = useServices();
  const servers = useResource(() => api.mcpServers(), [api]);
  const [tests, setTests] = useState<Record<string, TestState>>({});
  const [confirming, setConfirming] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ error: ApiError; title: string } | null>(null);
  const [note, setNote] = useState<string | null>(null);

  const saved = (answer: McpServersSaved, what: string) => {
    servers.refresh();
    onChange();
    setNote(answer.written.comments === 'kept' ? what : `${what} ${answer.written.message}`);
  };

  const test = async (name: string) => {
    setNote(null);
    setTests((t) => ({ ...t, [name]: { state: 'running' } }));
    try {
      const result = await api.testMcpServer(name);
      setTests((t) => ({ ...t, [name]: { state: 'done', result } }));
    } catch (err) {
      setTests((t) => ({ ...t, [name]: { state: 'failed', error: asApiError(err) } }));
    }
  };

  const remove = async (name: string) => {
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      saved(await api.removeMcpServer(name), `"${name}" was removed from config.toml.`);
      setTests(({ [name]: _gone, ...rest }) => rest);
    } catch (err) {
      setError({ error: asApiError(err), title: `"${name}" was not removed` });
    } finally {
      setBusy(false);
      setConfirming(null);
    }
  };

  return (
    <section class="panel mcp-servers" aria-labelledby="mcp-servers-title" data-testid="mcp-servers">
      <h2 id="mcp-servers-title">MCP servers</h2>
      <p class="muted small">The servers of <code>[[mcp.servers]]</code> in config.toml: programs kowalski starts, or addresses it reaches. Their tools are offered to agents as <code>server.tool</code>.</p>
      {servers.data === undefined && servers.loading && <Loading label="Loading the MCP servers…" />}
      {servers.error !== undefined && <ErrorBox error={servers.error} title="Could not read the MCP servers" onRetry={servers.reload} />}
      {servers.data !== undefined && servers.data.length === 0 && <p class="small" data-testid="mcp-servers-none">No MCP servers yet.</p>}
      {servers.data !== undefined && servers.data.length > 0 && (
        <ul class="mcp-sign-ins__list">
          {servers.data.map((s) => (
            <li key={s.name} class="mcp-servers__item" data-testid={`mcp-server-${s.name}`}>
              <div class="mcp-servers__head">
                <div>
                  <strong>{s.name}</strong> <span class="muted small">{s.transport === 'http' ? 'HTTP' : 'program'}</span>
                  <p class="small"><code class="mcp-servers__target">{targetOf(s)}</code></p>
                  {detailsOf(s) !== '' && <p class="muted small" data-testid={`mcp-server-${s.name}-details`}>{detailsOf(s)}</p>}
                </div>
                <div class="mcp-servers__actions">
                  {confirming === s.name ? (
                    <>
                      <span class="small">Remove "{s.name}"?</span>
                      <button type="button" class="btn btn--small btn--danger" disabled={busy} onClick={() => { void remove(s.name); }} data-testid={`mcp-server-${s.name}-remove-confirm`}>Remove</button>
                      <button type="button" class="btn btn--small" disabled={busy} onClick={() => setConfirming(null)} data-testid={`mcp-server-${s.name}-remove-cancel`}>Keep</button>
                    </>
                  ) : (
                    <>
                      <button type="button" class="btn btn--small" disabled={tests[s.name]?.state === 'running'} onClick={() => { void test(s.name); }} data-testid={`mcp-server-${s.name}-test`}>
                        {tests[s.name]?.state === 'running' ? 'Testing…' : 'Test'}
                      </button>
                      <button type="button" class="btn btn--small" disabled={editing === s.name} onClick={() => { setNote(null); setEditing(s.name); }} data-testid={`mcp-server-${s.name}-edit`}>Edit</button>
                      <button type="button" class="btn btn--small btn--danger-outline" disabled={busy} onClick={() => setConfirming(s.name)} data-testid={`mcp-server-${s.name}-remove`}>Remove</button>
                    </>
                  )}
                </div>
              </div>
              {editing === s.name && (
                <McpServerForm editing={s} onStart={() => setNote(null)} onCancel={() => setEditing(null)}
                  onSaved={(answer, name) => { setEditing(null); setError(null); setTests(({ [name]: _stale, ...rest }) => rest); saved(answer, `"${name}" was changed in config.toml: test it again to see its tools.`); }} />
              )}
              {editing !== s.name && <TestResult name={s.name} test={tests[s.name]} />}
            </li>
          ))}
        </ul>
      )}
      {error !== null && <ErrorBox error={error.error} title={error.title} />}
      {note !== null && <p class="success" role="status" data-testid="mcp-servers-saved">{note}</p>}
      <McpServerForm onStart={() => setNote(null)} onSaved={(answer, name) => { setError(null); saved(answer, `"${name}" was added to config.toml: test it to see its tools.`); }} />
    </section>
  );
}

function TestResult({ name, test }: { name: string; test: TestState | undefined }) {
  if (test === undefined) return null;
  const id = `mcp-server-${name}-result`;
  if (test.state === 'running') return <p class="small" role="status" data-testid={id} data-state="running">Starting the server and asking for its tools…</p>;
  if (test.state === 'failed') return <div data-testid={id} data-state="error"><ErrorBox error={test.error} title="The test did not run" /></div>;
  const { result } = test;
  if (!result.ok || result.error !== null) {
    const code = result.error?.code ?? 'KW_ERR_MCP_UNAVAILABLE';
    return (
      <div class="error-box" role="alert" data-testid={id} data-state="error">
        <p class="error-box__title">{TEST_FAILURES[code] ?? 'The server did not answer.'}</p>
        <p><code class="error-code">{code}</code> {result.error?.message}</p>
      </div>
    );
  }
  return (
    <div class="mcp-servers__tools" role="status" data-testid={id} data-state="ok">
      <p class="small">It answers: {result.tools.length === 1 ? '1 tool' : `${result.tools.length} tools`}, offered as <code>{name}.…</code> ({result.ms} ms).</p>
      <ul>
        {result.tools.map((tool) => (
          <li key={tool.name} data-testid={`mcp-server-${name}-tool-${tool.name}`}><code>{tool.name}</code> <span class="muted">{tool.description}</span></li>
        ))}
      </ul>
    </div>
  );
}
