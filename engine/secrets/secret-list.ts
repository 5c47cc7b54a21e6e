/**
 * Every secret the data folder holds, in one list: a backup without `--with-secrets` leaves
 * each out, the API and the app show each masked, and an error or log line carrying one has
 * it replaced. Secrets kept in environment variables (`ANTHROPIC_API_KEY`, `BRAVE_API_KEY`,
 * a trigger's `secret_env`, an adapter's `<key>_env`, the variables a plugin's grant lets it
 * read) are never in the data folder: only their names are, and names are not secrets.
 */

/** Files of the data folder's top level that are secrets as a whole. */
export const SECRET_FILES: readonly string[] = ['api-token'];

/**
 * Folders of the data folder's top level that hold only secrets: `secrets/` (0700), where
 * `kowalski mcp login` keeps each MCP server's sign-in (`secrets/mcp-oauth/<server>.json`,
 * 0600: its OAuth client and tokens).
 */
export const SECRET_FOLDERS: readonly string[] = ['secrets'];

/** A key whose name says it holds a secret (`signing_secret`, `bot_token`, `caldav.password`…); `<key>_env` names a variable and is not one. */
export const SECRET_KEY_NAME = /(secret|token|password|passwd|api_key|private_key)$/i;

/**
 * Where config.toml holds secrets. A path's segments: a table key, `*` any key of a table,
 * `[]` after a key every element of that array, `~` any key at any depth below whose name
 * says it holds a secret (SECRET_KEY_NAME).
 */
export const CONFIG_SECRETS: readonly { path: string; what: string }[] = [
  { path: 'providers.*.api_key', what: "a model provider's key" },
  { path: 'tools.web_search.api_key', what: 'the web search key' },
  { path: 'webhook_secrets', what: "the secrets of hordes' webhook triggers" },
  { path: 'adapters.*.~', what: "an adapter's secrets (signing_secret, bot_token, secret, imap.password, caldav.password…)" },
  { path: 'mcp.servers[].token', what: "an MCP server's bearer token" },
  { path: 'mcp.servers[].env', what: "an MCP server's environment (where keys usually go)" },
  { path: 'store.url', what: "the PostgreSQL URL's password (the URL is kept without it)" },
];

/** One secret found in a parsed config: its dotted name (`mcp.servers[0].token`), the table holding it and its key there. */
export interface FoundSecret {
  name: string;
  table: Record<string, unknown>;
  key: string;
}

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function bySecretName(table: Record<string, unknown>, name: string, out: FoundSecret[]): void {
  for (const [key, value] of Object.entries(table)) {
    if (SECRET_KEY_NAME.test(key)) out.push({ name: `${name}.${key}`, table, key });
    else if (isTable(value)) bySecretName(value, `${name}.${key}`, out);
  }
}

function follow(value: unknown, segments: readonly string[], name: string, out: FoundSecret[]): void {
  const [head, ...rest] = segments;
  if (head === undefined || !isTable(value)) return;
  if (head === '~') return bySecretName(value, name, out);
  const join = (key: string): string => (name === '' ? key : `${name}.${key}`);
  if (head === '*') {
    for (const [key, v] of Object.entries(value)) follow(v, rest, join(key), out);
    return;
  }
  const array = head.endsWith('[]');
  const key = array ? head.slice(0, -2) : head;
  if (!(key in value)) return;
  if (array) {
    const list = value[key];
    if (Array.isArray(list)) list.forEach((item, i) => follow(item, rest, `${join(key)}[${i}]`, out));
  } else if (rest.length === 0) {
    out.push({ name: join(key), table: value, key });
  } else {
    follow(value[key], rest, join(key), out);
  }
}

/** Every secret of CONFIG_SECRETS present in a parsed config.toml. */
export function configSecrets(raw: Record<string, unknown>): FoundSecret[] {
  const out: FoundSecret[] = [];
  for (const s of CONFIG_SECRETS) follow(raw, s.path.split('.'), '', out);
  // An empty table holds no secret (config.example.toml, which `kowalski init` writes, has an empty [webhook_secrets]).
  const empty = (v: unknown): boolean => isTable(v) && Object.keys(v).length === 0;
  return out.filter((f) => (f.name !== 'store.url' || urlPassword(f.table[f.key]) !== undefined) && !empty(f.table[f.key]));
}

/** The password of a URL string, or undefined. */
export function urlPassword(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const password = new URL(value).password;
    return password === '' ? undefined : decodeURIComponent(password);
  } catch {
    return undefined;
  }
}

/** The text values a found secret holds (a table's strings, a URL's password), for scrubbing messages. */
export function secretValues(found: FoundSecret): string[] {
  const value = found.table[found.key];
  if (found.name === 'store.url') return [urlPassword(value) ?? ''].filter((v) => v !== '');
  const out: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === 'string' && v !== '') out.push(v);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (isTable(v)) Object.values(v).forEach(collect);
  };
  collect(value);
  return out;
}

/** Remove a found secret from its table (a PostgreSQL URL keeps everything but its password). */
export function removeSecret(found: FoundSecret): void {
  if (found.name !== 'store.url') {
    delete found.table[found.key];
    return;
  }
  const url = new URL(String(found.table[found.key]));
  url.password = '';
  found.table[found.key] = url.toString();
}

/** The shortest secret value worth replacing in a message (shorter ones would replace ordinary words). */
const SCRUB_MIN = 4;

/** `message` with every one of `values` (of at least 4 characters) replaced by `(secret)`. */
export function scrubSecrets(message: string, values: Iterable<string>): string {
  let out = message;
  for (const v of [...values].sort((a, b) => b.length - a.length)) {
    if (v.length >= SCRUB_MIN) out = out.split(v).join('(secret)');
  }
  return out;
}
