/** Local HTTP servers for tests: on 127.0.0.1, a free port, closed (with their connections) after the test. */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { cleanups } from '../../testkit/cleanup.js';

export interface LocalServer {
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The test-only web-fetch allowance for this server: `127.0.0.1:<port>`. */
  allow: string;
  /** TCP connections accepted so far. */
  connections(): number;
}

export async function serveHttp(t: TestContext, handler: http.RequestListener): Promise<LocalServer> {
  const server = http.createServer(handler);
  let connections = 0;
  server.on('connection', () => { connections += 1; });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  cleanups(t)(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  return { port, origin: `http://127.0.0.1:${port}`, allow: `127.0.0.1:${port}`, connections: () => connections };
}

/** A server answering every request with one HTML page. */
export function servePage(t: TestContext, html: string): Promise<LocalServer> {
  return serveHttp(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
}
