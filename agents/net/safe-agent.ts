/**
 * An undici Agent that can only reach public addresses. Its `connect` resolves the name
 * itself, refuses the host when ANY address it resolves to is refused, connects to a
 * checked address (so no second lookup can answer differently: no DNS-rebinding gap),
 * and checks the connected socket's remote address once more. IP literals get the same
 * checks, which a `lookup` hook alone would never see.
 */
import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import net from 'node:net';
import type * as UndiciModule from 'undici';
import type { Agent, buildConnector } from 'undici';
import { KowalskiError } from '../../core/index.js';
import { AllowList, assertAddressAllowed } from './address-policy.js';

/** `dns.lookup` as called here (with `all: true`); tests inject answers through it. */
export type LookupFunction = (
  hostname: string,
  options: { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface SafeAgentOptions {
  /** Resolves host names (default `dns.lookup`). */
  lookup?: LookupFunction;
  /**
   * Test only: `ip:port` pairs that may be reached although their address is refused
   * (tests serve pages on 127.0.0.1). Nothing outside tests sets it.
   */
  testOnlyAllow?: readonly string[];
  /** Time to open a connection, TLS handshake included (default 10 000 ms). */
  connectTimeoutMs?: number;
}

function lookupAll(lookup: LookupFunction, hostname: string, target: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    lookup(hostname, { all: true }, (err, addresses) => {
      if (err !== null) {
        reject(new KowalskiError('KW_ERR_FETCH_FAILED', `${target}: cannot resolve ${hostname}: ${err.code ?? err.message}`, { cause: err }));
      } else if (addresses.length === 0) {
        reject(new KowalskiError('KW_ERR_FETCH_FAILED', `${target}: cannot resolve ${hostname}: no addresses`));
      } else {
        resolve(addresses);
      }
    });
  });
}

function defaultPort(protocol: string): number {
  return protocol === 'https:' ? 443 : 80;
}

function checkSocket(socket: net.Socket, port: number, allow: AllowList, target: string): Error | undefined {
  const remote = socket.remoteAddress;
  if (remote === undefined) return new KowalskiError('KW_ERR_FETCH_FAILED', `${target}: the connection closed before its address could be checked`);
  try {
    assertAddressAllowed(remote, socket.remotePort ?? port, allow, `${target} (connected socket)`);
    return undefined;
  } catch (err) {
    return err as Error;
  }
}

/** undici's module, loaded by the caller at its first request (so a process that never fetches does not load it). */
export type Undici = typeof UndiciModule;

/** The connector: check, connect to the checked address, check the socket. */
export function safeConnector(undici: Undici, options: SafeAgentOptions = {}): buildConnector.connector {
  const base = undici.buildConnector({ timeout: options.connectTimeoutMs ?? 10_000 });
  const allow = new AllowList(options.testOnlyAllow);
  const lookup: LookupFunction = options.lookup ?? dns.lookup;
  return (opts, callback) => {
    // undici has already taken the brackets off an IPv6 literal.
    const { hostname, protocol } = opts;
    const port = opts.port === '' ? defaultPort(protocol) : Number(opts.port);
    const target = `${protocol}//${opts.host ?? hostname}`;
    const literal = net.isIP(hostname) !== 0;
    const resolved = literal ? Promise.resolve([{ address: hostname, family: net.isIP(hostname) }]) : lookupAll(lookup, hostname, target);
    resolved.then((addresses) => {
      for (const a of addresses) assertAddressAllowed(a.address, port, allow, literal ? target : `${target} (resolved by DNS)`);
      // Every answer was checked above, so any of them may be tried; the next one when a connection fails.
      const attempt = (i: number): void => {
        // `host` keeps the name, so TLS still sends it as SNI and checks the certificate against it.
        base({ ...opts, hostname: addresses[i]!.address }, (err, socket) => {
          if (err !== null) {
            if (i + 1 < addresses.length) attempt(i + 1);
            else callback(err, null);
            return;
          }
          const refused = checkSocket(socket, port, allow, target);
          if (refused === undefined) {
            callback(null, socket);
          } else {
            socket.destroy();
            callback(refused, null);
          }
        });
      };
      attempt(0);
    }).catch((err: unknown) => callback(err as Error, null));
  };
}

/** An Agent whose every connection passes the address policy. Close it when done. */
export function createSafeAgent(undici: Undici, options: SafeAgentOptions = {}): Agent {
  return new undici.Agent({ connect: safeConnector(undici, options) });
}
