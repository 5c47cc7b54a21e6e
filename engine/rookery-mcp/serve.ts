/** Serving the Rookery (`kowalski mcp serve rookery`) over stdio or stateless Streamable HTTP, by the shared transport of agents/serve. */
import { serveMcp } from '../../agents/serve/index.js';
import type { ServeTransportOptions } from '../../agents/serve/index.js';
import { createRookeryServer } from './server.js';
import type { RookeryServerOptions } from './server.js';

export interface ServeRookeryOptions extends RookeryServerOptions, ServeTransportOptions {}

/** Serve the Rookery's tools until asked to stop. */
export async function serveRookery(options: ServeRookeryOptions): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  log(`kowalski rookery: hordes are written into ${options.outputRoot}`);
  await serveMcp({ label: 'the Rookery', guards: 'write hordes on this machine', create: () => createRookeryServer(options) }, { ...options, log });
}
