/**
 * Serving the data tool (`kowalski mcp serve data`): the root's spreadsheets opened once,
 * then served over stdio or stateless Streamable HTTP by the shared transport
 * (agents/mcp/serve-transport.ts: Host, Origin and token checks, stop on signals).
 */
import { requireTokenForHttp, serveMcp } from '../serve/index.js';
import type { ServeTransportOptions } from '../serve/index.js';
import { createDataServer } from './server.js';
import { openDataSource } from './source.js';
import type { DataSourceOptions } from './source.js';

export interface ServeDataOptions extends DataSourceOptions, ServeTransportOptions {
  /** The version the server reports in the MCP handshake. */
  version: string;
}

const GUARDS = 'query your files';

/** Serve the root's spreadsheets until asked to stop. */
export async function serveData(options: ServeDataOptions): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  requireTokenForHttp(options, GUARDS);
  const source = await openDataSource(options);
  try {
    const tables = await source.listTables();
    log(`kowalski data tool: ${tables.tables.length} table${tables.tables.length === 1 ? '' : 's'} from ${source.root}${tables.skipped.length > 0 ? ` (${tables.skipped.length} file${tables.skipped.length === 1 ? '' : 's'} skipped)` : ''}`);
    await serveMcp({ label: 'the data tool', guards: GUARDS, create: () => createDataServer(source, options.version) }, { ...options, log });
  } finally {
    await source.close();
  }
}
