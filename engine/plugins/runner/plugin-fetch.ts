/**
 * The engine's side of a plugin's `kowalski.fetch`: the host of every URL of the chain
 * (redirects included) must be one the plugin was granted (`net`), and every address is
 * held to web_fetch's rules (public unicast only, checked again at connect time: no
 * loopback, private network or cloud metadata even under a granted name). Request and
 * answer are bounded in size and time.
 */
import { fetchRaw } from '../../../agents/index.js';
import { KowalskiError } from '../../../core/index.js';
import type { FetchAnswer, FetchRequest } from './protocol.js';
import { permissionError } from './refusal.js';

export interface PluginFetchOptions {
  plugin: string;
  /** Whether the plugin may reach this host (lower case, no brackets, no trailing dot). */
  fetchAllow: (host: string) => boolean;
  /** Test only: `ip:port` pairs reachable although web_fetch's rules refuse their address. */
  testOnlyFetchAllow?: readonly string[];
  /** Bytes of the answer's body after decompression (default 5 MiB). */
  maxBytes?: number;
  /** The whole exchange, ms (default 20 000). */
  timeoutMs?: number;
}

/** Bytes of a request body a plugin may send. */
export const MAX_REQUEST_BYTES = 1024 * 1024;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '').toLowerCase();
}

/** The matcher of a `net` list: a host as written (any case), or `*.example.com` for its subdomains. */
export function hostAllowed(net: readonly string[]): (host: string) => boolean {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const entry of net) {
    const host = entry.trim().replace(/\.+$/, '').toLowerCase();
    if (host.startsWith('*.')) suffixes.push(host.slice(1));
    else exact.add(host);
  }
  return (host) => exact.has(host) || suffixes.some((suffix) => host.endsWith(suffix));
}

export async function pluginFetch(options: PluginFetchOptions, url: string, init: FetchRequest, signal: AbortSignal): Promise<FetchAnswer> {
  const method = (init.method ?? 'GET').toUpperCase();
  if (!METHODS.has(method)) throw new KowalskiError('KW_ERR_FETCH_BLOCKED', `plugin ${options.plugin}: the method ${JSON.stringify(init.method)} is not fetched`);
  if (init.body !== undefined && Buffer.byteLength(init.body) > MAX_REQUEST_BYTES) {
    throw new KowalskiError('KW_ERR_FETCH_LIMIT', `plugin ${options.plugin}: a request body may hold at most ${MAX_REQUEST_BYTES} bytes`);
  }
  const checkHop = (target: URL): void => {
    const host = hostOf(target);
    if (!options.fetchAllow(host)) throw permissionError(options.plugin, `fetch ${target.protocol}//${target.host}`, 'net');
  };
  const raw = await fetchRaw(url, { ...init, method }, {
    checkHop,
    ...(options.testOnlyFetchAllow === undefined ? {} : { testOnlyAllow: options.testOnlyFetchAllow }),
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  }, signal);
  return { url: raw.url, status: raw.status, headers: raw.headers, body: raw.body.toString('base64') };
}
