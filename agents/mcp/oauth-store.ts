/**
 * The sign-ins of MCP servers reached over HTTP, one file per server:
 * `<data>/secrets/mcp-oauth/<server>.json`, 0600 in folders 0700, written whole (a
 * temporary file renamed into place). What the OAuth flow of `kowalski mcp login` left:
 * the client registered with the authorization server, the tokens, where the discovery
 * found that server. Never config.toml, never shown back; a backup leaves `secrets/` out
 * unless made `--with-secrets`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KowalskiError, messageOf } from '../../core/index.js';

/** The data folder's folder of secrets (a backup leaves it out without `--with-secrets`). */
export const SECRETS_FOLDER = 'secrets';
/** The sign-ins' folder, under SECRETS_FOLDER. */
const OAUTH_FOLDER = 'mcp-oauth';
const FORMAT = 'kowalski-mcp-oauth';

/** Tokens as the authorization server gave them, with when they expire. */
export interface StoredTokens {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  scope?: string;
  /** Seconds the access token lasts, as the server said when it was issued. */
  expires_in?: number;
  /** When the access token expires, ms since the epoch (absent when the server gave no expires_in). */
  expires_at?: number;
  /** The authorization server that issued them (the SDK keeps a refresh token to its issuer). */
  issuer?: string;
}

/** One server's sign-in, as stored. Fields of the SDK's own shapes are kept as it gave them. */
export interface McpSignIn {
  format: typeof FORMAT;
  /** The server's name in config.toml. */
  server: string;
  /** The server's URL when it was signed in to (a sign-in for another URL is not used). */
  url: string;
  /** The loopback redirect URI registered with the client. */
  redirectUrl: string;
  /** The client registered with the authorization server (dynamic registration), as the SDK returned it. */
  client?: Record<string, unknown>;
  tokens?: StoredTokens;
  /** The PKCE verifier of a sign-in under way. */
  codeVerifier?: string;
  /** What discovery found (the authorization server and its metadata), as the SDK returned it. */
  discovery?: Record<string, unknown>;
  /** When the authorization server refused the refresh token (ISO time): the tokens were dropped. */
  refusedAt?: string;
}

/** The file of `server`'s sign-in in the data folder `dataDir`. */
export function signInFile(dataDir: string, server: string): string {
  return path.join(dataDir, SECRETS_FOLDER, OAUTH_FOLDER, `${server}.json`);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What is wrong with a parsed sign-in, or undefined. */
function problemOf(v: unknown, server: string): string | undefined {
  if (!isRecord(v)) return 'it does not hold a JSON object';
  if (v.format !== FORMAT) return `its "format" is not "${FORMAT}"`;
  if (v.server !== server) return `it is the sign-in of ${JSON.stringify(v.server)}, not of "${server}"`;
  for (const key of ['url', 'redirectUrl'] as const) if (typeof v[key] !== 'string') return `"${key}" is missing or not a string`;
  for (const key of ['client', 'discovery'] as const) if (v[key] !== undefined && !isRecord(v[key])) return `"${key}" is not an object`;
  const t = v.tokens;
  if (t !== undefined && (!isRecord(t) || typeof t.access_token !== 'string' || typeof t.token_type !== 'string')) return '"tokens" lacks access_token or token_type';
  return undefined;
}

/**
 * `server`'s sign-in, or undefined when there is none. A file that cannot be read or is not
 * one kowalski wrote is KW_ERR_MCP_OAUTH_FILE naming it.
 */
export function readSignIn(dataDir: string, server: string): McpSignIn | undefined {
  const file = signInFile(dataDir, server);
  const bad = (why: string, cause?: unknown): KowalskiError => new KowalskiError('KW_ERR_MCP_OAUTH_FILE',
    `the sign-in of MCP server "${server}" in ${file} ${why}: remove the file and run \`kowalski mcp login ${server}\` again`, { where: { file }, ...(cause === undefined ? {} : { cause }) });
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw bad(`cannot be read (${messageOf(err)})`, err);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw bad('is not JSON (damaged, or edited by hand)', err);
  }
  const problem = problemOf(parsed, server);
  if (problem !== undefined) throw bad(`is not a sign-in kowalski wrote: ${problem}`);
  return parsed as McpSignIn;
}

/** Write `server`'s sign-in: a 0600 file in 0700 folders, replaced whole. */
export function writeSignIn(dataDir: string, signIn: McpSignIn): void {
  const file = signInFile(dataDir, signIn.server);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // mkdir's mode applies only to folders it creates; one made by hand is narrowed too.
  for (const dir of [path.join(dataDir, SECRETS_FOLDER), path.dirname(file)]) fs.chmodSync(dir, 0o700);
  const temp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(temp, `${JSON.stringify(signIn, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(temp, 0o600);
  fs.renameSync(temp, file);
}

/** A cheap token of the file's version (mtime, size, inode), to notice another process's write; undefined when absent. */
export function signInVersion(dataDir: string, server: string): string | undefined {
  const stat = fs.statSync(signInFile(dataDir, server), { throwIfNoEntry: false });
  return stat === undefined ? undefined : `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
}
