/**
 * `mcp serve <server>`: run one of kowalski's own MCP servers — `data`, a folder's
 * spreadsheets as SQL tables; `rookery`, the tools that check and write horde drafts.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';

/** The servers `mcp serve` can run. */
export const MCP_SERVERS = ['data', 'rookery'] as const;

export interface McpServeOptions {
  root?: string;
  outputRoot?: string;
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
  const transport = {
    http: opts.http === true,
    host: opts.host ?? '127.0.0.1',
    port: portOf(opts.port),
    ...(token === undefined || token === '' ? {} : { token }),
    version: version(),
  };
  if (server === 'rookery') {
    const { serveRookery } = await import('../../engine/rookery-mcp/index.js');
    await serveRookery({ ...transport, outputRoot: await outputRootOf(opts.outputRoot) });
    return 0;
  }
  const { serveData } = await import('../../agents/data/index.js');
  // A root that is not a folder (KW_ERR_DATA_ROOT) is bad input: exit 2, like a bad option.
  await serveData({ ...transport, root: opts.root ?? process.cwd() });
  return 0;
}

/**
 * `--output-root`, which must be a folder; by default `<data>/hordes` (made at the first horde written).
 * The engine is imported here, not at the top: the data server, started for every run that
 * queries its inputs, loads only the data tool (a third of the modules, half the start).
 */
async function outputRootOf(given: string | undefined): Promise<string> {
  if (given === undefined) {
    const [{ dataPaths }, { dataDir }] = await Promise.all([import('../../engine/index.js'), import('./common.js')]);
    return dataPaths(dataDir()).hordes;
  }
  const root = path.resolve(given);
  let isDir = false;
  try {
    isDir = statSync(root).isDirectory();
  } catch {
    // missing: refused below
  }
  if (!isDir) throw new KowalskiError('KW_ERR_USAGE', `--output-root ${root} is not a folder`);
  return root;
}
