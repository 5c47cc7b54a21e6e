/**
 * Setup's form for one MCP server of config.toml, to add one or to edit one in its place: a
 * name, and a program with its arguments (one a line, so an argument may hold spaces), its
 * folder and variables (`NAME=value` a line), or an address with its token; and the two
 * limits. What is never shown back (env values, a token) is kept on an edit unless it is
 * given again: a variable's name alone keeps its value, an empty token field keeps the token.
 * The form checks what it can; the server checks again and answers a coded error naming the field.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { useServices } from '../services';
import type { McpServerAdd, McpServerEdit, McpServerSetup, McpServersSaved } from '../types';
import { ErrorBox } from './status';

const NAME = /^[a-z0-9][a-z0-9_-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** config.toml's defaults (agents/mcp/config.ts): a limit left at its default is not written. */
const DEFAULT_TIMEOUT_SECS = 60;
const DEFAULT_CONNECT_TIMEOUT_SECS = 20;

interface Form {
  name: string;
  transport: McpServerAdd['transport'];
  command: string;
  args: string;
  cwd: string;
  env: string;
  url: string;
  token: string;
  removeToken: boolean;
  timeout: string;
  connect: string;
}
type Field = 'name' | 'command' | 'env' | 'url' | 'timeout' | 'connect';

const EMPTY: Form = {
  name: '', transport: 'stdio', command: '', args: '', cwd: '', env: '', url: '', token: '', removeToken: false,
  timeout: String(DEFAULT_TIMEOUT_SECS), connect: String(DEFAULT_CONNECT_TIMEOUT_SECS),
};

function formOf(s: McpServerSetup): Form {
  return {
    ...EMPTY, name: s.name, transport: s.transport, command: s.command ?? '', args: s.args.join('\n'), cwd: s.cwd ?? '',
    env: s.envNames.join('\n'), url: s.url ?? '', timeout: String(s.timeoutSecs), connect: String(s.connectTimeoutSecs),
  };
}

/** The variables of the field: `NAME=value` sets, a bare `NAME` keeps the value set now (null); undefined when a line is neither. */
function envOf(text: string): Record<string, string | null> | undefined {
  const out: Record<string, string | null> = {};
  for (const line of text.split('\n').map((l) => l.trim()).filter((l) => l !== '')) {
    const eq = line.indexOf('=');
    const name = eq < 0 ? line : line.slice(0, eq).trim();
    if (!ENV_NAME.test(name)) return undefined;
    out[name] = eq < 0 ? null : line.slice(eq + 1);
  }
  return out;
}

const secondsOf = (v: string): number | undefined => {
  const n = Number(v.trim());
  return v.trim() !== '' && Number.isFinite(n) && n > 0 && n <= 86_400 ? n : undefined;
};

function problemsOf(f: Form, editing: McpServerSetup | undefined): Partial<Record<Field, string>> {
  const out: Partial<Record<Field, string>> = {};
  if (editing === undefined && !NAME.test(f.name.trim())) out.name = 'Lower-case letters, digits, _ and -, starting with a letter or digit (its tools are offered as name.tool).';
  if (f.transport === 'stdio' && f.command.trim() === '') out.command = 'The program to run, e.g. npx or /usr/local/bin/my-server.';
  const env = f.transport === 'stdio' ? envOf(f.env) : {};
  if (env === undefined) out.env = 'One variable a line, as NAME=value (a name is letters, digits and _).';
  else if (editing === undefined && Object.values(env).some((v) => v === null)) out.env = 'Give each variable a value: NAME=value.';
  if (f.transport === 'http' && !/^https?:\/\/\S+$/.test(f.url.trim())) out.url = 'An http:// or https:// address, e.g. http://127.0.0.1:9000/mcp.';
  if (secondsOf(f.timeout) === undefined) out.timeout = 'A number of seconds, more than 0 and at most 86400.';
  if (secondsOf(f.connect) === undefined) out.connect = 'A number of seconds, more than 0 and at most 86400.';
  return out;
}

/** The limits that differ from config.toml's defaults. */
function limitsOf(f: Form): Pick<McpServerAdd, 'timeoutSecs' | 'connectTimeoutSecs'> {
  const timeout = secondsOf(f.timeout)!;
  const connect = secondsOf(f.connect)!;
  return { ...(timeout === DEFAULT_TIMEOUT_SECS ? {} : { timeoutSecs: timeout }), ...(connect === DEFAULT_CONNECT_TIMEOUT_SECS ? {} : { connectTimeoutSecs: connect }) };
}

function editOf(f: Form): McpServerEdit {
  if (f.transport === 'http') {
    const token = f.removeToken ? null : f.token.trim() === '' ? undefined : f.token.trim();
    return { transport: 'http', url: f.url.trim(), ...(token === undefined ? {} : { token }), ...limitsOf(f) };
  }
  const args = f.args.split('\n').map((a) => a.trim()).filter((a) => a !== '');
  const cwd = f.cwd.trim();
  return { transport: 'stdio', command: f.command.trim(), args, ...(cwd === '' ? {} : { cwd }), env: envOf(f.env) ?? {}, ...limitsOf(f) };
}

function addOf(f: Form): McpServerAdd {
  const { env, token, ...rest } = editOf(f);
  const values = Object.fromEntries(Object.entries(env ?? {}).filter((e): e is [string, string] => e[1] !== null));
  return {
    name: f.name.trim(), ...rest,
    ...(Object.keys(values).length === 0 ? {} : { env: values }),
    ...(typeof token === 'string' ? { token } : {}),
  };
}

interface Props {
  /** The server edited; absent: the form adds one. */
  editing?: McpServerSetup;
  /** A submit began (the list's earlier note is stale). */
  onStart: () => void;
  /** config.toml has the server (added, or edited). */
  onSaved: (answer: McpServersSaved, name: string) => void;
  /** Editing only: the operator gave up. */
  onCancel?: () => void;
}

export function McpServerForm({ editing, onStart, onSaved, onCancel }: Props) {
  const { api } = useServices();
  const [form, setForm] = useState<Form>(() => (editing === undefined ? EMPTY : formOf(editing)));
  const [problems, setProblems] = useState<Partial<Record<Field, string>>>({});
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof Form>(k: K, v: Form[K]) => setForm((f) => ({ ...f, [k]: v }));
  const id = editing === undefined ? 'mcp-add' : `mcp-edit-${editing.name}`;

  const submit = async (e: Event) => {
    e.preventDefault();
    onStart();
    setError(null);
    const found = problemsOf(form, editing);
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      if (editing === undefined) {
        const body = addOf(form);
        onSaved(await api.addMcpServer(body), body.name);
        setForm(EMPTY);
      } else {
        onSaved(await api.editMcpServer(editing.name, editOf(form)), editing.name);
      }
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };

  const field = (key: Field | 'args' | 'cwd' | 'token', label: string, hint: string, input: (aria: Record<string, unknown>) => ComponentChildren) => (
    <div class="field">
      <label for={`${id}-${key}`}>{label}</label>
      {input({ id: `${id}-${key}`, 'aria-describedby': `${id}-${key}-hint`, 'aria-invalid': problems[key as Field] !== undefined, 'data-testid': `${id}-${key}` })}
      <p class="field__hint" id={`${id}-${key}-hint`}>{hint}</p>
      {problems[key as Field] !== undefined && <p class="field__error" role="alert">{problems[key as Field]}</p>}
    </div>
  );
  const seconds = (key: 'timeout' | 'connect', label: string, hint: string) => field(key, label, hint, (aria) =>
    <input {...aria} type="number" min="1" max="86400" step="any" value={form[key]} onInput={(e) => set(key, e.currentTarget.value)} />);

  return (
    <form class={`form ${editing === undefined ? 'mcp-servers__add' : 'mcp-servers__edit'}`} noValidate onSubmit={(e) => { void submit(e); }} data-testid={id}>
      <h3>{editing === undefined ? 'Add a server' : `Edit "${editing.name}"`}</h3>
      {editing === undefined && field('name', 'Name', 'Unique in config.toml; its tools are offered as name.tool.', (aria) =>
        <input {...aria} type="text" value={form.name} autocomplete="off" spellcheck={false} placeholder="e.g. files" onInput={(e) => set('name', e.currentTarget.value)} />)}
      <div class="radios" role="radiogroup" aria-label="How kowalski reaches it">
        <label class="radio"><input type="radio" name={`${id}-transport`} checked={form.transport === 'stdio'} onChange={() => set('transport', 'stdio')} data-testid={`${id}-stdio`} />A program kowalski starts (stdio)</label>
        <label class="radio"><input type="radio" name={`${id}-transport`} checked={form.transport === 'http'} onChange={() => set('transport', 'http')} data-testid={`${id}-http`} />An address (Streamable HTTP)</label>
      </div>
      {form.transport === 'stdio' && <>
        {field('command', 'Command', 'The program; a bare name is looked up in PATH, ~/ is your home folder.', (aria) =>
          <input {...aria} type="text" value={form.command} autocomplete="off" spellcheck={false} placeholder="npx" onInput={(e) => set('command', e.currentTarget.value)} />)}
        {field('args', 'Arguments', 'One argument per line (an argument may hold spaces).', (aria) =>
          <textarea {...aria} rows={3} value={form.args} spellcheck={false} placeholder={'-y\n@modelcontextprotocol/server-filesystem\n~/Documents'} onInput={(e) => set('args', e.currentTarget.value)} />)}
        {field('cwd', 'Working folder', 'Optional: where it runs (~/ is your home folder; a relative path is from config.toml\'s folder). Empty: kowalski\'s own.', (aria) =>
          <input {...aria} type="text" value={form.cwd} autocomplete="off" spellcheck={false} placeholder="~/Documents" onInput={(e) => set('cwd', e.currentTarget.value)} />)}
        {field('env', 'Variables', editing === undefined
          ? 'Optional: one a line, NAME=value, added to the small environment it gets. Values are written to config.toml (readable by you only) and never shown again.'
          : 'One a line: NAME=value sets a value; a name alone keeps the value it has (values are never shown again); a line removed removes the variable.', (aria) =>
          <textarea {...aria} rows={2} value={form.env} spellcheck={false} autocomplete="off" placeholder="API_KEY=…" onInput={(e) => set('env', e.currentTarget.value)} />)}
      </>}
      {form.transport === 'http' && <>
        {field('url', 'Address', 'The server\'s Streamable HTTP address. A server that asks for a sign-in gets a Sign in button once added.', (aria) =>
          <input {...aria} type="url" value={form.url} autocomplete="off" spellcheck={false} placeholder="http://127.0.0.1:9000/mcp" onInput={(e) => set('url', e.currentTarget.value)} />)}
        {field('token', 'Token', editing?.tokenSet === true
          ? 'A token is set: leave this empty to keep it, or type a new one. It is never shown again.'
          : 'Optional: a fixed bearer token, written to config.toml (readable by you only) and never shown again. A server you sign in to needs none.', (aria) =>
          <input {...aria} type="password" value={form.token} autocomplete="off" disabled={form.removeToken} onInput={(e) => set('token', e.currentTarget.value)} />)}
        {editing?.tokenSet === true && (
          <label class="check"><input type="checkbox" checked={form.removeToken} onChange={(e) => set('removeToken', e.currentTarget.checked)} data-testid={`${id}-remove-token`} />Remove the token</label>
        )}
      </>}
      <details class="mcp-servers__limits">
        <summary>Time limits</summary>
        {seconds('timeout', 'One tool call, seconds', `The longest one call may take (default ${DEFAULT_TIMEOUT_SECS}).`)}
        {seconds('connect', 'Starting and listing its tools, seconds', `The longest starting it (or reaching it) and listing its tools may take (default ${DEFAULT_CONNECT_TIMEOUT_SECS}).`)}
      </details>
      {error !== null && <ErrorBox error={error} title={editing === undefined ? 'The server was not added' : 'The server was not changed'} />}
      <div class="actions">
        <button type="submit" class="btn btn--primary" disabled={busy} data-testid={`${id}-submit`}>{busy ? 'Saving…' : editing === undefined ? 'Add server' : 'Save changes'}</button>
        {onCancel !== undefined && <button type="button" class="btn" disabled={busy} onClick={onCancel} data-testid={`${id}-cancel`}>Cancel</button>}
      </div>
    </form>
  );
}
