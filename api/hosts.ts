/**
 * Which Host headers name this server. A page on evil.example that rebinds its DNS to
 * 127.0.0.1 still sends `Host: evil.example`, so only the names the server is bound to
 * pass: on loopback, `127.0.0.1`, `localhost` and `[::1]`; on a wildcard bind, also the
 * machine's own name and addresses; on one address, that address (and extra names the
 * operator allows).
 */
import os from 'node:os';

export { isLoopback } from '../agents/index.js';

/** Host names (lower case, IPv6 without brackets) a request may name. */
export function allowedHostNames(bindHost: string, extra: string[] = []): Set<string> {
  const names = new Set<string>(['localhost', '127.0.0.1', '::1', ...extra.map((e) => e.toLowerCase())]);
  const bind = bindHost.replace(/^\[|\]$/g, '').toLowerCase();
  if (bind === '0.0.0.0' || bind === '::') {
    names.add(os.hostname().toLowerCase());
    for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) names.add(a.address.toLowerCase());
  } else {
    names.add(bind);
  }
  return names;
}

/** Split a Host header into name and port; undefined when it is malformed. */
export function parseHostHeader(value: string): { name: string; port: number | undefined } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value.trim());
  if (m === null) return undefined;
  return { name: m[1]!.replace(/^\[|\]$/g, '').toLowerCase(), port: m[2] === undefined ? undefined : Number(m[2]) };
}

/**
 * Whether an Origin header is this server's own: `http:` (it serves plain HTTP, so an
 * `https:` page is another origin), one of its host names and its port, and nothing else
 * (no path, no user). Compared as a parsed URL: the host's case, default ports, IPv6
 * brackets and IPv4 spellings are normalized as a browser would. `null` is never ours.
 */
export function isOwnOrigin(origin: string, hostNames: ReadonlySet<string>, port: number): boolean {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#@\\]+$/i.test(origin)) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const urlPort = url.port === '' ? 80 : Number(url.port);
  return url.protocol === 'http:' && urlPort === port && hostNames.has(url.hostname.replace(/^\[|\]$/g, ''));
}
