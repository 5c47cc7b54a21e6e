/**
 * `kowalski chat` through the server that owns the data directory: sessions and
 * messages over its HTTP routes, a turn followed on its websocket (`chat-follow` after
 * the last sequence number known, then `chat-event` and `chat-token` frames) until the
 * turn's `turn.finished`. A dropped connection is opened again after the last event
 * seen, so no event is told twice and none is missed (tokens sent meanwhile are).
 */
import WebSocket from 'ws';
import type { RawData } from 'ws';
import { KowalskiError, isErrorCode } from '../../core/index.js';
import { DELEGATE_TOOL, isSessionId, readTeam } from '../../engine/index.js';
import type { ChatSessionSummary, TraceSummary, TurnOutcome, TurnToolCall, TurnView } from '../../engine/index.js';
import type { ServerFrame } from '../../api/index.js';
import type { AgentBrief, ChatBackend, ChatEvent, ChatSession, TurnWatch } from './chat-types.js';
import { errorFromBody } from './remote.js';
import type { ApiClient } from './remote.js';

type Finished = Extract<ChatEvent, { type: 'turn.finished' }>;

/** Waits before each new attempt after the connection drops (about 9 s in all). */
const RECONNECT_MS = [100, 200, 400, 800, 1600, 2000, 2000, 2000];
const HANDSHAKE_TIMEOUT_MS = 5000;

interface Follower {
  /** Resolves with the first `turn.finished` of a turn from `turn` on. */
  finished(turn: number): Promise<Finished>;
  close(): void;
}

/** Follow the session's events after `after`; resolves once the backlog is sent (the follower is live). */
function follow(api: ApiClient, sessionId: string, after: number, watch: TurnWatch): Promise<Follower> {
  return new Promise((resolveLive, rejectLive) => {
    let last = after;
    let attempt = 0;
    let socket: WebSocket | undefined;
    let retry: NodeJS.Timeout | undefined;
    let closed = false;
    let failure: Error | undefined;
    const ends: Finished[] = [];
    const waiters: { turn: number; resolve: (e: Finished) => void; reject: (err: Error) => void }[] = [];
    const settle = (): void => {
      for (const w of [...waiters]) {
        const end = ends.find((e) => e.turn >= w.turn);
        if (end === undefined && failure === undefined) continue;
        waiters.splice(waiters.indexOf(w), 1);
        if (end !== undefined) w.resolve(end);
        else w.reject(failure!);
      }
    };
    const stop = (): void => {
      closed = true;
      clearTimeout(retry);
      socket?.terminate();
    };
    const fail = (err: Error): void => {
      failure = err;
      rejectLive(err);
      settle();
      stop();
    };
    const follower: Follower = {
      finished: (turn) => new Promise((resolve, reject) => {
        waiters.push({ turn, resolve, reject });
        settle();
      }),
      close: stop,
    };
    const onFrame = (frame: ServerFrame): void => {
      if (frame.type === 'chat-event' && frame.sessionId === sessionId && frame.seq > last) {
        last = frame.seq;
        watch.onEvent(frame.event);
        if (frame.event.type === 'turn.finished') {
          ends.push(frame.event);
          settle();
        }
      } else if (frame.type === 'chat-token' && frame.sessionId === sessionId) {
        watch.onToken({ node: frame.node, agent: frame.agent, text: frame.text });
      } else if (frame.type === 'chat-synced' && frame.sessionId === sessionId) {
        attempt = 0;
        resolveLive(follower);
      } else if (frame.type === 'error') {
        fail(new KowalskiError(isErrorCode(frame.error.code) ? frame.error.code : 'KW_ERR_INTERNAL', frame.error.message));
      }
    };
    const connect = (): void => {
      if (closed) return;
      const ws = new WebSocket(api.wsUrl, ['kowalski'], { headers: api.headers, handshakeTimeout: HANDSHAKE_TIMEOUT_MS });
      socket = ws;
      let why = 'the connection closed';
      ws.on('open', () => ws.send(JSON.stringify({ type: 'chat-follow', sessionId, after: last })));
      ws.on('message', (data: RawData) => onFrame(JSON.parse(String(data)) as ServerFrame));
      ws.on('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 400 && status < 500) fail(errorFromBody(status, text, `the websocket of ${api.server.url}`));
          why = `HTTP ${status}`;
          ws.terminate();
        });
      });
      ws.on('error', (err) => {
        why = (err as NodeJS.ErrnoException).code ?? err.message;
      });
      ws.on('close', () => {
        if (socket !== ws || closed) return;
        const wait = RECONNECT_MS[attempt++];
        if (wait === undefined) {
          fail(new KowalskiError('KW_ERR_SERVER_UNREACHABLE', `lost the server at ${api.server.url} (process ${api.server.pid}) while following chat session ${sessionId}: ${why}. The turn goes on in the server; see it with \`kowalski chat --session ${sessionId}\``));
          return;
        }
        retry = setTimeout(connect, wait);
      });
    };
    connect();
  });
}

export function remoteChat(api: ApiClient): ChatBackend {
  const sessionPath = (id: string, rest = ''): string => {
    // The engine's answer, rather than the route's schema error.
    if (!isSessionId(id)) throw new KowalskiError('KW_ERR_CHAT_NOT_FOUND', `no chat session ${JSON.stringify(id)}`);
    return `api/chat/sessions/${id}${rest}`;
  };
  const summary = (id: string): Promise<ChatSessionSummary> => api.request('GET', sessionPath(id));
  /** The trace of the root agent's last model call of the turn. */
  const traceOf = async (id: string, turn: number): Promise<number | null> => {
    const { traces } = await api.request<{ traces: TraceSummary[] }>('GET', `api/traces?session=${id}&limit=500`);
    const root = traces.filter((t) => t.step === 'r' && t.attempt === turn).map((t) => t.id);
    return root.length === 0 ? null : Math.max(...root);
  };
  /** Follow the session from its last event, ask (`post`), and resolve with the end of the turn it answers. */
  const turnOf = async (id: string, watch: TurnWatch, post: () => Promise<{ turn: number }>): Promise<TurnOutcome> => {
    const follower = await follow(api, id, (await summary(id)).lastSeq, watch);
    try {
      const { turn } = await post();
      return outcome(id, await follower.finished(turn));
    } finally {
      follower.close();
    }
  };
  /** The tool calls of a turn as the transcript shows them (a delegation is its delegate_to_agent call). */
  const toolCallsOf = async (id: string, turn: number): Promise<TurnToolCall[]> => {
    const { transcript } = await api.request<{ transcript: TurnView[] }>('GET', sessionPath(id));
    return (transcript.find((v) => v.turn === turn)?.items ?? []).map((i) => (i.kind === 'tool'
      ? { node: i.node, name: i.name, arguments: i.arguments, ...(i.error === undefined ? {} : { error: i.error }) }
      : { node: i.parent, name: DELEGATE_TOOL, arguments: { agent: i.agent, task: i.task }, ...(i.error === undefined ? {} : { error: i.error }) }));
  };
  const outcome = async (id: string, end: Finished): Promise<TurnOutcome> => {
    const { type: _type, ...rest } = end;
    return { ...rest, toolCalls: await toolCallsOf(id, end.turn), traceId: await traceOf(id, end.turn) };
  };
  return {
    async agents(): Promise<AgentBrief[]> {
      let agents: AgentBrief[];
      try {
        agents = (await api.request<{ agents: AgentBrief[] }>('GET', 'api/agents')).agents;
      } catch (err) {
        // A server without /api/agents: the same files, read here.
        if ((err as KowalskiError).code === 'KW_ERR_SERVER_UNREACHABLE') throw err;
        const team = await readTeam(api.server.dataDir);
        agents = team.catalog().profiles;
        await team.close();
      }
      return agents.map(({ name, description }) => ({ name, description }));
    },
    create: (agent, title) => api.request('POST', 'api/chat/sessions', { agent, ...(title === '' ? {} : { title }) }),
    get: async (id) => api.request<ChatSession>('GET', sessionPath(id)),
    send: (id, text, watch) => turnOf(id, watch, () => api.request('POST', sessionPath(id, '/messages'), { text })),
    grant: (id, extra, watch) => turnOf(id, watch, () => api.request('POST', sessionPath(id, '/continue'), extra === undefined ? {} : { extraIterations: extra })),
    async resume(id, watch) {
      const now = await summary(id);
      if (now.state !== 'running') return undefined;
      const follower = await follow(api, id, now.lastSeq, watch);
      try {
        // The turn under way is the last one started.
        return await outcome(id, await follower.finished(now.turns));
      } finally {
        follower.close();
      }
    },
    leftNote: (id) => `the turn goes on in the server at ${api.server.url}; see it with \`kowalski chat --session ${id}\``,
    close: async () => undefined,
  };
}
