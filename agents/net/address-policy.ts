/**
 * Which addresses a web fetch may reach: public unicast only. Everything a page or a
 * model could use to reach this machine, the local network or a cloud's metadata
 * service is refused, including IPv6 forms that wrap a refused IPv4 address.
 */
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { KowalskiError } from '../../core/index.js';

/**
 * Metadata services that sit on addresses the range checks alone would let through
 * (Azure's wire server is public unicast), plus the well-known ones for clear messages.
 */
const METADATA = new Set([
  '169.254.169.254', // AWS, GCP, Azure IMDS, OpenStack, DigitalOcean…
  '169.254.170.2', // AWS ECS task metadata
  '100.100.100.200', // Alibaba Cloud
  '168.63.129.16', // Azure wire server
  '192.0.0.192', // Oracle Cloud
  'fd00:ec2::254', // AWS IMDS over IPv6
]);

const IPV4_RANGE_NAMES: Record<string, string> = {
  unspecified: 'unspecified', broadcast: 'broadcast', multicast: 'multicast', linkLocal: 'link-local',
  loopback: 'loopback', carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)', private: 'private',
  reserved: 'reserved', as112: 'reserved (AS112)', amt: 'reserved (AMT)', benchmarking: 'reserved (benchmarking)',
};

/** Global unicast is 2000::/3; anything else that ipaddr.js calls unicast is unallocated. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

function v4FromParts(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

function v4Reason(addr: ipaddr.IPv4): string | undefined {
  if (METADATA.has(addr.toString())) return 'cloud metadata';
  const range = addr.range();
  if (range === 'unicast') return undefined;
  return IPV4_RANGE_NAMES[range] ?? range;
}

/** An IPv6 form that carries an IPv4 address is judged by what it carries. */
function wrapped(kind: string, inner: ipaddr.IPv4): string | undefined {
  const reason = v4Reason(inner);
  return reason === undefined ? undefined : `${kind} wrapping ${inner.toString()} (${reason})`;
}

function v6Reason(addr: ipaddr.IPv6): string | undefined {
  if (METADATA.has(addr.toString())) return 'cloud metadata';
  const p = addr.parts;
  const range = addr.range();
  switch (range) {
    case 'ipv4Mapped': return wrapped('IPv4-mapped IPv6', addr.toIPv4Address());
    case 'rfc6145': return wrapped('IPv4-translated IPv6', v4FromParts(p[6] ?? 0, p[7] ?? 0));
    case '6to4': return wrapped('6to4', v4FromParts(p[1] ?? 0, p[2] ?? 0));
    case 'rfc6052':
      // 64:ff9b:1::/48 is for a network's own NAT64: always local.
      if (p[2] !== 0) return 'local-use NAT64 (64:ff9b:1::/48)';
      return wrapped('NAT64', v4FromParts(p[6] ?? 0, p[7] ?? 0));
    case 'teredo': return 'Teredo (2001::/32)';
    case 'unicast': break;
    default: return range === 'uniqueLocal' ? 'private (fc00::/7)' : range === 'linkLocal' ? 'link-local' : range;
  }
  // ::a.b.c.d (IPv4-compatible, deprecated) is "unicast" to ipaddr.js but reaches the IPv4 address.
  if (p.slice(0, 6).every((x) => x === 0)) return `IPv4-compatible IPv6 ${addr.toString()} (deprecated)`;
  if (!addr.match(GLOBAL_UNICAST_V6)) return 'not global unicast (outside 2000::/3)';
  return undefined;
}

function unbracket(ip: string): string {
  return ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
}

/**
 * ipaddr.js reads `::a.b.c.d` as `::ffff:a.b.c.d` (mapped), but it is IPv4-compatible
 * `::hhhh:hhhh`, and glibc prints such addresses that way: write any dotted tail in hex first.
 */
function parseIp(bare: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const tail = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)(%.*)?$/.exec(bare);
  if (tail === null) return ipaddr.parse(bare);
  const [, head = '', a, b, c, d, zone = ''] = tail;
  const hex = (hi: string | undefined, lo: string | undefined): string => ((Number(hi) << 8) | Number(lo)).toString(16);
  return ipaddr.parse(`${head}${hex(a, b)}:${hex(c, d)}${zone}`);
}

/** Why an IP address may not be reached, or undefined when it is public unicast. Not an IP → a reason too. */
export function blockedReason(ip: string): string | undefined {
  const bare = unbracket(ip);
  if (net.isIP(bare) === 0) return `${JSON.stringify(ip)} is not an IP address`;
  const addr = parseIp(bare);
  return addr.kind() === 'ipv4' ? v4Reason(addr as ipaddr.IPv4) : v6Reason(addr as ipaddr.IPv6);
}

/** The canonical form of an address (IPv4 dotted quad; IPv6 compressed, IPv4-mapped unwrapped), for comparing. */
function canonicalAddress(ip: string): string {
  const bare = unbracket(ip);
  if (net.isIP(bare) === 0) return bare;
  const addr = parseIp(bare);
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address().toString() : addr.toString();
}

/**
 * Test-only exceptions: `ip:port` pairs (`127.0.0.1:8080`, `[::1]:8080` or `::1:8080`)
 * that may be reached although their address is refused. Nothing but tests sets them.
 */
export class AllowList {
  private readonly pairs: Set<string>;
  constructor(entries: readonly string[] = []) {
    this.pairs = new Set(entries.map((entry) => {
      const colon = entry.lastIndexOf(':');
      if (colon <= 0) throw new KowalskiError('KW_ERR_INTERNAL', `testOnlyAllow entry ${JSON.stringify(entry)} is not ip:port`);
      return AllowList.key(entry.slice(0, colon), Number(entry.slice(colon + 1)));
    }));
  }
  private static key(ip: string, port: number): string {
    return `${canonicalAddress(ip)}|${port}`;
  }
  has(ip: string, port: number): boolean {
    return this.pairs.size > 0 && this.pairs.has(AllowList.key(ip, port));
  }
}

/** Throws KW_ERR_FETCH_BLOCKED unless `ip` is public (or an allowed test pair). `what` names the target in the message. */
export function assertAddressAllowed(ip: string, port: number, allow: AllowList, what: string): void {
  const reason = blockedReason(ip);
  if (reason === undefined || allow.has(ip, port)) return;
  throw new KowalskiError('KW_ERR_FETCH_BLOCKED', `${what}: ${ip} is ${reason}; only public addresses are fetched`);
}

/** `localhost`, `localhost.`, `*.localhost`: names that always mean this machine (RFC 6761). */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** What a URL's host is, once checked: an IP literal (already allowed) or a name to resolve at connect time. */
export type UrlHost = { kind: 'ip'; address: string } | { kind: 'name'; name: string };

/** The port a URL connects to. */
export function urlPort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/**
 * Checks a URL before any DNS: scheme http/https, no credentials, and a host that is
 * not a refused IP literal nor a localhost name. WHATWG URL parsing has already turned
 * every IPv4 spelling (decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short
 * `127.1`, percent-encoded, full-width, trailing dot) into a dotted quad and every IPv6
 * literal into its compressed form, so only those two forms need recognising here.
 * Throws KW_ERR_FETCH_BLOCKED.
 */
export function checkUrl(url: URL, allow: AllowList): UrlHost {
  const shown = url.href;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new KowalskiError('KW_ERR_FETCH_BLOCKED', `${shown}: the scheme ${url.protocol} is not fetched; only http: and https: are`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new KowalskiError('KW_ERR_FETCH_BLOCKED', `${url.protocol}//${url.host}${url.pathname}: URLs with a user name or password are not fetched`);
  }
  const host = url.hostname;
  if (host.startsWith('[')) {
    const address = host.slice(1, -1);
    assertAddressAllowed(address, urlPort(url), allow, shown);
    return { kind: 'ip', address };
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) {
    assertAddressAllowed(host, urlPort(url), allow, shown);
    return { kind: 'ip', address: host };
  }
  if (isLocalhostName(host)) {
    throw new KowalskiError('KW_ERR_FETCH_BLOCKED', `${shown}: ${host} names this machine; only public addresses are fetched`);
  }
  return { kind: 'name', name: host };
}
