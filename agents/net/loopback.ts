/** Whether a bind address or host name is this machine's loopback: `localhost`, `127.x.y.z` or `::1` (brackets allowed). */
import net from 'node:net';

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || (net.isIPv4(h) && h.startsWith('127.'));
}
