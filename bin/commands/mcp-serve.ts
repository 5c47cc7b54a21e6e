/** `mcp serve <server>`: run one of kowalski's own MCP servers — `data`, a folder's spreadsheets as SQL tables. */
import { readFileSync } from 'node:fs';
import { KowalskiError } from '../../core/index.js';

/** The servers `mcp serve` can run. */
export const MCP_SERVERS = ['data'] as const;

export interface McpServeOptions {
  root?: string;
  http?: boolean;
  host?: string;
  port?: string;
  token?: string;
}

function version(): string {
  const file = new URL(import.meta.url.endsWith('.ts') ? '../../package.json' : '../../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

function portOf(text: string | undefined): number {
  const port = Number(text ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new KowalskiError('KW_ERR_USAGE', `--port takes a number from 0 to 65535, not ${JSON.stringify(text)}`);
  return port;
}

export async function mcpServeCommand(server: string, opts: McpServeOptions): Promise<number> {
  if (!(MCP_SERVERS as readonly string[]).includes(server)) {
    throw new KowalskiError('KW_ERR_USAGE', `unknown MCP server ${JSON.stringify(server)}: choose ${MCP_SERVERS.join(', ')}`);
  }
  const token = opts.token ?? process.env.KOWALSKI_MCP_TOKEN;
  const { serveData } = await import('../../agents/data/index.js');
  // A root that is not a folder (KW_ERR_DATA_ROOT) is bad input: exit 2, like a bad option.
  await serveData({
    root: opts.root ?? process.cwd(),
    http: opts.http === true,
    host: opts.host ?? '127.0.0.1',
    port: portOf(opts.port),
    ...(token === undefined || token === '' ? {} : { token }),
    version: version(),
  });
  return 0;
}
