/**
 * The Rookery as an MCP server (`kowalski mcp serve rookery`). Not exported by
 * engine/index.ts: the server side of the MCP SDK is loaded only by the command that serves.
 */
export { createRookeryServer } from './server.js';
export type { RookeryServerOptions } from './server.js';
export { serveRookery } from './serve.js';
export type { ServeRookeryOptions } from './serve.js';
