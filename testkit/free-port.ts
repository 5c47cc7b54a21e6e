/** A loopback port nothing listens on at the moment of asking (for a server started next). */
import { once } from 'node:events';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export async function freePort(): Promise<number> {
  const probe = net.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
