/**
 * The HTTP API client. JSON in and out; an `{error: {code, message}}` answer becomes a thrown
 * ApiError with that code. Adds the stored bearer token; on a 401 asks the operator for the
 * token once and retries.
 */
import type { TokenPrompter, TokenStore } from './auth';
import { messageOf } from './message-of';
import type {
  AdapterAdd, AdapterChange, AdapterSetup, AdaptersSaved, AdapterStatus,
  McpServerAdd, McpServerEdit, McpServerSetup, McpServerTest, McpServersSaved, McpSignInStart, McpSignInStatus,
  NodesView,
  AgentList, AgentProfile, AgentSource, ApiErrorBody, BirthResult, BundleInstall, BundleReview, ChatSessionSummary, ChatSessionView, DraftSummary, DraftView, Health, HordeDetail, HordeOrigin, HordeReadiness,
  HordeDraft, HordeSummary, PluginAuditEntry, PluginStatus, Problem, StepKindSummary,
  BudgetLimits, BudgetView, ModelList, ModelListProvider, NoteInfo, NoteView, NoteWrite, ReviewEditResult, ReviewView, RunPage, RunState, RunView, SearchAnswer, Setup, SetupPatch, SetupSaved, TeamProblem, TraceDetail, TracePage, TraceSummary, TriggerView,
} from './types';

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(readonly code: string, message: string, readonly status: number, readonly details: Record<string, unknown> = {}) {
    super(message);
  }
}

export interface RunFilter { status?: RunState | undefined; horde?: string | undefined; limit?: number; cursor?: string | undefined }

export interface ApiOptions {
  tokens: TokenStore;
  prompter: TokenPrompter;
  /** Called after the operator pasted a new token (the socket reconnects with it). */
  onToken?: () => void;
  fetch?: typeof fetch;
}

export type Api = ReturnType<typeof createApi>;

export function createApi(opts: ApiOptions) {
  const doFetch = opts.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));

  async function send(path: string, init: RequestInit, retried = false): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('Accept', 'application/json');
    const token = opts.tokens.get();
    if (token !== null && token !== '') headers.set('Authorization', `Bearer ${token}`);
    let res: Response;
    try {
      res = await doFetch(path, { ...init, headers });
    } catch (err) {
      throw new ApiError('KW_ERR_NETWORK', `cannot reach the server: ${messageOf(err)}`, 0);
    }
    if (res.status === 401 && !retried) {
      const pasted = await opts.prompter.request(token !== null && token !== '');
      if (pasted !== null && pasted.trim() !== '') {
        opts.tokens.set(pasted.trim());
        opts.onToken?.();
        return send(path, init, true);
      }
    }
    if (!res.ok) throw await toError(res);
    return res;
  }

  async function json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { 'Content-Type': 'application/json' };
    }
    const res = await send(path, init);
    return await res.json() as T;
  }

  const enc = encodeURIComponent;

  return {
    health: () => json<Health>('GET', '/api/health'),
    hordes: async () => (await json<{ hordes: HordeSummary[] }>('GET', '/api/hordes')).hordes,
    horde: (id: string, origin?: HordeOrigin) => json<HordeDetail>('GET', `/api/hordes/${enc(id)}${origin === undefined ? '' : `?origin=${origin}`}`),
    validateHorde: (id: string) => json<{ valid: boolean; problems: Problem[] }>('POST', `/api/hordes/${enc(id)}/validate`, {}),
    /** Whether the horde's model steps have a model that answers (a few seconds at most). */
    hordeReadiness: (id: string) => json<HordeReadiness>('GET', `/api/hordes/${enc(id)}/readiness`),
    startRun: (id: string, input: Record<string, string>) =>
      json<{ runId: string }>('POST', `/api/hordes/${enc(id)}/runs`, { input }),
    runs: (filter: RunFilter) => json<RunPage>('GET', `/api/runs${query(filter)}`),
    run: (id: string) => json<RunView>('GET', `/api/runs/${enc(id)}`),
    /** A file of the run's workdir, fetched with the auth header (a plain link could not carry it). */
    artifact: async (runId: string, file: string) =>
      (await send(`/api/runs/${enc(runId)}/artifacts/${file.split('/').map(enc).join('/')}`, { method: 'GET' })).blob(),
    approve: (runId: string, step?: string) => json<{ step: string }>('POST', `/api/runs/${enc(runId)}/approve`, step === undefined ? {} : { step }),
    /** Approve one step only while it waits with the command hash the operator read. */
    approveHash: (runId: string, step: string, hash: string) => json<{ step: string }>('POST', `/api/runs/${enc(runId)}/approve`, { step, hash }),
    deny: (runId: string, reason: string, step?: string) =>
      json<{ step: string }>('POST', `/api/runs/${enc(runId)}/deny`, step === undefined ? { reason } : { step, reason }),
    /** The artifact a review step waits on, with the hash an approval or an edit binds to. */
    review: (runId: string, step: string) => json<ReviewView>('GET', `/api/runs/${enc(runId)}/review?step=${enc(step)}`),
    /** Replace the reviewed artifact with `content` and approve, only while it is still the one shown (`hash`). */
    reviewEdit: (runId: string, step: string, hash: string, content: string) =>
      json<ReviewEditResult>('POST', `/api/runs/${enc(runId)}/review`, { step, hash, content }),
    cancel: (runId: string, reason?: string) =>
      json<{ state: RunState }>('POST', `/api/runs/${enc(runId)}/cancel`, reason === undefined || reason === '' ? {} : { reason }),
    resume: (runId: string) => json<{ state: RunState }>('POST', `/api/runs/${enc(runId)}/resume`, {}),
    /** New limits for the run's budget; a run parked for it goes on. */
    raiseBudget: (runId: string, limits: BudgetLimits) => json<{ state: RunState; budget: BudgetView }>('POST', `/api/runs/${enc(runId)}/budget`, limits),
    /** A new run from `from`: the steps before it take this run's results (docs/rerun.md). */
    rerun: (runId: string, from: string, replayModels: boolean) =>
      json<{ runId: string }>('POST', `/api/runs/${enc(runId)}/rerun`, { from, replayModels }),
    /** The agent profiles in effect and every profile file's problems. */
    agents: () => json<AgentList>('GET', '/api/agents'),
    agent: (name: string) => json<AgentSource>('GET', `/api/agents/${enc(name)}`),
    /** What saving `text` as `name` would say; nothing is written. */
    validateAgent: (name: string, text: string) => json<{ problems: TeamProblem[] }>('POST', '/api/agents/validate', { name, text }),
    saveAgent: (name: string, text: string) => json<AgentProfile>('PUT', `/api/agents/${enc(name)}`, { text }),
    /** Removes the user's profile (an override: the built-in is back). */
    removeAgent: async (name: string) => { await send(`/api/agents/${enc(name)}`, { method: 'DELETE' }); },
    /** The run's model calls, newest first; 500 is the most one page may hold. */
    traces: (runId: string) => json<TracePage>('GET', `/api/traces?run=${enc(runId)}&limit=500`),
    trace: (id: number) => json<TraceDetail>('GET', `/api/traces/${id}`),
    setup: () => json<Setup>('GET', '/api/setup'),
    putSetup: (patch: SetupPatch) => json<SetupSaved>('PUT', '/api/setup', patch),
    /** The models the saved settings' Ollama or OpenAI-compatible server lists. */
    setupModels: (provider: ModelListProvider) => json<ModelList>('GET', `/api/setup/models?provider=${provider}`),
    /** Each MCP server reached over HTTP and whether kowalski holds a sign-in for it. */
    mcpSignIns: async () => (await json<{ servers: McpSignInStatus[] }>('GET', '/api/setup/mcp')).servers,
    /** Starts a sign-in: the authorization page to open; the browser comes back to the server. */
    startMcpSignIn: (server: string) => json<McpSignInStart>('POST', `/api/setup/mcp/${enc(server)}/sign-in`, {}),
    /** Every server of `[[mcp.servers]]` (never a token or an env value). */
    mcpServers: async () => (await json<{ servers: McpServerSetup[] }>('GET', '/api/setup/mcp/servers')).servers,
    /** Adds a server to config.toml (its comments kept): the servers now and how the file was written. */
    addMcpServer: (server: McpServerAdd) => json<McpServersSaved>('POST', '/api/setup/mcp/servers', server),
    /** The server's new entry in its place; a token and env values not given are kept. */
    editMcpServer: (name: string, edit: McpServerEdit) => json<McpServersSaved>('PUT', `/api/setup/mcp/servers/${enc(name)}`, edit),
    /** Starts or reaches the server and lists its tools (at most 30 s); a server that does not answer is `ok: false`. */
    testMcpServer: (name: string) => json<McpServerTest>('POST', `/api/setup/mcp/servers/${enc(name)}/test`, {}),
    removeMcpServer: (name: string) => json<McpServersSaved>('DELETE', `/api/setup/mcp/servers/${enc(name)}`),
    /** Every `[adapters.<name>]` of config.toml with its state (a secret only as its variable's name). */
    setupAdapters: async () => (await json<{ adapters: AdapterSetup[] }>('GET', '/api/setup/adapters')).adapters,
    /** Adds an adapter to config.toml (its comments kept); it runs from the server's next start. */
    addAdapter: (adapter: AdapterAdd) => json<AdaptersSaved>('POST', '/api/setup/adapters', adapter),
    /** Keys of `[adapters.<name>]` changed in place (null removes one); the others stay. */
    changeSetupAdapter: (name: string, change: AdapterChange) => json<AdaptersSaved>('PATCH', `/api/setup/adapters/${enc(name)}`, change),
    removeSetupAdapter: (name: string) => json<AdaptersSaved>('DELETE', `/api/setup/adapters/${enc(name)}`),
    /** Every trigger of every valid horde, with the operator's switch. */
    triggers: async () => (await json<{ triggers: TriggerView[] }>('GET', '/api/triggers')).triggers,
    /** The trigger as the server keeps it after the change. */
    enableTrigger: (horde: string, name: string) => json<TriggerView>('POST', `/api/triggers/${enc(horde)}/${enc(name)}/enable`, {}),
    disableTrigger: (horde: string, name: string) => json<TriggerView>('POST', `/api/triggers/${enc(horde)}/${enc(name)}/disable`, {}),
    /** Every configured adapter's status. */
    adapters: async () => (await json<{ adapters: AdapterStatus[] }>('GET', '/api/adapters')).adapters,
    /** The adapter as the server keeps it after the switch (enable answers once it runs or failed). */
    enableAdapter: (name: string) => json<AdapterStatus>('POST', `/api/adapters/${enc(name)}/enable`, {}),
    disableAdapter: (name: string) => json<AdapterStatus>('POST', `/api/adapters/${enc(name)}/disable`, {}),
    /** The nodes sharing the run store (this one marked) and the latest hand-overs of runs between them. */
    nodes: () => json<NodesView>('GET', '/api/nodes'),
    /** Every plugin found, with its state, permissions in plain words and failures. */
    plugins: async () => (await json<{ plugins: PluginStatus[] }>('GET', '/api/plugins')).plugins,
    /** One plugin with the audit of its grants and revokes (oldest first). */
    plugin: (name: string) => json<{ plugin: PluginStatus; audit: PluginAuditEntry[] }>('GET', `/api/plugins/${enc(name)}`),
    /** Looks for plugins again; answers the new list. */
    rescanPlugins: async () => (await json<{ plugins: PluginStatus[] }>('POST', '/api/plugins/rescan', {})).plugins,
    /** The plugin as the server keeps it after the change (audited as `operator (api)`); refused (KW_ERR_PLUGIN_CHANGED) unless it still is the version and permissions shown. */
    grantPlugin: (name: string, shown: { version: string; permissionsHash: string }) =>
      json<PluginStatus>('POST', `/api/plugins/${enc(name)}/grant`, shown),
    /** The plugin as the server keeps it after the change (audited as `operator (api)`). */
    revokePlugin: (name: string) => json<PluginStatus>('POST', `/api/plugins/${enc(name)}/revoke`, {}),
    /** Sends a `.kwf.zip` to be checked and staged; nothing is installed until `installBundle`. */
    uploadBundle: async (zip: Blob) =>
      await (await send('/api/bundles', { method: 'POST', body: zip, headers: { 'Content-Type': 'application/zip' } })).json() as BundleReview,
    installBundle: (reviewId: string, choice: BundleInstall) => json<{ hordeId: string }>('POST', `/api/bundles/${enc(reviewId)}/install`, choice),
    /** Drops a staged bundle. */
    discardBundle: async (reviewId: string) => { await send(`/api/bundles/${enc(reviewId)}`, { method: 'DELETE' }); },
    /** The horde as a `.kwf.zip`, fetched with the auth header (a plain link could not carry it). */
    exportBundle: async (id: string) => (await send(`/api/hordes/${enc(id)}/bundle`, { method: 'GET' })).blob(),
    chatSessions: async () => (await json<{ sessions: ChatSessionSummary[] }>('GET', '/api/chat/sessions')).sessions,
    chatSession: (id: string) => json<ChatSessionView>('GET', `/api/chat/sessions/${enc(id)}`),
    createChat: (agent: string) => json<ChatSessionSummary>('POST', '/api/chat/sessions', { agent }),
    /** Answered once the message is committed; the answer streams on the websocket. */
    sendChat: (id: string, text: string) => json<{ sessionId: string; turn: number }>('POST', `/api/chat/sessions/${enc(id)}/messages`, { text }),
    /** More model calls for the turn its budget stopped; the same turn goes on. */
    continueChat: (id: string, extraIterations: number) =>
      json<{ sessionId: string; turn: number }>('POST', `/api/chat/sessions/${enc(id)}/continue`, { extraIterations }),
    /** A chat session's model calls (every agent, every turn), newest first. */
    sessionTraces: (sessionId: string) => json<TracePage>('GET', `/api/traces?session=${enc(sessionId)}&limit=500`),
    /** The calls of the agents one model call delegated to. */
    vaultNotes: async () => (await json<{ notes: NoteInfo[] }>('GET', '/api/vault/notes')).notes,
    vaultNote: (path: string) => json<NoteView>('GET', `/api/vault/note?path=${enc(path)}`),
    /** Every note read again and (semantic search on) embedded again; answers when done (its progress comes as `work` frames of `vault-reindex`). */
    reindexVault: () => json<{ notes: number; chunks: number }>('POST', '/api/vault/reindex', {}),
    vaultSearch: (q: string, semantic: boolean) => json<SearchAnswer>('GET', `/api/vault/search?q=${enc(q)}&semantic=${semantic}&limit=20`),
    writes: async (path?: string) => (await json<{ writes: NoteWrite[] }>('GET', `/api/writes?limit=100${path === undefined ? '' : `&path=${enc(path)}`}`)).writes,
    write: (id: number) => json<{ write: NoteWrite; diff: string }>('GET', `/api/writes/${id}`),
    revertWrite: async (id: number) => (await json<{ write: NoteWrite }>('POST', `/api/writes/${id}/revert`, { by: 'app' })).write,
    traceChildren: async (id: number) => (await json<{ traces: TraceSummary[] }>('GET', `/api/traces/${id}/children`)).traces,
    drafts: async () => (await json<{ drafts: DraftSummary[] }>('GET', '/api/rookery/drafts')).drafts,
    stepKinds: async () => (await json<{ kinds: StepKindSummary[] }>('GET', '/api/rookery/kinds')).kinds,
    /** A new, empty draft; `withChat`: with a conversation with the builder agent (422 KW_ERR_NO_MODEL without a model). */
    createDraft: (withChat: boolean) => json<DraftView>('POST', '/api/rookery/drafts', { with_chat: withChat }),
    draft: (id: string) => json<DraftView>('GET', `/api/rookery/drafts/${enc(id)}`),
    /** A direct edit: the whole draft; answered with its problems and stage. */
    putDraft: (id: string, draft: HordeDraft) => json<DraftView>('PUT', `/api/rookery/drafts/${enc(id)}`, { draft }),
    /** Writes the horde folder (409 KW_ERR_HORDE_EXISTS when another horde has the id, unless `overwrite`). */
    birthDraft: (id: string, overwrite: boolean) => json<BirthResult>('POST', `/api/rookery/drafts/${enc(id)}/birth`, { overwrite }),
  };
}

function query(filter: RunFilter): string {
  const q = new URLSearchParams();
  if (filter.status !== undefined) q.set('status', filter.status);
  if (filter.horde !== undefined && filter.horde !== '') q.set('horde', filter.horde);
  if (filter.limit !== undefined) q.set('limit', String(filter.limit));
  if (filter.cursor !== undefined) q.set('cursor', filter.cursor);
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}

async function toError(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as Partial<ApiErrorBody>;
    if (typeof body.error?.code === 'string') {
      // What an answer says beside code and message (a revert's conflict carries its diff).
      const { code, message, ...details } = body.error;
      return new ApiError(code, message ?? '', res.status, details);
    }
  } catch {
    // Not JSON: a proxy's page or an empty body; described below.
  }
  return new ApiError(`HTTP_${res.status}`, text.slice(0, 300) || res.statusText || `the server answered ${res.status}`, res.status);
}

/** Any thrown value as an ApiError, for display. */
export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError('KW_ERR_CLIENT', messageOf(err), 0);
}
