/**
 * The websocket client for `/api/ws`: one connection, reconnected with exponential backoff
 * (capped at 5 s). It keeps one subscription on the wire — every run when anyone listens to
 * all runs or to several, else the one run — and on reconnect subscribes again after the
 * last `gseq` (or run `seq`) it received, so nothing is missed or heard twice.
 * Approve and deny go over it as requests with an `id`, answered by `result` or `error`.
 * Beside it, one chat session may be followed (`chat-follow`), again after the last event
 * seen when the connection comes back (tokens streamed while it was down are not re-sent).
 * And screens may watch a topic (the agents, the adapters, the plugins): told when the
 * server says it changed, and when the connection comes back (it may have changed meanwhile).
 * Every connection hears `work` frames (long work's progress): screens listen with `onWork`.
 */
import { ApiError } from './api';
import type { TokenStore } from './auth';
import type { ChangedTopic, ChatFrame, ClientFrame, ServerFrame, StreamFrame, WorkFrame } from './types';

export type SocketStatus = 'connecting' | 'open' | 'reconnecting';
export type StreamListener = (frame: StreamFrame) => void;
export type ChatListener = (frame: ChatFrame) => void;
export type WorkListener = (frame: WorkFrame) => void;

/** Thrown by approve/deny when no connection is open: the caller uses HTTP instead. */
export const SOCKET_DOWN = 'KW_ERR_SOCKET_DOWN';

export interface SocketOptions {
  url: string;
  tokens: TokenStore;
  /** How long an approve/deny waits for its answer, in ms (default 20 000). */
  requestTimeoutMs?: number;
  /** Backoff cap in ms (default 5 000). */
  maxDelayMs?: number;
}

interface Sub { runId: string | null; listener: StreamListener; after: number | undefined }
interface ChatFollow { sessionId: string; listener: ChatListener; after: number }
interface Pending { resolve: (step: string) => void; reject: (err: ApiError) => void; timer: ReturnType<typeof setTimeout> }
/** `*` for every run, else a run id. */
type WireKey = string;

export class KowalskiSocket {
  private ws: WebSocket | null = null;
  private status: SocketStatus = 'connecting';
  private failures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private stopped = true;
  private readonly subs = new Set<Sub>();
  private readonly statusListeners = new Set<(s: SocketStatus) => void>();
  private readonly pending = new Map<string | number, Pending>();
  private nextId = 1;
  /** The subscription on the wire of the current connection. */
  private wire: WireKey | null = null;
  /** The subscription the cursor below belongs to; it survives reconnects, not changes. */
  private cursorKey: WireKey | null = null;
  private cursor: number | undefined;
  /** The chat session followed; `after` moves with each of its events, so a reconnect follows on from there. */
  private chat: ChatFollow | null = null;
  /** Who hears the `work` frames. */
  private readonly workers = new Set<WorkListener>();
  /** The last frame of each work under way on this connection: a screen that starts listening mid-way is told how far it got. */
  private readonly working = new Map<string, WorkFrame>();
  /** Who watches each topic. */
  private readonly watchers = new Map<ChangedTopic, Set<() => void>>();
  /** The topics watched on the wire of the current connection (sorted, joined). */
  private watchSent = '';
  /** A connection was open before: the next one may have missed changes. */
  private wasOpen = false;

  constructor(private readonly opts: SocketOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.ws?.close(1000);
    this.ws = null;
  }

  /** Drops the connection and connects again now (e.g. with a new token). */
  reconnect(): void {
    if (this.stopped) return;
    this.failures = 0;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const old = this.ws;
    this.ws = null;
    if (old !== null) this.detach(old);
    this.connect();
  }

  getStatus(): SocketStatus {
    return this.status;
  }

  onStatus(listener: (s: SocketStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => { this.statusListeners.delete(listener); };
  }

  /** Every run's events from now on. */
  subscribeAll(listener: StreamListener): () => void {
    return this.add({ runId: null, listener, after: undefined });
  }

  /** One run's events after its sequence `after` (default: from the start). */
  subscribeRun(runId: string, listener: StreamListener, after?: number): () => void {
    return this.add({ runId, listener, after });
  }

  /** One chat session's events after its sequence `after`, then live, with its tokens (one session at a time: following another replaces it). */
  followChat(sessionId: string, listener: ChatListener, after: number): () => void {
    const follow: ChatFollow = { sessionId, listener, after };
    this.chat = follow;
    this.sendFollow();
    return () => {
      if (this.chat !== follow) return;
      this.chat = null;
      const ws = this.ws;
      if (ws !== null && ws.readyState === WebSocket.OPEN) this.send(ws, { type: 'chat-unfollow' });
    };
  }

  /** Call `listener` with each `work` frame (how far a vault reindex or a plugin rescan got; every client hears them, live only). */
  onWork(listener: WorkListener): () => void {
    this.workers.add(listener);
    for (const frame of [...this.working.values()]) listener(frame);
    return () => void this.workers.delete(listener);
  }

  /** Call `listener` when the server says `topic` changed, and after a reconnect (it may have changed while the connection was down). */
  watch(topic: ChangedTopic, listener: () => void): () => void {
    let set = this.watchers.get(topic);
    if (set === undefined) {
      set = new Set();
      this.watchers.set(topic, set);
    }
    set.add(listener);
    this.sendWatch();
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.watchers.get(topic) === set) this.watchers.delete(topic);
      this.sendWatch();
    };
  }

  approve(runId: string, step?: string): Promise<string> {
    return this.request((id) => ({ type: 'approve', id, runId, ...(step === undefined ? {} : { step }) }));
  }

  deny(runId: string, reason: string, step?: string): Promise<string> {
    return this.request((id) => ({ type: 'deny', id, runId, reason, ...(step === undefined ? {} : { step }) }));
  }

  private add(sub: Sub): () => void {
    this.subs.add(sub);
    this.sync();
    return () => {
      this.subs.delete(sub);
      this.sync();
    };
  }

  private request(frame: (id: string) => ClientFrame): Promise<string> {
    const ws = this.ws;
    if (ws === null || ws.readyState !== WebSocket.OPEN) {
      return Promise.reject(new ApiError(SOCKET_DOWN, 'the live connection is down', 0));
    }
    const id = `r${this.nextId++}`;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ApiError('KW_ERR_SOCKET_TIMEOUT', 'no answer from the server in time; reload to see the run as it is', 0));
      }, this.opts.requestTimeoutMs ?? 20_000);
      this.pending.set(id, { resolve, reject, timer });
      ws.send(JSON.stringify(frame(id)));
    });
  }

  private connect(): void {
    const token = this.opts.tokens.get();
    const protocols = token !== null && token !== '' ? ['kowalski', `bearer.${token}`] : ['kowalski'];
    this.setStatus(this.failures === 0 && this.status === 'connecting' ? 'connecting' : 'reconnecting');
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.opts.url, protocols);
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.failures = 0;
      this.wire = null;
      this.watchSent = '';
      this.setStatus('open');
      this.sync();
      this.sendFollow();
      this.sendWatch();
      if (this.wasOpen) for (const topic of [...this.watchers.keys()]) this.changed(topic);
      this.wasOpen = true;
    };
    ws.onmessage = (msg: MessageEvent) => {
      if (this.ws !== ws || typeof msg.data !== 'string') return;
      let frame: ServerFrame;
      try {
        frame = JSON.parse(msg.data) as ServerFrame;
      } catch {
        return;
      }
      this.receive(frame);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.working.clear(); // the server sends the work still under way again on the next connection
      this.detach(ws);
      this.scheduleRetry();
    };
  }

  /** Forgets a connection: its requests fail, its subscription is gone. */
  private detach(ws: WebSocket): void {
    ws.onopen = ws.onmessage = ws.onclose = null;
    if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000);
    this.wire = null;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new ApiError('KW_ERR_SOCKET_CLOSED', 'the connection dropped before the server answered; check the run before trying again', 0));
      this.pending.delete(id);
    }
  }

  private scheduleRetry(): void {
    if (this.stopped) return;
    this.setStatus('reconnecting');
    const delay = Math.min(this.opts.maxDelayMs ?? 5000, 250 * 2 ** this.failures) * (0.8 + Math.random() * 0.4);
    this.failures++;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delay);
  }

  private receive(frame: ServerFrame): void {
    switch (frame.type) {
      case 'hello':
        return;
      case 'event':
        this.cursor = this.wire === '*' ? frame.gseq : frame.seq;
        this.dispatch(frame.runId, frame);
        return;
      case 'synced':
        if (this.wire === '*') this.cursor = frame.gseq;
        this.dispatch(frame.runId ?? null, frame);
        return;
      case 'progress':
      case 'trace':
        this.dispatch(frame.runId, frame);
        return;
      case 'chat-event':
      case 'chat-synced':
      case 'chat-token': {
        const follow = this.chat;
        if (follow === null || follow.sessionId !== frame.sessionId) return;
        if (frame.type === 'chat-event') follow.after = Math.max(follow.after, frame.seq);
        follow.listener(frame);
        return;
      }
      case 'changed':
        this.changed(frame.topic);
        return;
      case 'work':
        if (frame.finished) this.working.delete(frame.op);
        else this.working.set(frame.op, frame);
        for (const listener of [...this.workers]) listener(frame);
        return;
      case 'result':
      case 'error': {
        const p = frame.id === undefined ? undefined : this.pending.get(frame.id);
        if (p === undefined) {
          if (frame.type === 'error') console.warn(`kowalski socket: ${frame.error.code}: ${frame.error.message}`);
          return;
        }
        clearTimeout(p.timer);
        this.pending.delete(frame.id!);
        if (frame.type === 'result') p.resolve(frame.step);
        else p.reject(new ApiError(frame.error.code, frame.error.message, 0));
        return;
      }
      default: {
        const never: never = frame;
        void never;
      }
    }
  }

  private dispatch(runId: string | null, frame: StreamFrame): void {
    for (const sub of [...this.subs]) {
      if (sub.runId === null || runId === null || sub.runId === runId) sub.listener(frame);
    }
  }

  /** Puts the subscription the listeners need on the wire. */
  private sync(): void {
    const want = this.desired();
    const ws = this.ws;
    if (ws === null || ws.readyState !== WebSocket.OPEN || want === this.wire) return;
    if (this.wire !== null) this.send(ws, { type: 'unsubscribe' });
    this.wire = want;
    if (want === null) return;
    if (want !== this.cursorKey) {
      this.cursorKey = want;
      this.cursor = want === '*' ? undefined : [...this.subs].find((s) => s.runId === want)?.after;
    }
    const after = this.cursor === undefined ? {} : { after: this.cursor };
    this.send(ws, want === '*' ? { type: 'subscribe', ...after } : { type: 'subscribe', runId: want, ...after });
  }

  private sendFollow(): void {
    const ws = this.ws;
    const follow = this.chat;
    if (ws === null || ws.readyState !== WebSocket.OPEN || follow === null) return;
    this.send(ws, { type: 'chat-follow', sessionId: follow.sessionId, after: follow.after });
  }

  private sendWatch(): void {
    const ws = this.ws;
    if (ws === null || ws.readyState !== WebSocket.OPEN) return;
    const topics = [...this.watchers.keys()].sort();
    if (topics.join(',') === this.watchSent) return;
    this.watchSent = topics.join(',');
    this.send(ws, { type: 'watch', topics });
  }

  private changed(topic: ChangedTopic): void {
    for (const listener of [...(this.watchers.get(topic) ?? [])]) listener();
  }

  private desired(): WireKey | null {
    const runs = new Set<string | null>([...this.subs].map((s) => s.runId));
    if (runs.size === 0) return null;
    if (runs.size > 1 || runs.has(null)) return '*';
    return [...runs][0] ?? '*';
  }

  private send(ws: WebSocket, frame: ClientFrame): void {
    ws.send(JSON.stringify(frame));
  }

  private setStatus(s: SocketStatus): void {
    if (s === this.status) return;
    this.status = s;
    for (const l of this.statusListeners) l(s);
  }
}

/** `ws:` or `wss:` to `/api/ws` on the page's own host. */
export function socketUrl(loc: Location): string {
  return `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}/api/ws`;
}
