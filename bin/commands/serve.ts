/**
 * `serve`: the engine and the operator server in one process. It recovers interrupted
 * runs, listens (127.0.0.1:8765 by default), tells the CLI where it is, and opens the app.
 */
import net from 'node:net';
import path from 'node:path';
import { buildApi, DEFAULT_PORT, isLoopback, loadOrCreateToken, TOKEN_FILE } from '../../api/index.js';
import { KowalskiError, messageOf } from '../../core/index.js';
import { configuredPostgresUrl, createEngine, formatRecovery, liveServerOf } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import { EXIT, dataDir } from './common.js';
import { canOpenBrowser, openBrowser } from './open-browser.js';
import { signInUrl } from './sign-in.js';

function parsePort(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  const port = Number(value);
  if (!/^\d{1,5}$/.test(value) || port > 65535) throw new KowalskiError('KW_ERR_USAGE', `--port must be 0–65535, not ${JSON.stringify(value)}`);
  return port;
}

/** Listen, turning the usual failures into an error that says what to do. */
async function listen(app: { listen(o: { host: string; port: number }): Promise<string> }, host: string, port: number): Promise<void> {
  try {
    await app.listen({ host, port });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? `port ${port} is already in use on ${host} (another program, or a kowalski serving another data folder); choose another with --port`
      : code === 'EACCES' ? `this user may not listen on port ${port}; choose a port above 1023 with --port`
      : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' ? `${host} is not an address of this machine; use 127.0.0.1, or 0.0.0.0 for every interface`
      : undefined;
    if (why === undefined) throw err;
    throw new KowalskiError('KW_ERR_LISTEN', `cannot listen on ${host}:${port}: ${why}`, { cause: err });
  }
}

/** Before anything is made: a port that cannot be had fails here, so no data folder is created for nothing. */
async function checkPort(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await listen({
    listen: (o) => new Promise<string>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen(o, () => resolve(''));
    }),
  }, host, port);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

/** On a Postgres store shared by several nodes without `[store] files`: what stays in this node's own data folder, and what to do. */
function unsharedFiles(engine: Engine): string | undefined {
  if (configuredPostgresUrl(engine.config) === undefined || engine.config.store.files !== undefined) return undefined;
  return `the store is shared (Postgres) but [store] files is not set: this node keeps its run folders (${engine.paths.runs}) and the vault's notes (${engine.paths.vault}) ` +
    'in its own data folder, so the other nodes do not see the notes it writes, and a run handed to another node does not find the files its steps wrote. ' +
    'Set [store] files to a folder every node reaches (docs/postgres.md)';
}

export async function serveCommand(opts: { host?: string; port?: string; open?: boolean }): Promise<number> {
  const host = opts.host ?? '127.0.0.1';
  const port = parsePort(opts.port);
  try {
    await checkPort(host, port);
  } catch (err) {
    const here = (err as { cause?: NodeJS.ErrnoException }).cause?.code === 'EADDRINUSE' ? liveServerOf(dataDir(), port) : undefined;
    if (here === undefined) throw err;
    throw new KowalskiError('KW_ERR_LISTEN', `kowalski already serves ${dataDir()} at ${here.url} (process ${here.pid}): \`kowalski open\` signs you in to it; stop it first to start another`, { cause: err });
  }
  const engine = await createEngine({ dataDir: dataDir() });
  try {
    const recovery = await engine.recover();
    const loopback = isLoopback(host);
    const token = loadOrCreateToken(engine.paths.dataDir);
    const { app, loginCodes } = await buildApi(engine, { host, port, recovery, token: token.token });
    await listen(app, host, port);
    const address = app.server.address();
    const actual = typeof address === 'object' && address !== null ? address.port : port;
    // A wildcard bind is reached on 127.0.0.1; one address only on itself (the CLI connects to what is announced).
    const wildcard = host === '0.0.0.0' || host === '::';
    const shown = wildcard ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    const url = `http://${shown}:${actual}/`;
    engine.announce(url);
    await engine.triggers.start();
    await engine.team.start();
    await engine.watchConfig();
    await engine.vaultSearch.start();
    // Each switched-on adapter starts on its own: a broken or slow one is `error`, never a stopped start-up.
    engine.adapters.start().catch((err: unknown) => process.stderr.write(`warning: adapters: ${messageOf(err)}\n`));
    // Listening for a stop before saying where it serves: whoever reads that line may stop it at once.
    const stopAsked = new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    const signIn = signInUrl(url, loginCodes.mint().code);
    const tokenFile = path.join(engine.paths.dataDir, TOKEN_FILE);
    process.stderr.write(`kowalski serving ${engine.paths.dataDir} at ${url}${loopback ? '' : ` (bound to ${host})`}\n${formatRecovery(recovery)}\n`);
    const unshared = unsharedFiles(engine);
    if (unshared !== undefined) process.stderr.write(`warning: ${unshared}\n`);
    process.stderr.write(`sign in to the app with this one-time link (10 minutes; \`kowalski open\` prints another):\n\n  ${signIn}\n\n`);
    if (!loopback && token.created) {
      process.stderr.write(`bound beyond loopback: other machines' clients send this token (kept in ${tokenFile}):\n\n  ${token.token}\n\n`);
    } else if (!loopback) {
      process.stderr.write(`bound beyond loopback: other machines' clients send the token in ${tokenFile}\n`);
    }
    engine.on('engine:warning', ({ message }) => process.stderr.write(`warning: ${message}\n`));
    engine.on('config:reloaded', ({ file }) => process.stderr.write(`kowalski: ${file} changed and was read again (what Setup edits takes effect now; the store, adapters and run limits at the next start)\n`));
    engine.on('engine:stopped', ({ error }) => process.stderr.write(`kowalski: the engine stopped: ${error.message}\n`));
    if (opts.open !== false && canOpenBrowser()) openBrowser(signIn);
    await stopAsked;
    process.stderr.write('kowalski: stopping (unfinished runs continue at the next start)\n');
    await app.close();
    return EXIT.ok;
  } finally {
    await engine.close();
  }
}
