/**
 * `[[mcp.servers]]` in config.toml. This is the only place a server's command comes from:
 * an MCP server is a program run with the operator's rights, so no horde, bundle or model
 * can name one.
 */
import os from 'node:os';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import { expandHome } from '../tools/file-root.js';

interface McpServerCommon {
  /** `[a-z0-9][a-z0-9_-]*`, unique; its tools are offered as `name.tool`. */
  name: string;
  /** Longest one tool call may take, ms (`timeout_secs`, default 60 s). */
  timeoutMs: number;
  /** Longest starting the server, the MCP handshake and listing its tools may take, ms (`connect_timeout_secs`, default 20 s). */
  connectTimeoutMs: number;
}

/** A server run as a child process, spoken to over its stdin and stdout. */
export interface McpStdioServer extends McpServerCommon {
  transport: 'stdio';
  /** The program (`~/` expanded); a bare name is looked up in PATH. */
  command: string;
  args: string[];
  /** Added to the small safe environment the child gets (HOME, PATH, USER…); nothing else of ours is passed on. */
  env: Record<string, string>;
  /** Absolute (`~/` expanded, a relative path is taken from the folder of config.toml); absent = our working directory. */
  cwd?: string;
}

/** A server reached over Streamable HTTP. */
export interface McpHttpServer extends McpServerCommon {
  transport: 'http';
  url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
}

export type McpServerConfig = McpStdioServer | McpHttpServer;

export const MCP_DEFAULT_TIMEOUT_SECS = 60;
export const MCP_DEFAULT_CONNECT_TIMEOUT_SECS = 20;
const NAME = /^[a-z0-9][a-z0-9_-]*$/;
// setTimeout fires at once past 2^31 ms, so a limit has to stay well below it.
export const MCP_MAX_SECS = 86_400;
const STDIO_KEYS = new Set(['command', 'args', 'env', 'cwd']);
const HTTP_KEYS = new Set(['url', 'token']);
const KNOWN_KEYS = new Set(['name', 'timeout_secs', 'connect_timeout_secs', ...STDIO_KEYS, ...HTTP_KEYS]);

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/**
 * The servers of a parsed config.toml, checked. Every problem is KW_ERR_MCP_CONFIG with
 * `where: {file, key}` (e.g. `mcp.servers[0].command`) and a message naming the key.
 */
export function mcpServersFrom(raw: Record<string, unknown>, file: string, home: string = os.homedir()): McpServerConfig[] {
  const bad = (key: string, message: string): KowalskiError =>
    new KowalskiError('KW_ERR_MCP_CONFIG', `${file}: ${key}: ${message}`, { where: { file, key } });
  const mcp = raw.mcp;
  if (mcp === undefined) return [];
  if (!isTable(mcp)) throw bad('mcp', 'must be a table');
  const list = mcp.servers;
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw bad('mcp.servers', 'must be an array of tables: write each server as [[mcp.servers]]');

  const seen = new Set<string>();
  return list.map((entry: unknown, i): McpServerConfig => {
    const at = `mcp.servers[${i}]`;
    if (!isTable(entry)) throw bad(at, 'must be a table: write each server as [[mcp.servers]]');
    const named = typeof entry.name === 'string' ? ` ("${entry.name}")` : '';
    const fail = (key: string, message: string) => bad(`${at}.${key}`, `${message}${key === 'name' ? '' : named}`);

    for (const key of Object.keys(entry)) {
      if (!KNOWN_KEYS.has(key)) throw fail(key, `unknown key; a server takes ${[...KNOWN_KEYS].join(', ')}`);
    }
    const name = entry.name;
    if (name === undefined) throw fail('name', 'is required: it names the server and prefixes its tools (name.tool)');
    if (typeof name !== 'string' || !NAME.test(name)) {
      throw fail('name', `must be lower-case letters, digits, _ and - (starting with a letter or digit), not ${JSON.stringify(name)}`);
    }
    if (seen.has(name)) throw fail('name', `"${name}" is used by another server; names must be unique`);
    seen.add(name);

    const seconds = (key: string, fallback: number): number => {
      const v = entry[key];
      if (v === undefined) return fallback * 1000;
      if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > MCP_MAX_SECS) {
        throw fail(key, `must be a number of seconds > 0 and ≤ ${MCP_MAX_SECS}, not ${JSON.stringify(v)}`);
      }
      return v * 1000;
    };
    const common = {
      name,
      timeoutMs: seconds('timeout_secs', MCP_DEFAULT_TIMEOUT_SECS),
      connectTimeoutMs: seconds('connect_timeout_secs', MCP_DEFAULT_CONNECT_TIMEOUT_SECS),
    };

    const hasCommand = entry.command !== undefined;
    const hasUrl = entry.url !== undefined;
    if (hasCommand && hasUrl) throw fail('url', 'a server has either command (stdio) or url (Streamable HTTP), not both');
    if (!hasCommand && !hasUrl) throw fail('command', 'is required, or url: a server is started with command (stdio) or reached at url (Streamable HTTP)');

    if (hasUrl) {
      const stray = Object.keys(entry).find((k) => STDIO_KEYS.has(k));
      if (stray !== undefined) throw fail(stray, 'applies to a command (stdio) server only; this one has url');
      const url = entry.url;
      let parsed: URL | undefined;
      if (typeof url === 'string') {
        try {
          parsed = new URL(url);
        } catch {
          parsed = undefined;
        }
      }
      if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
        throw fail('url', `must be an http:// or https:// URL, not ${JSON.stringify(url)}`);
      }
      const token = entry.token;
      if (token !== undefined && (typeof token !== 'string' || token === '')) throw fail('token', 'must be a non-empty string');
      const server: McpHttpServer = { ...common, transport: 'http', url: parsed.href };
      if (token !== undefined) server.token = token;
      return server;
    }

    const stray = Object.keys(entry).find((k) => HTTP_KEYS.has(k));
    if (stray !== undefined) throw fail(stray, 'applies to a url (Streamable HTTP) server only; this one has command');
    const command = entry.command;
    if (typeof command !== 'string' || command.trim() === '') throw fail('command', 'must be a non-empty string: the program to run');
    const args = entry.args ?? [];
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw fail('args', 'must be an array of strings');
    const env = entry.env ?? {};
    if (!isTable(env)) throw fail('env', 'must be a table of strings, e.g. env = { API_KEY = "…" }');
    for (const [k, v] of Object.entries(env)) {
      if (typeof v !== 'string') throw bad(`${at}.env.${k}`, `must be a string, not ${JSON.stringify(v)}${named}`);
    }
    const server: McpStdioServer = {
      ...common,
      transport: 'stdio',
      command: expandHome(command, home),
      args: [...(args as string[])],
      env: { ...(env as Record<string, string>) },
    };
    if (entry.cwd !== undefined) {
      if (typeof entry.cwd !== 'string' || entry.cwd === '') throw fail('cwd', 'must be a non-empty string: a folder');
      server.cwd = path.resolve(path.dirname(file), expandHome(entry.cwd, home));
    }
    return server;
  });
}
