/**
 * One MCP server: started (or reached) on first use, then one connection kept for every
 * call. A connection that dies is noticed (transport close, child exit) and replaced on
 * the next use, a few times a minute at most; a call that outlives its limit drops the
 * connection, since what the server is doing is then unknown. Nothing here can make a
 * caller wait longer than its limits or past its signal.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { KowalskiError } from '../../core/index.js';
import type { JsonSchemaObject } from '../types.js';
import type { McpHttpServer, McpServerConfig } from './config.js';
import type { McpToolResult } from './content.js';
import { McpOAuthProvider, hasSignIn } from './oauth-provider.js';

/** A tool as the server lists it. */
export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: JsonSchemaObject;
}

export interface McpConnectionOptions {
  /** The clock of the restart budget and of token expiry, ms (default `Date.now`). */
  now?: () => number;
  /**
   * The data folder, where `kowalski mcp login` keeps an HTTP server's sign-in
   * (`secrets/mcp-oauth/<server>.json`). Absent: no sign-in is used, only a configured `token`.
   */
  dataDir?: string;
}

/** More failures than this within RESTART_WINDOW_MS and the server is left down until the window moves on. */
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 60_000;
/** How much of a stdio server's stderr is kept for error messages. */
const STDERR_KEEP = 2048;
/** Bounds a server that pages its tool list forever. */
const MAX_TOOL_PAGES = 50;
/** How long closing waits for an HTTP server to end its session before the connection is dropped anyway. */
const END_SESSION_MS = 1000;
// The handshake's clientInfo: informational only (servers may log it).
const CLIENT_INFO = { name: 'kowalski', version: '0.1.0' };

type Transport = StdioClientTransport | StreamableHTTPClientTransport;

interface Live {
  client: Client;
  transport: Transport;
  /** starting: in the handshake · up: usable · dead: closed on its own · dropped: closed by us. */
  state: 'starting' | 'up' | 'dead' | 'dropped';
  stderr: string;
}

function secs(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** An error's message, with the HTTP status or the cause Node's fetch hides in `cause` (ECONNREFUSED…). */
function failureMessage(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err instanceof StreamableHTTPError && err.code !== undefined && err.code > 0) return `HTTP ${err.code}: ${err.message}`;
  const cause = err.cause instanceof Error ? err.cause.message : undefined;
  return cause === undefined || err.message.includes(cause) ? err.message : `${err.message} (${cause})`;
}

/** A stored sign-in is refused or missing: a person has to run `kowalski mcp login`; a damaged sign-in file. */
function isSignInProblem(err: unknown): err is KowalskiError {
  return err instanceof KowalskiError && (err.code === 'KW_ERR_MCP_SIGN_IN' || err.code === 'KW_ERR_MCP_OAUTH_FILE');
}

function isTimeout(err: unknown): boolean {
  return err instanceof McpError && err.code === ErrorCode.RequestTimeout;
}

/**
 * `promise`, or a timeout error after `ms`. The SDK bounds each request but not everything
 * around them (the `initialized` notification is an HTTP POST with no limit of its own).
 */
async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new McpError(ErrorCode.RequestTimeout, `no answer within ${ms} ms`)), ms);
  });
  promise.catch(() => undefined);
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

export class McpConnection {
  readonly server: McpServerConfig;
  private readonly now: () => number;
  private readonly dataDir: string | undefined;
  /** The sign-in of an HTTP server, kept across reconnections (one refresh at a time). */
  private oauth: McpOAuthProvider | undefined;
  private live: Live | undefined;
  private connecting: Promise<Live> | undefined;
  private tools: McpToolInfo[] = [];
  /** When the connection died or failed to start, within the restart window. */
  private failures: number[] = [];
  private lastFailure = '';
  private readonly closing = new Set<Promise<void>>();
  private closed = false;

  constructor(server: McpServerConfig, options: McpConnectionOptions = {}) {
    this.server = server;
    this.now = options.now ?? Date.now;
    this.dataDir = options.dataDir;
  }

  private get label(): string {
    return `MCP server "${this.server.name}"`;
  }

  /** The server's tools, as listed when the current connection was made (connecting first if need be). */
  async listTools(signal?: AbortSignal): Promise<McpToolInfo[]> {
    await this.ensure(signal);
    return this.tools;
  }

  /** Ask the server for its tools now (connecting first if need be), within `connect_timeout_secs`. */
  async refreshTools(signal?: AbortSignal): Promise<McpToolInfo[]> {
    const live = this.live;
    if (live === undefined || live.state !== 'up') return this.listTools(signal);
    try {
      this.tools = await this.fetchTools(live, this.server.connectTimeoutMs);
    } catch (err) {
      throw this.failure(live, 'tools/list', err, signal, this.server.connectTimeoutMs);
    }
    return this.tools;
  }

  /** Call a tool; bounded by `timeout_secs` and by `signal`. The result is the server's, `isError` included. */
  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpToolResult> {
    const live = await this.ensure(signal);
    // One controller per call: the SDK adds a listener to the signal it is given and never
    // removes it, and a run's signal outlives many calls.
    const call = new AbortController();
    const forward = () => call.abort(signal.reason);
    signal.addEventListener('abort', forward, { once: true });
    try {
      if (signal.aborted) throw signal.reason;
      return await live.client.callTool({ name, arguments: args }, undefined, { signal: call.signal, timeout: this.server.timeoutMs });
    } catch (err) {
      throw this.failure(live, `tools/call "${name}"`, err, signal, this.server.timeoutMs);
    } finally {
      signal.removeEventListener('abort', forward);
    }
  }

  /** Close the connection and wait until a stdio server's process has exited. */
  async close(): Promise<void> {
    this.closed = true;
    const connecting = this.connecting;
    if (connecting !== undefined) await connecting.catch(() => undefined);
    const live = this.live;
    this.live = undefined;
    if (live !== undefined && live.state === 'up') {
      live.state = 'dropped';
      await this.shut(live, true);
    }
    await Promise.all([...this.closing]);
  }

  private ensure(signal: AbortSignal | undefined): Promise<Live> {
    if (this.closed) return Promise.reject(new KowalskiError('KW_ERR_MCP_UNAVAILABLE', `${this.label} is closed`));
    if (this.live?.state === 'up') return Promise.resolve(this.live);
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    if (signal === undefined) return this.connecting;
    // The connection is shared: one caller giving up leaves it to the others.
    const connecting = this.connecting;
    return new Promise<Live>((resolve, reject) => {
      const onAbort = () => reject(this.cancelled(signal, 'while connecting'));
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      void connecting.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  private async open(): Promise<Live> {
    const now = this.now();
    this.failures = this.failures.filter((t) => now - t < RESTART_WINDOW_MS);
    if (this.failures.length > MAX_RESTARTS) {
      const wait = Math.max(0, this.failures[0]! + RESTART_WINDOW_MS - now);
      throw new KowalskiError('KW_ERR_MCP_UNAVAILABLE',
        `${this.label} keeps dying: it stopped or failed to start ${this.failures.length} times in the last minute, so it is not restarted for another ${secs(wait)}; last: ${this.lastFailure}`);
    }
    const limit = this.server.connectTimeoutMs;
    const live = this.spawn();
    let tools: McpToolInfo[];
    try {
      tools = await within(this.handshake(live, limit), limit);
    } catch (err) {
      if (isSignInProblem(err)) {
        this.drop(live);
        throw err;
      }
      const error = isTimeout(err)
        ? new KowalskiError('KW_ERR_MCP_TIMEOUT', `${this.label} did not answer within ${secs(limit)} (connect_timeout_secs)${this.stderrOf(live)}`, { cause: err })
        : new KowalskiError('KW_ERR_MCP_UNAVAILABLE', `${this.label} ${this.startProblem(live, err)}${this.stderrOf(live)}`, { cause: err });
      // A death during the handshake is counted once, by onclose.
      if (!isTimeout(err) && live.state !== 'dead') this.recordFailure(error.message);
      this.drop(live);
      throw error;
    }
    if (this.closed) {
      this.drop(live);
      throw new KowalskiError('KW_ERR_MCP_UNAVAILABLE', `${this.label} is closed`);
    }
    this.live = live;
    this.tools = tools;
    return live;
  }

  private async handshake(live: Live, limit: number): Promise<McpToolInfo[]> {
    const started = performance.now();
    await live.client.connect(live.transport, { timeout: limit });
    // Past the deadline the connection is already dropped and stays so.
    if (live.state === 'starting') live.state = 'up';
    return this.fetchTools(live, Math.max(1, limit - (performance.now() - started)));
  }

  private spawn(): Live {
    const s = this.server;
    const transport = s.transport === 'stdio'
      // `env` here is added to the SDK's short list of safe variables (HOME, PATH…): a server never sees our keys.
      ? new StdioClientTransport({ command: s.command, args: s.args, env: s.env, stderr: 'pipe', ...(s.cwd === undefined ? {} : { cwd: s.cwd }) })
      : new StreamableHTTPClientTransport(new URL(s.url), this.httpAuth(s));
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const live: Live = { client, transport, state: 'starting', stderr: '' };
    if (transport instanceof StdioClientTransport) {
      transport.stderr?.on('data', (chunk: Buffer) => {
        live.stderr = (live.stderr + chunk.toString()).slice(-STDERR_KEEP);
      });
    }
    // Only a close counts as death: errors the transport reports on their own (a broken
    // pipe, an SSE stream that drops) are followed by a close when they are fatal.
    client.onclose = () => {
      if (live.state !== 'up') return;
      live.state = 'dead';
      if (this.live === live) this.live = undefined;
      this.recordFailure(`the connection closed${s.transport === 'stdio' ? ' (the process exited)' : ''}${this.stderrOf(live)}`);
    };
    return live;
  }

  /** A stored sign-in (`kowalski mcp login`) when there is one, else the configured bearer token, else nothing. */
  private httpAuth(s: McpHttpServer): ConstructorParameters<typeof StreamableHTTPClientTransport>[1] {
    if (this.oauth === undefined && this.dataDir !== undefined && hasSignIn(this.dataDir, s)) {
      this.oauth = new McpOAuthProvider({ dataDir: this.dataDir, server: s, now: this.now });
    }
    if (this.oauth !== undefined) return { authProvider: this.oauth };
    return s.token === undefined ? {} : { requestInit: { headers: { Authorization: `Bearer ${s.token}` } } };
  }

  private async fetchTools(live: Live, timeout: number): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    // A server of prompts or resources only has no tools to list (and may refuse the request).
    if (live.client.getServerCapabilities()?.tools === undefined) return tools;
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await live.client.listTools(cursor === undefined ? undefined : { cursor }, { timeout });
      for (const t of result.tools) {
        tools.push({ name: t.name, description: t.description ?? t.title ?? '', inputSchema: t.inputSchema as JsonSchemaObject });
      }
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  /** A request went wrong: decide what the caller is told and whether the connection can still be used. */
  private failure(live: Live, what: string, err: unknown, signal: AbortSignal | undefined, limit: number): KowalskiError {
    if (signal?.aborted === true) return this.cancelled(signal, `during ${what}`);
    if (isTimeout(err)) {
      this.drop(live);
      return new KowalskiError('KW_ERR_MCP_TIMEOUT',
        `${this.label} did not answer ${what} within ${secs(limit)}; the connection is restarted on the next use`, { cause: err });
    }
    if (isSignInProblem(err)) {
      this.drop(live);
      return err;
    }
    if (live.state === 'dead') {
      return new KowalskiError('KW_ERR_MCP_UNAVAILABLE', `${this.label} died during ${what}${this.stderrOf(live)}`, { cause: err });
    }
    if (live.state === 'dropped') {
      return new KowalskiError('KW_ERR_MCP_UNAVAILABLE', `${this.label}: the connection was closed during ${what} (another call timed out, or it is shutting down)`, { cause: err });
    }
    // An error the server sent (bad arguments, unknown tool): the connection is fine.
    if (err instanceof McpError) return new KowalskiError('KW_ERR_TOOL_FAILED', `${this.label} refused ${what}: ${err.message}`, { cause: err });
    const message = `${this.label} failed during ${what}: ${failureMessage(err)}${this.stderrOf(live)}`;
    this.recordFailure(message);
    this.drop(live);
    return new KowalskiError('KW_ERR_MCP_UNAVAILABLE', message, { cause: err });
  }

  private cancelled(signal: AbortSignal, when: string): KowalskiError {
    if (signal.reason instanceof KowalskiError) return signal.reason;
    return new KowalskiError('KW_ERR_STEP_CANCELLED', `the call to ${this.label} was cancelled ${when}`);
  }

  private startProblem(live: Live, err: unknown): string {
    const s = this.server;
    if (s.transport === 'http') {
      if (err instanceof StreamableHTTPError && (err.code === 401 || err.code === 403)) {
        const hint = s.token === undefined ? `if it asks for a sign-in, run \`kowalski mcp login ${s.name}\`` : 'is the token right?';
        return `at ${s.url} refused us (${hint}): ${failureMessage(err)}`;
      }
      return `at ${s.url} cannot be reached: ${failureMessage(err)}`;
    }
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return `cannot be started: the command "${s.command}" was not found${s.cwd === undefined ? '' : ` (or the folder ${s.cwd} does not exist)`}`;
    if (live.state === 'dead' || (err instanceof McpError && err.code === ErrorCode.ConnectionClosed)) return `(${s.command}) exited before it answered`;
    return `(${s.command}) failed to start: ${failureMessage(err)}`;
  }

  private stderrOf(live: Live): string {
    const text = live.stderr.trim();
    return text === '' ? '' : `; its stderr ended with:\n${text}`;
  }

  private recordFailure(message: string): void {
    this.failures.push(this.now());
    this.lastFailure = message;
  }

  /** Stop using a connection now; it is closed in the background (close() waits for it). */
  private drop(live: Live): void {
    if (live.state === 'up' || live.state === 'starting') live.state = 'dropped';
    if (this.live === live) this.live = undefined;
    const closing = this.shut(live, false);
    this.closing.add(closing);
    void closing.finally(() => this.closing.delete(closing));
  }

  /**
   * Close a connection. Gracefully (closing stdin lets a stdio server exit on its own, the
   * SDK escalates to SIGTERM and SIGKILL) or, for one in an unknown state, with SIGTERM first.
   */
  private async shut(live: Live, graceful: boolean): Promise<void> {
    const { transport } = live;
    try {
      if (transport instanceof StdioClientTransport) {
        if (!graceful && transport.pid !== null) process.kill(transport.pid, 'SIGTERM');
      } else if (graceful && transport.sessionId !== undefined) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          transport.terminateSession().catch(() => undefined),
          new Promise((resolve) => { timer = setTimeout(resolve, END_SESSION_MS); }),
        ]);
        clearTimeout(timer);
      }
    } catch {
      // the process is already gone
    }
    await live.client.close().catch(() => undefined);
  }
}
