/**
 * Serving kowalski's own MCP servers over stdio or stateless Streamable HTTP (the data
 * tool, the Rookery). Not exported by agents/index.ts: the server side of the MCP SDK is
 * loaded only by the commands that serve.
 */
export { requireTokenForHttp, serveMcp } from './transport.js';
export type { ServedServer, ServeTransportOptions } from './transport.js';
