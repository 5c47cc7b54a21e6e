/**
 * The configured MCP servers, as tools named `server.tool`. A server is started only when
 * one of its tools is asked for; `close()` ends every connection and waits for every
 * child process to exit.
 */
import { KowalskiError, toPlainError } from '../../core/index.js';
import type { ErrorCode } from '../../core/index.js';
import type { McpToolSource } from '../tool-registry.js';
import type { Tool, ToolOutput } from '../types.js';
import type { McpServerConfig } from './config.js';
import type { McpConnection, McpConnectionOptions, McpToolInfo } from './connection.js';
import { resultText } from './content.js';

/** What `check()` found out about one server. */
export interface McpCheck {
  name: string;
  transport: McpServerConfig['transport'];
  /** The command line (stdio) or the URL (http); never the token or env values. */
  target: string;
  /** It started (or was reached), answered the handshake and listed its tools. */
  ok: boolean;
  tools: { name: string; description: string }[];
  /** Why it did not answer (absent when ok). */
  error?: { code: ErrorCode; message: string };
  /** Time taken, ms. */
  ms: number;
}

export type McpManagerOptions = McpConnectionOptions;

function targetOf(server: McpServerConfig): string {
  return server.transport === 'http' ? server.url : [server.command, ...server.args].join(' ');
}

function toolOf(conn: McpConnection, info: McpToolInfo): Tool {
  const server = conn.server.name;
  const name = `${server}.${info.name}`;
  return {
    spec: { name, description: info.description, inputSchema: info.inputSchema },
    async call(args, ctx) {
      const started = performance.now();
      const result = await conn.callTool(info.name, args, ctx.signal);
      const content = resultText(result);
      if (result.isError === true) {
        throw new KowalskiError('KW_ERR_TOOL_FAILED', `${name} reported an error: ${content === '' ? '(no message)' : content}`);
      }
      const output: ToolOutput = { content, meta: { mcpServer: server, mcpTool: info.name, ms: Math.round(performance.now() - started) } };
      if (result.structuredContent !== undefined) output.structured = result.structuredContent;
      return output;
    },
  };
}

/**
 * The configured MCP servers. Only the servers whose tools are asked for are connected to;
 * a server that cannot be reached rejects with KW_ERR_MCP_UNAVAILABLE or KW_ERR_MCP_TIMEOUT.
 */
export class McpManager implements McpToolSource {
  private readonly servers: Map<string, McpServerConfig>;
  /** Made on first use: the MCP SDK is loaded only once a server is needed, not at every start. */
  private readonly connections = new Map<string, Promise<McpConnection>>();
  // The same Tool object for the same listed tool: callers key caches (schema validators) on it.
  private readonly made = new WeakMap<McpToolInfo, Tool>();

  constructor(servers: readonly McpServerConfig[], private readonly options: McpManagerOptions = {}) {
    this.servers = new Map(servers.map((s) => [s.name, s]));
  }

  private connectionOf(server: McpServerConfig): Promise<McpConnection> {
    let conn = this.connections.get(server.name);
    if (conn === undefined) {
      conn = import('./connection.js').then(({ McpConnection: Connection }) => new Connection(server, this.options));
      this.connections.set(server.name, conn);
    }
    return conn;
  }

  /**
   * The tools named (`server.tool`), or every tool of every server when `names` is absent.
   * A name whose server is not configured, or that its server does not list, is left out:
   * the caller decides what is unknown.
   */
  async tools(names?: string[]): Promise<Tool[]> {
    if (names === undefined) return (await Promise.all([...this.servers.values()].map(async (s) => this.toolsOf(await this.connectionOf(s))))).flat();
    const asked = new Set(names);
    const servers = new Set(names.filter((n) => n.includes('.')).map((n) => n.slice(0, n.indexOf('.'))));
    const listed = (await Promise.all([...servers].flatMap((name) => {
      const server = this.servers.get(name);
      return server === undefined ? [] : [this.connectionOf(server).then((conn) => this.toolsOf(conn))];
    }))).flat();
    const byName = new Map(listed.filter((t) => asked.has(t.spec.name)).map((t) => [t.spec.name, t]));
    return [...asked].flatMap((n) => byName.get(n) ?? []);
  }

  /** The configured servers' names. */
  serverNames(): string[] {
    return [...this.servers.keys()];
  }

  /** Connect to every server at once, each within its connect_timeout_secs, and list its tools. */
  check(): Promise<McpCheck[]> {
    return Promise.all([...this.servers.values()].map(async (server): Promise<McpCheck> => {
      const started = performance.now();
      const base = { name: server.name, transport: server.transport, target: targetOf(server) };
      try {
        const tools = await (await this.connectionOf(server)).refreshTools();
        return { ...base, ok: true, tools: tools.map((t) => ({ name: t.name, description: t.description })), ms: Math.round(performance.now() - started) };
      } catch (err) {
        const plain = toPlainError(err, 'KW_ERR_MCP_UNAVAILABLE');
        return { ...base, ok: false, tools: [], error: { code: plain.code, message: plain.message }, ms: Math.round(performance.now() - started) };
      }
    }));
  }

  /** Close every connection; resolves once every child process has exited. */
  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map(async (c) => (await c).close()));
  }

  private async toolsOf(conn: McpConnection): Promise<Tool[]> {
    return (await conn.listTools()).map((info) => {
      let tool = this.made.get(info);
      if (tool === undefined) {
        tool = toolOf(conn, info);
        this.made.set(info, tool);
      }
      return tool;
    });
  }
}
