/**
 * What the engine and a plugin's process (plugin-host.mjs) say to each other over the
 * child's IPC channel. Plain JSON; a message from the plugin's side is untrusted (the
 * plugin's own code can write on the same channel), so the engine checks every field it
 * reads (`parseHostMessage`).
 */

/** An error as it crosses the channel. `permission` and `resource` come with Node's ERR_ACCESS_DENIED. */
export interface WireError {
  code: string;
  message: string;
  permission?: string;
  resource?: string;
}

/** A plugin's `kowalski.fetch(url, init)`, as the plugin asked for it. */
export interface FetchRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** The answer to a fetch; `body` is base64. */
export interface FetchAnswer {
  url: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface HostInit {
  type: 'init';
  plugin: string;
  dataDir: string;
  /** The variables it may see (its `env` grant): the host removes any other from its environment (bwrap sets PWD). */
  env: string[];
  maxResultBytes: number;
  /** Each tool's module as a file: URL, and the export to call. */
  tools: { name: string; url: string; export: string }[];
  /** Each adapter's module (`[[adapters]]`), and the export: an object with `receive` and `send` functions. */
  adapters: { name: string; url: string; export: string }[];
}

/** What a call asks of a plugin adapter: verify and read an inbound request, or send an answer back. */
export type AdapterMethod = 'receive' | 'send';

export type EngineMessage =
  | HostInit
  /** A tool's call; with `adapter`, a call of adapter `tool`'s method (its answer comes back as `{content: '', structured}`). */
  | { type: 'call'; id: number; tool: string; args: Record<string, unknown>; adapter?: AdapterMethod }
  | { type: 'cancel'; id: number }
  | { type: 'fetched'; id: number; ok: true; response: FetchAnswer }
  | { type: 'fetched'; id: number; ok: false; error: WireError };

export type HostMessage =
  | { type: 'ready' }
  | { type: 'start-failed'; error: WireError }
  | { type: 'result'; id: number; ok: true; output: unknown }
  | { type: 'result'; id: number; ok: false; error: WireError }
  | { type: 'fetch'; id: number; url: string; init: FetchRequest };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';

function wireError(v: unknown): WireError {
  if (!isObject(v)) return { code: 'unknown', message: 'the plugin sent an error without details' };
  const out: WireError = { code: isString(v.code) ? v.code : 'unknown', message: isString(v.message) ? v.message : String(v.message) };
  if (isString(v.permission)) out.permission = v.permission;
  if (isString(v.resource)) out.resource = v.resource;
  return out;
}

function stringRecord(v: unknown): Record<string, string> | undefined {
  if (!isObject(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(v)) if (isString(value)) out[key] = value;
  return out;
}

function fetchRequest(v: unknown): FetchRequest {
  const init: FetchRequest = {};
  if (!isObject(v)) return init;
  if (isString(v.method)) init.method = v.method;
  const headers = stringRecord(v.headers);
  if (headers !== undefined) init.headers = headers;
  if (isString(v.body)) init.body = v.body;
  return init;
}

/** A message from the plugin's side as a HostMessage, or undefined when it is not one (it is then ignored). */
export function parseHostMessage(v: unknown): HostMessage | undefined {
  if (!isObject(v)) return undefined;
  switch (v.type) {
    case 'ready': return { type: 'ready' };
    case 'start-failed': return { type: 'start-failed', error: wireError(v.error) };
    case 'result':
      if (typeof v.id !== 'number') return undefined;
      return v.ok === true ? { type: 'result', id: v.id, ok: true, output: v.output } : { type: 'result', id: v.id, ok: false, error: wireError(v.error) };
    case 'fetch':
      if (typeof v.id !== 'number' || !isString(v.url)) return undefined;
      return { type: 'fetch', id: v.id, url: v.url, init: fetchRequest(v.init) };
    default: return undefined;
  }
}
