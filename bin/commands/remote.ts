/**
 * The server that owns the data directory, if one runs, and a typed JSON client for its
 * API. `kowalski serve` writes its URL into `<data dir>/kowalski.owner.json` once it
 * listens; a crash (kill -9) can leave the file behind, naming a URL nobody answers —
 * then the caller falls back to an embedded engine, whose lock tells a dead server
 * from a silent one.
 */
import path from 'node:path';
import { KowalskiError, isErrorCode } from '../../core/index.js';
import { VaultConflictError, isRunId, readOwner } from '../../engine/index.js';
import type { Health, LoginCode } from '../../api/index.js';
import { readToken, TOKEN_FILE } from '../../api/token.js';
import type { EditResult, ListRunsFilter, ReviewView, RunRow, RunState, RunView, TriggerView, PluginStatus } from '../../engine/index.js';

/** How long `/api/health` may take before the server counts as not answering. */
const HEALTH_TIMEOUT_MS = 2000;
/** How long any other request may take (they answer once their events are committed: milliseconds). */
const REQUEST_TIMEOUT_MS = 30_000;

export interface ServerAddress {
  /** As the server announced it, ending in `/` (`http://127.0.0.1:8765/`). */
  url: string;
  pid: number;
  dataDir: string;
  /** Sent as `Authorization: Bearer …` (read from `<data dir>/api-token`). */
  token?: string;
}

export type ServerLookup =
  /** No server says it owns the data directory. */
  | { kind: 'none' }
  | { kind: 'server'; api: ApiClient }
  /** The owner file names a server that did not answer: gone (a stale file) or hung. */
  | { kind: 'silent'; url: string; pid: number; why: string };

type Probe = { health: Health } | { status: number } | { why: string };

async function probe(server: ServerAddress): Promise<Probe> {
  let res: Response;
  try {
    res = await fetch(new URL('api/health', server.url), { headers: authHeaders(server), signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
  } catch (err) {
    return { why: failure(err) };
  }
  const body = await res.json().catch(() => undefined) as { ok?: unknown } | undefined;
  if (res.ok && body?.ok === true) return { health: body as Health };
  if (res.status === 401 && body !== undefined) return { status: 401 };
  return { why: `something else answers there (HTTP ${res.status})` };
}

/** Ask the server named in the owner file whether it is there, with the token kept beside it (every route needs it). */
export async function findServer(dataDir: string): Promise<ServerLookup> {
  const owner = readOwner(dataDir);
  if (owner?.url === undefined) return { kind: 'none' };
  const token = readToken(dataDir);
  const server: ServerAddress = { url: owner.url.endsWith('/') ? owner.url : `${owner.url}/`, pid: owner.pid, dataDir, ...(token === undefined ? {} : { token }) };
  const answer = await probe(server);
  if ('status' in answer) {
    const tokenFile = path.join(dataDir, TOKEN_FILE);
    throw new KowalskiError('KW_ERR_UNAUTHORIZED', token === undefined
      ? `the server at ${server.url} (process ${server.pid}) needs the token in ${tokenFile}, which is missing`
      : `the server at ${server.url} (process ${server.pid}) refuses the token in ${tokenFile}`);
  }
  if ('why' in answer) return { kind: 'silent', url: server.url, pid: server.pid, why: answer.why };
  return { kind: 'server', api: apiClient(server) };
}

function authHeaders(server: ServerAddress): Record<string, string> {
  return server.token === undefined ? {} : { authorization: `Bearer ${server.token}` };
}

function failure(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return 'no answer in time';
  return e.cause?.code ?? e.cause?.message ?? e.message;
}

/** The server's `{error: {code, message}}` as the error it was there. */
export function errorFromBody(status: number, text: string, what: string): KowalskiError {
  try {
    const { error } = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; diff?: unknown } };
    // A refused revert carries its diff: the same error an embedded engine throws.
    if (error?.code === 'KW_ERR_VAULT_CONFLICT' && typeof error.message === 'string' && typeof error.diff === 'string') return new VaultConflictError(error.message, error.diff);
    if (error !== undefined && typeof error.message === 'string') return new KowalskiError(isErrorCode(error.code) ? error.code : 'KW_ERR_INTERNAL', error.message);
  } catch {
    // not JSON: reported below with what came
  }
  return new KowalskiError('KW_ERR_INTERNAL', `${what} answered HTTP ${status}: ${text.slice(0, 300)}`);
}

/** The API's routes the CLI uses, typed; every error the server sends comes back as a KowalskiError with its code. */
export interface ApiClient {
  readonly server: ServerAddress;
  /** `ws://…/api/ws` */
  readonly wsUrl: string;
  /** What every request (and the websocket) sends. */
  readonly headers: Record<string, string>;
  health(): Promise<Health>;
  /** A one-time sign-in code for the app (`/?code=…`). */
  mintLoginCode(): Promise<LoginCode>;
  /** Any route, as the typed methods call them (the chat commands build theirs on it). */
  request<T>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<T>;
  startRun(hordeId: string, input: Record<string, string>): Promise<string>;
  listRuns(filter: ListRunsFilter): Promise<{ runs: RunRow[]; nextCursor: string | null }>;
  getRun(runId: string): Promise<RunView>;
  rerun(runId: string, body: { from: string; replayModels: boolean; horde?: string }): Promise<string>;
  approve(runId: string, step?: string, hash?: string): Promise<{ step: string }>;
  review(runId: string, step?: string): Promise<Omit<ReviewView, 'file'>>;
  reviewEdit(runId: string, edit: { hash: string; content: string; step?: string }): Promise<EditResult>;
  deny(runId: string, reason: string, step?: string): Promise<{ step: string }>;
  cancel(runId: string, reason?: string): Promise<{ state: RunState }>;
  resume(runId: string): Promise<{ state: RunState }>;
  raiseBudget(runId: string, raise: Record<string, unknown>): Promise<{ state: RunState }>;
  listTriggers(): Promise<{ triggers: TriggerView[] }>;
  setTrigger(hordeId: string, name: string, enabled: boolean): Promise<TriggerView>;
  listPlugins(): Promise<{ plugins: PluginStatus[] }>;
  /** Grant or revoke, audited as `by`. */
  setPluginGrant(name: string, grant: boolean, by: string): Promise<PluginStatus>;
}

export function apiClient(server: ServerAddress): ApiClient {
  const headers = authHeaders(server);
  const runPath = (runId: string, rest = ''): string => {
    // The same answer an embedded engine gives, rather than the route's schema error.
    if (!isRunId(runId)) throw new KowalskiError('KW_ERR_RUN_NOT_FOUND', `no run ${runId} in ${server.dataDir}`);
    return `api/runs/${runId}${rest}`;
  };
  const request = async <T>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> => {
    const what = `the server at ${server.url} (process ${server.pid})`;
    let res: Response;
    let text: string;
    try {
      res = await fetch(new URL(route, server.url), {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      text = await res.text();
    } catch (err) {
      throw new KowalskiError('KW_ERR_SERVER_UNREACHABLE', `${what} did not answer ${method} /${route.split('?')[0]}: ${failure(err)}`, { cause: err });
    }
    if (!res.ok) throw errorFromBody(res.status, text, what);
    return JSON.parse(text) as T;
  };
  return {
    server,
    wsUrl: new URL('api/ws', server.url).href.replace(/^http/, 'ws'),
    headers,
    health: () => request('GET', 'api/health'),
    mintLoginCode: () => request('POST', 'api/auth/codes', {}),
    request,
    async startRun(hordeId, input) {
      return (await request<{ runId: string }>('POST', `api/hordes/${encodeURIComponent(hordeId)}/runs`, { input, provenance: 'cli' })).runId;
    },
    listRuns(filter) {
      const query = new URLSearchParams();
      for (const [k, v] of Object.entries(filter)) if (v !== undefined) query.set(k, String(v));
      return request('GET', `api/runs?${query.toString()}`);
    },
    getRun: async (runId) => request('GET', runPath(runId)),
    rerun: async (runId, body) => (await request<{ runId: string }>('POST', runPath(runId, '/rerun'), body)).runId,
    approve: async (runId, step, hash) => request('POST', runPath(runId, '/approve'), { ...(step === undefined ? {} : { step }), ...(hash === undefined ? {} : { hash }) }),
    review: async (runId, step) => request('GET', runPath(runId, `/review${step === undefined ? '' : `?step=${encodeURIComponent(step)}`}`)),
    reviewEdit: async (runId, edit) => request('POST', runPath(runId, '/review'), edit),
    deny: async (runId, reason, step) => request('POST', runPath(runId, '/deny'), { reason, ...(step === undefined ? {} : { step }) }),
    cancel: async (runId, reason) => request('POST', runPath(runId, '/cancel'), reason === undefined ? {} : { reason }),
    resume: async (runId) => request('POST', runPath(runId, '/resume'), {}),
    raiseBudget: async (runId, raise) => request('POST', runPath(runId, '/budget'), raise),
    listTriggers: () => request('GET', 'api/triggers'),
    setTrigger: (hordeId, name, enabled) => request('POST', `api/triggers/${encodeURIComponent(hordeId)}/${encodeURIComponent(name)}/${enabled ? 'enable' : 'disable'}`, {}),
    listPlugins: () => request('GET', 'api/plugins'),
    setPluginGrant: (name, grant, by) => request('POST', `api/plugins/${encodeURIComponent(name)}/${grant ? 'grant' : 'revoke'}`, { by }),
  };
}
