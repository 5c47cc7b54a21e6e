/**
 * Setup's form that adds an MCP server to config.toml: a name, and a program with its
 * arguments (one a line, so an argument may hold spaces) or an address. The form checks
 * what it can; the server checks again and answers a coded error naming the field or the key.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { useServices } from '../services';
import type { McpServerAdd, McpServersSaved } from '../types';
import { ErrorBox } from './status';

const NAME = /^[a-z0-9][a-z0-9_-]*$/;

interface Form { name: string; transport: McpServerAdd['transport']; command: string; args: string; url: string }
type Field = 'name' | 'command' | 'url';
const EMPTY: Form = { name: '', transport: 'stdio', command: '', args: '', url: '' };

function problemsOf(f: Form): Partial<Record<Field, string>> {
  const out: Partial<Record<Field, string>> = {};
  if (!NAME.test(f.name.trim())) out.name = 'Lower-case letters, digits, _ and -, starting with a letter or digit (its tools are offered as name.tool).';
  if (f.transport === 'stdio' && f.command.trim() === '') out.command = 'The program to run, e.g. npx or /usr/local/bin/my-server.';
  if (f.transport === 'http' && !/^https?:\/\/\S+$/.test(f.url.trim())) out.url = 'An http:// or https:// address, e.g. http://127.0.0.1:9000/mcp.';
  return out;
}

function bodyOf(f: Form): McpServerAdd {
  const name = f.name.trim();
  if (f.transport === 'http') return { name, transport: 'http', url: f.url.trim() };
  const args = f.args.split('\n').map((a) => a.trim()).filter((a) => a !== '');
  return { name, transport: 'stdio', command: f.command.trim(), args };
}

/** `onStart`: a submit began (the list's earlier note is stale); `onAdded`: config.toml has the server. */
export function McpServerAddForm({ onStart, onAdded }: { onStart: () => void; onAdded: (answer: McpServersSaved, name: string) => void }) {
  const { api } = useServices();
  const [form, setForm] = useState<Form>(EMPTY);
  const [problems, setProblems] = useState<Partial<Record<Field, string>>>({});
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof Form, v: string) => setForm((f) => ({ ...f, [k]: v }));

  const submit = async (e: Event) => {
    e.preventDefault();
    onStart();
    setError(null);
    const found = problemsOf(form);
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      const body = bodyOf(form);
      onAdded(await api.addMcpServer(body), body.name);
      setForm(EMPTY);
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };

  const field = (id: Field, label: string, hint: string, input: (aria: Record<string, unknown>) => ComponentChildren) => (
    <div class="field">
      <label for={`mcp-add-${id}`}>{label}</label>
      {input({ id: `mcp-add-${id}`, 'aria-describedby': `mcp-add-${id}-hint`, 'aria-invalid': problems[id] !== undefined, 'data-testid': `mcp-add-${id}` })}
      <p class="field__hint" id={`mcp-add-${id}-hint`}>{hint}</p>
      {problems[id] !== undefined && <p class="field__error" role="alert">{problems[id]}</p>}
    </div>
  );

  return (
    <form class="form mcp-servers__add" noValidate onSubmit={(e) => { void submit(e); }} data-testid="mcp-add">
      <h3>Add a server</h3>
      {field('name', 'Name', 'Unique in config.toml; its tools are offered as name.tool.', (aria) =>
        <input {...aria} type="text" value={form.name} autocomplete="off" spellcheck={false} placeholder="e.g. files" onInput={(e) => set('name', e.currentTarget.value)} />)}
      <div class="radios" role="radiogroup" aria-label="How kowalski reaches it">
        <label class="radio"><input type="radio" name="mcp-transport" checked={form.transport === 'stdio'} onChange={() => set('transport', 'stdio')} data-testid="mcp-add-stdio" />A program kowalski starts (stdio)</label>
        <label class="radio"><input type="radio" name="mcp-transport" checked={form.transport === 'http'} onChange={() => set('transport', 'http')} data-testid="mcp-add-http" />An address (Streamable HTTP)</label>
      </div>
      {form.transport === 'stdio' && <>
        {field('command', 'Command', 'The program; a bare name is looked up in PATH, ~/ is your home folder.', (aria) =>
          <input {...aria} type="text" value={form.command} autocomplete="off" spellcheck={false} placeholder="npx" onInput={(e) => set('command', e.currentTarget.value)} />)}
        <div class="field">
          <label for="mcp-add-args">Arguments</label>
          <textarea id="mcp-add-args" rows={3} value={form.args} spellcheck={false} placeholder={'-y\n@modelcontextprotocol/server-filesystem\n~/Documents'} aria-describedby="mcp-add-args-hint"
            onInput={(e) => set('args', e.currentTarget.value)} data-testid="mcp-add-args" />
          <p class="field__hint" id="mcp-add-args-hint">One argument per line (an argument may hold spaces).</p>
        </div>
      </>}
      {form.transport === 'http' && field('url', 'Address', 'The server\'s Streamable HTTP address. A server that asks for a sign-in gets a Sign in button once added.', (aria) =>
        <input {...aria} type="url" value={form.url} autocomplete="off" spellcheck={false} placeholder="http://127.0.0.1:9000/mcp" onInput={(e) => set('url', e.currentTarget.value)} />)}
      {error !== null && <ErrorBox error={error} title="The server was not added" />}
      <div class="actions">
        <button type="submit" class="btn btn--primary" disabled={busy} data-testid="mcp-add-submit">{busy ? 'Adding…' : 'Add server'}</button>
      </div>
    </form>
  );
}
