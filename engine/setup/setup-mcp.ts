/**
 * Setup's MCP servers: the `[[mcp.servers]]` entries of config.toml listed (never a token
 * or an env value), added, edited in place, removed (engine/setup/setup-file.ts keeps the file's comments) and
 * tested: started (or reached) with the real MCP client, within a bounded time, to list
 * their tools.
 */
import { MCP_MAX_SECS, McpManager } from '../../agents/index.js';
import type { McpServerConfig } from '../../agents/index.js';
import { KowalskiError, toPlainError } from '../../core/index.js';
import { monotonicMicros } from '../base/clock.js';
import { parseConfig } from '../config.js';
import { bad, httpUrl } from './setup-fields.js';
import { Changes, readText, saveChanges } from './setup-file.js';
import type { CodedError } from '../../contract/errors.js';
import type { TomlEntryValue } from './toml-edit.js';
import type { McpServerAdd, McpServerEdit, McpServerSetup, McpServerTest, McpServersSaved } from '../../contract/setup.js';

const NAME = /^[a-z0-9][a-z0-9_-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SERVERS = ['mcp', 'servers'];
/** A test waits this long at most, whatever the server's connect_timeout_secs (ms). */
export const MCP_TEST_LIMIT_MS = 30_000;

function setupOf(server: McpServerConfig): McpServerSetup {
  const timeouts = { timeoutSecs: server.timeoutMs / 1000, connectTimeoutSecs: server.connectTimeoutMs / 1000 };
  return server.transport === 'http'
    ? { name: server.name, transport: 'http', command: null, args: [], url: server.url, tokenSet: server.token !== undefined, envNames: [], cwd: null, ...timeouts }
    : { name: server.name, transport: 'stdio', command: server.command, args: server.args, url: null, tokenSet: false, envNames: Object.keys(server.env), cwd: server.cwd ?? null, ...timeouts };
}

/** The servers of `file` as Setup shows them; an entry the engine would refuse is KW_ERR_MCP_CONFIG naming its key. */
export function readMcpServers(file: string): McpServerSetup[] {
  return parseConfig(readText(file), file).mcpServers.map(setupOf);
}

function indexOf(file: string, servers: readonly McpServerConfig[], name: string): number {
  const i = servers.findIndex((s) => s.name === name);
  if (i < 0) {
    throw new KowalskiError('KW_ERR_MCP_SERVER_NOT_FOUND', `${file}: mcp.servers: no server is named ${JSON.stringify(name)} (there are: ${servers.map((s) => s.name).join(', ') || 'none'})`, { where: { file, key: 'mcp.servers' } });
  }
  return i;
}

const oneLine = (field: string, v: string): string => {
  if (/[\r\n]/.test(v)) throw bad(field, 'must be one line');
  return v;
};

function seconds(field: string, v: number | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!Number.isFinite(v) || v <= 0 || v > MCP_MAX_SECS) throw bad(field, `must be a number of seconds > 0 and ≤ ${MCP_MAX_SECS}, not ${JSON.stringify(v)}`);
  return v;
}

/** The entry config.toml gets for a server (its name given apart), checked; KW_ERR_BAD_REQUEST names the field. */
function entryOf(name: string, add: Omit<McpServerAdd, 'name'>): Record<string, TomlEntryValue> {
  if (!NAME.test(name)) throw bad('name', `must be lower-case letters, digits, _ and - (starting with a letter or digit), not ${JSON.stringify(name)}`);
  const entry: Record<string, TomlEntryValue> = { name };
  const other = add.transport === 'http' ? (['command', 'args', 'cwd', 'env'] as const).find((k) => add[k] !== undefined) : (['url', 'token'] as const).find((k) => add[k] !== undefined);
  if (other !== undefined) {
    throw bad(other, add.transport === 'http' ? 'applies to a stdio server only; this one has transport "http" (a url)' : 'applies to an http server only; this one has transport "stdio" (a command)');
  }
  if (add.transport === 'http') {
    if (add.url === undefined) throw bad('url', 'is required for transport "http": the address of the server, e.g. http://127.0.0.1:9000/mcp');
    entry.url = httpUrl('url', add.url);
    if (add.token !== undefined) {
      if (add.token.trim() === '') throw bad('token', 'must not be empty (leave it out for a server that needs none, or that you sign in to)');
      entry.token = oneLine('token', add.token.trim());
    }
  } else {
    if (add.command === undefined || add.command.trim() === '') throw bad('command', 'is required for transport "stdio": the program to run, e.g. npx or /usr/local/bin/my-server');
    entry.command = oneLine('command', add.command);
    const args = add.args ?? [];
    args.forEach((a, i) => oneLine(`args[${i}]`, a));
    if (args.length > 0) entry.args = args;
    if (add.cwd !== undefined && add.cwd.trim() !== '') entry.cwd = oneLine('cwd', add.cwd.trim());
    const env = add.env ?? {};
    for (const [k, v] of Object.entries(env)) {
      if (!ENV_NAME.test(k)) throw bad(`env.${k}`, 'a variable\'s name is letters, digits and _ (not starting with a digit)');
      oneLine(`env.${k}`, v);
    }
    if (Object.keys(env).length > 0) entry.env = env;
  }
  const timeout = seconds('timeoutSecs', add.timeoutSecs);
  if (timeout !== undefined) entry.timeout_secs = timeout;
  const connect = seconds('connectTimeoutSecs', add.connectTimeoutSecs);
  if (connect !== undefined) entry.connect_timeout_secs = connect;
  return entry;
}

/** Adds a server at the end of `[[mcp.servers]]`; a name in use is KW_ERR_MCP_SERVER_EXISTS naming its key. */
export function addMcpServer(file: string, add: McpServerAdd): McpServersSaved {
  const entry = entryOf(add.name, add);
  const old = readText(file);
  const config = parseConfig(old, file);
  const clash = config.mcpServers.findIndex((s) => s.name === add.name);
  if (clash >= 0) {
    const key = `mcp.servers[${clash}].name`;
    throw new KowalskiError('KW_ERR_MCP_SERVER_EXISTS', `${file}: ${key}: a server named ${JSON.stringify(add.name)} is there already; choose another name or remove that one first`, { where: { file, key } });
  }
  const changes = new Changes(config.raw);
  changes.append(SERVERS, entry);
  const written = saveChanges(file, old, changes);
  return { servers: readMcpServers(file), written };
}

/**
 * Puts the server's new entry in place of its `[[mcp.servers]]` entry (McpServerEdit: what
 * is never shown back, a token and env values, is kept unless replaced). Its name stays.
 */
export function editMcpServer(file: string, name: string, edit: McpServerEdit): McpServersSaved {
  const old = readText(file);
  const config = parseConfig(old, file);
  const index = indexOf(file, config.mcpServers, name);
  const now = config.mcpServers[index]!;
  const { env: envEdit, token: tokenEdit, ...rest } = edit;
  const add: Omit<McpServerAdd, 'name'> = rest;
  if (edit.transport === 'http') {
    const token = tokenEdit === undefined ? (now.transport === 'http' ? now.token : undefined) : tokenEdit;
    if (token !== null && token !== undefined) add.token = token;
  } else {
    if (tokenEdit !== undefined && tokenEdit !== null) add.token = tokenEdit; // refused by entryOf, naming the field
    const current = now.transport === 'stdio' ? now.env : {};
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(envEdit ?? Object.fromEntries(Object.keys(current).map((k) => [k, null])))) {
      const value = v ?? current[k];
      if (value === undefined) throw bad(`env.${k}`, `has no value to keep: "${name}" does not set ${k} yet, so give its value`);
      env[k] = value;
    }
    add.env = env;
  }
  const changes = new Changes(config.raw);
  changes.replace(SERVERS, index, entryOf(name, add));
  const written = saveChanges(file, old, changes);
  return { servers: readMcpServers(file), written };
}

/** Removes the server's `[[mcp.servers]]` entry with its keys; the rest of the file (and its comments) stays. */
export function removeMcpServer(file: string, name: string): McpServersSaved {
  const old = readText(file);
  const config = parseConfig(old, file);
  const changes = new Changes(config.raw);
  changes.remove(SERVERS, indexOf(file, config.mcpServers, name));
  const written = saveChanges(file, old, changes);
  return { servers: readMcpServers(file), written };
}

/**
 * The test's error: the client's, except that an http server without a token answering 401
 * (which the client reports as KW_ERR_MCP_UNAVAILABLE, retryable for a run) is the sign-in
 * it asks for, KW_ERR_MCP_SIGN_IN, here where a person reads it.
 */
function testErrorOf(server: McpServerConfig, err: unknown): CodedError {
  const plain = toPlainError(err, 'KW_ERR_MCP_UNAVAILABLE');
  const cause: unknown = err instanceof KowalskiError ? err.cause : undefined;
  const status = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  if (server.transport === 'http' && server.token === undefined && plain.code === 'KW_ERR_MCP_UNAVAILABLE' && status === 401) {
    return {
      code: 'KW_ERR_MCP_SIGN_IN',
      message: `MCP server "${server.name}" at ${server.url} answered HTTP 401: it asks for a sign-in that kowalski does not have. Use its Sign in button in Setup (MCP servers that sign in), or run \`kowalski mcp login ${server.name}\``,
    };
  }
  return { code: plain.code, message: plain.message };
}

/**
 * Starts (stdio) or reaches (http) the server as config.toml has it now, with the sign-in
 * kept in `dataDir`, and lists its tools; waits its connect_timeout_secs, at most
 * MCP_TEST_LIMIT_MS. A server that does not answer is `ok: false` with the coded error.
 */
export async function testMcpServer(file: string, name: string, dataDir: string): Promise<McpServerTest> {
  const servers = parseConfig(readText(file), file).mcpServers;
  const server = servers[indexOf(file, servers, name)]!;
  const manager = new McpManager([{ ...server, connectTimeoutMs: Math.min(server.connectTimeoutMs, MCP_TEST_LIMIT_MS) }], { dataDir });
  const started = monotonicMicros();
  const ms = () => Math.round((monotonicMicros() - started) / 1000);
  try {
    const tools = (await manager.tools()).map((t) => ({ name: t.spec.name.slice(name.length + 1), description: t.spec.description }));
    return { name, ok: true, tools, error: null, ms: ms() };
  } catch (err) {
    return { name, ok: false, tools: [], error: testErrorOf(server, err), ms: ms() };
  } finally {
    await manager.close();
  }
}
