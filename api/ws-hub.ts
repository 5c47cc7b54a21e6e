/**
 * The websocket hub: each client subscribes to every run (by global sequence) or to one
 * run (by its sequence), receives the backlog it missed from the log, then each event
 * as it is committed — the engine emits only committed events, so nothing uncommitted
 * is ever sent. The backlog and the switch to live happen in one synchronous step on
 * the main thread, and every frame is checked against the last one sent, so a
 * reconnecting client gets no gap and no duplicate. Approve and deny arrive here too.
 * A client may also `watch` topics (the agents, the adapters, the plugins): it is sent
 * `changed` when one changes, at most one per topic each CHANGED_GAP_MS, the last change
 * of a burst never lost, so a screen reads its data again instead of polling it. Every
 * client hears `work` frames: how far a vault reindex or a plugin rescan got (live only).
 */
import type { WebSocket } from 'ws';
import { KowalskiError, toPlainError } from '../core/index.js';
import { isRunId } from '../engine/index.js';
import { reasonField, stepField } from './schemas.js';
import type { ChatState, Engine, RunState, StoredChatEvent, StoredEvent } from '../engine/index.js';
import { isSessionId } from '../engine/index.js';
import type { ChangedTopic, ServerFrame as ServerFrameOf } from '../contract/frames.js';

export const WS_MAX_FRAME = 64 * 1024;
/** A client with more than this waiting to be written is too slow: it is disconnected (4008). */
export const WS_MAX_BUFFERED = 4 * 1024 * 1024;
/** Clients at once (default); one more is refused with 503 KW_ERR_SERVER_BUSY. */
export const WS_MAX_CLIENTS = 32;
/** How long a client dropped as too slow has to read the close frame before its socket is destroyed, in ms. */
export const WS_DROP_GRACE_MS = 2000;
const BACKLOG_PAGE = 500;
/** Events of a chat session's backlog sent before the hub waits for them to be written and lets the event loop turn. */
export const CHAT_BACKLOG_PAGE = 50;
/** Characters of chat frames after which a backlog page ends early (a few large events make a page). */
export const CHAT_BACKLOG_PAGE_CHARS = 256 * 1024;
/** Least time between two `changed` frames of one topic, ms: a burst (an adapter's messages) is one frame now and one at its end. */
export const CHANGED_GAP_MS = 250;
/** The engine's events behind each topic. */
const TOPIC_EVENTS = { agents: 'team:changed', adapters: 'adapters:changed', plugins: 'plugins:changed' } as const satisfies Record<ChangedTopic, string>;
const TOPICS = Object.keys(TOPIC_EVENTS) as ChangedTopic[];

type Subscription = { kind: 'all'; after: number } | { kind: 'run'; runId: string; after: number };

interface Client {
  socket: WebSocket;
  sub?: Subscription;
  /** The chat session followed (its events after `after`, and its tokens), live once the backlog is sent. */
  chat?: { sessionId: string; after: number; live: boolean };
  /** True once the backlog is sent: live events go straight out. */
  live: boolean;
  /** The topics it hears `changed` of. */
  watch: ReadonlySet<ChangedTopic>;
}

type RequestId = string | number;

/** What the server sends (docs/api.md, contract/frames.ts), with the engine's own event unions; the CLI's follower reads the same type. */
export type ServerFrame = ServerFrameOf<StoredEvent['event'], StoredChatEvent['event']>;

export interface WsHub {
  attach(socket: WebSocket): void;
  /** Clients being served (one dropped as too slow no longer counts, even while its socket is being cut off). */
  readonly clients: number;
  /** True when one more client would be over the limit. */
  readonly full: boolean;
  close(): void;
}

export interface WsHubOptions {
  /** Bytes that may wait for one client before it is dropped (default WS_MAX_BUFFERED, 4 MiB). */
  maxBuffered?: number;
  /** Clients at once (default WS_MAX_CLIENTS, 32). */
  maxClients?: number;
  /** ms a dropped client has to read its close frame (default WS_DROP_GRACE_MS, 2 s). */
  dropGraceMs?: number;
  /** A dropped client's socket is gone, with what waited in it (up to `maxBuffered` and a frame). */
  onDropped?: () => void;
  /** An error frame's message with every secret replaced (as the HTTP error answers). */
  scrub?: (text: string) => string;
}

function eventFrame(stored: StoredEvent, state: RunState | null): string {
  const frame: ServerFrame = { type: 'event', gseq: stored.gseq, runId: stored.runId, seq: stored.seq, at: stored.at, event: stored.event, state };
  return JSON.stringify(frame);
}

function matches(sub: Subscription, stored: StoredEvent): boolean {
  return sub.kind === 'all' ? stored.gseq > sub.after : stored.runId === sub.runId && stored.seq > sub.after;
}

function advance(sub: Subscription, stored: StoredEvent): void {
  sub.after = sub.kind === 'all' ? stored.gseq : stored.seq;
}

export function createWsHub(engine: Engine, version: string, options: WsHubOptions = {}): WsHub {
  const maxBuffered = options.maxBuffered ?? WS_MAX_BUFFERED;
  const maxClients = options.maxClients ?? WS_MAX_CLIENTS;
  const dropGraceMs = options.dropGraceMs ?? WS_DROP_GRACE_MS;
  const clients = new Set<Client>();
  /**
   * The next backlog pages, of every client: one runs per turn of the event loop, so that
   * many clients catching up at once still leave requests to be answered between two pages.
   */
  const pages: (() => void)[] = [];
  const nextPage = (): void => {
    try {
      pages.shift()?.();
    } finally {
      if (pages.length > 0) setImmediate(nextPage);
    }
  };
  const pageLater = (page: () => void): void => {
    pages.push(page);
    if (pages.length === 1) setImmediate(nextPage);
  };

  /**
   * Too slow: it leaves the hub at once (nothing more is queued for it), is sent 4008, and
   * its socket — with what still waits in it — is destroyed after the grace, read or not:
   * a client that never reads would never answer the close handshake.
   */
  const drop = (client: Client): void => {
    clients.delete(client);
    delete client.sub;
    client.socket.close(4008, 'too slow: the server stopped sending to this client');
    const timer = setTimeout(() => client.socket.terminate(), dropGraceMs);
    timer.unref();
    client.socket.once('close', () => {
      clearTimeout(timer);
      options.onDropped?.();
    });
  };

  /** Send one serialized frame, unless the client is too slow: then it is dropped. */
  const sendText = (client: Client, text: string, written?: () => void): boolean => {
    const socket = client.socket;
    if (socket.readyState !== socket.OPEN) return false;
    if (socket.bufferedAmount > maxBuffered) {
      drop(client);
      return false;
    }
    socket.send(text, written === undefined ? undefined : () => written());
    return true;
  };
  const send = (client: Client, frame: ServerFrame): boolean => sendText(client, JSON.stringify(frame));

  const offEvent = engine.on('run:event', ({ stored, state }) => {
    let text: string | undefined; // serialized once, for every client that wants it
    for (const c of clients) {
      if (!c.live || c.sub === undefined || !matches(c.sub, stored)) continue;
      text ??= eventFrame(stored, state);
      if (sendText(c, text)) advance(c.sub, stored);
    }
  });
  /** Progress and traces are not run events: they go to whoever follows the run, live only, with no sequence. */
  const toFollowers = (runId: string, frame: ServerFrame): void => {
    for (const c of clients) {
      if (c.live && c.sub !== undefined && (c.sub.kind === 'all' || c.sub.runId === runId)) send(c, frame);
    }
  };
  const offProgress = engine.on('step:progress', (p) => toFollowers(p.runId, { type: 'progress', ...p }));
  const offTrace = engine.on('trace:recorded', (p) => toFollowers(p.runId, { type: 'trace', ...p }));
  /**
   * Long work an operator asked for (already throttled by the engine): to every client, live
   * only. The last frame of each work under way is kept for a client that connects mid-way
   * (a page opened or reloaded): the next frame may be long in coming (a slow batch).
   */
  const working = new Map<string, string>();
  const offWork = engine.on('work:progress', (p) => {
    const text = JSON.stringify({ type: 'work', ...p } satisfies ServerFrame);
    if (p.finished) working.delete(p.op);
    else working.set(p.op, text);
    for (const c of clients) sendText(c, text);
  });

  /** Per topic, while a frame was sent less than CHANGED_GAP_MS ago: whether another change came since. */
  const held = new Map<ChangedTopic, { again: boolean; timer: NodeJS.Timeout }>();
  const changed = (topic: ChangedTopic): void => {
    const hold = held.get(topic);
    if (hold !== undefined) {
      hold.again = true;
      return;
    }
    const text = JSON.stringify({ type: 'changed', topic } satisfies ServerFrame);
    for (const c of clients) if (c.watch.has(topic)) sendText(c, text);
    const next = { again: false, timer: setTimeout(() => {
      held.delete(topic);
      if (next.again) changed(topic);
    }, CHANGED_GAP_MS) };
    next.timer.unref();
    held.set(topic, next);
  };
  const offChanged = TOPICS.map((topic) => engine.on(TOPIC_EVENTS[topic], () => changed(topic)));

  const chatFrame = (stored: StoredChatEvent, state: ChatState | null): string =>
    JSON.stringify({ type: 'chat-event', sessionId: stored.sessionId, seq: stored.seq, at: stored.at, event: stored.event, state } satisfies ServerFrame);
  const toChatFollowers = ({ stored, state }: { stored: StoredChatEvent; state: ChatState }): void => {
    let text: string | undefined;
    for (const c of clients) {
      const follow = c.chat;
      if (follow === undefined || !follow.live || follow.sessionId !== stored.sessionId || stored.seq <= follow.after) continue;
      text ??= chatFrame(stored, state);
      if (sendText(c, text)) follow.after = stored.seq;
    }
  };
  const offChat = engine.on('chat:event', toChatFollowers);
  // On a shared store: what another node committed into a session (its turn runs there).
  const offHeard = engine.on('chat:heard', toChatFollowers);
  const offToken = engine.on('chat:token', (p) => {
    let text: string | undefined;
    for (const c of clients) {
      if (c.chat?.live !== true || c.chat.sessionId !== p.sessionId) continue;
      text ??= JSON.stringify({ type: 'chat-token', ...p } satisfies ServerFrame);
      sendText(c, text);
    }
  });
  /**
   * Follow a chat session: its events after `after` from the log a page at a time (at most
   * CHAT_BACKLOG_PAGE events or CHAT_BACKLOG_PAGE_CHARS characters), each page read only
   * once the last one is written out, in its turn among all clients' pages, then live in the same
   * tick as the last read. An unknown session throws to the caller at once.
   */
  const followChat = (c: Client, sessionId: string, after: number): void => {
    engine.chat.summary(sessionId);
    const follow = { sessionId, after, live: false };
    c.chat = follow;
    pageLater(() => chatNextPage(c, follow));
  };
  const chatCatchUp = (c: Client, follow: NonNullable<Client['chat']>): void => {
    if (c.chat !== follow || c.socket.readyState !== c.socket.OPEN) return;
    // Only the events sent are read and decoded: a page of a few large events stops early.
    const { events, full } = engine.chat.eventsPage(follow.sessionId, follow.after, CHAT_BACKLOG_PAGE, CHAT_BACKLOG_PAGE_CHARS);
    for (const [i, stored] of events.entries()) {
      const text = chatFrame(stored, null);
      const more = full && i === events.length - 1;
      if (!sendText(c, text, more ? () => pageLater(() => chatNextPage(c, follow)) : undefined)) return;
      follow.after = stored.seq;
      if (more) return;
    }
    follow.live = true;
    const summary = engine.chat.summary(follow.sessionId);
    send(c, { type: 'chat-synced', sessionId: follow.sessionId, seq: follow.after, state: summary.state });
  };
  const chatNextPage = (c: Client, follow: NonNullable<Client['chat']>): void => {
    try {
      chatCatchUp(c, follow);
    } catch (err) {
      if (c.chat === follow) delete c.chat;
      fail(c, undefined, err);
    }
  };

  /** Send the backlog a page at a time (waiting for each page to drain), then go live in the same tick as the last read. */
  const catchUp = (c: Client, sub: Subscription): void => {
    if (c.sub !== sub || c.socket.readyState !== c.socket.OPEN) return;
    const page = sub.kind === 'all' ? engine.eventsSince(sub.after, BACKLOG_PAGE) : engine.events(sub.runId, sub.after, BACKLOG_PAGE);
    const full = page.length === BACKLOG_PAGE;
    for (const [i, stored] of page.entries()) {
      const next = full && i === page.length - 1 ? () => pageLater(() => catchUp(c, sub)) : undefined;
      if (!sendText(c, eventFrame(stored, null), next)) return;
      advance(sub, stored);
    }
    if (full) return;
    c.live = true;
    if (sub.kind === 'all') send(c, { type: 'synced', gseq: engine.lastGseq() });
    else send(c, { type: 'synced', runId: sub.runId, state: engine.getRunRow(sub.runId).state, gseq: engine.lastGseq() });
  };

  const fail = (c: Client, id: RequestId | undefined, err: unknown): void => {
    const plain = toPlainError(err);
    send(c, { type: 'error', ...(id === undefined ? {} : { id }), error: { code: plain.code, message: options.scrub === undefined ? plain.message : options.scrub(plain.message) } });
  };

  const badFrame = (c: Client, id: RequestId | undefined, message: string): void => fail(c, id, new KowalskiError('KW_ERR_BAD_REQUEST', message));

  const onMessage = (c: Client, data: string): void => {
    let msg: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(data);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      msg = parsed as Record<string, unknown>;
    } catch {
      badFrame(c, undefined, 'frames must be JSON objects with a "type"');
      return;
    }
    const id = typeof msg.id === 'string' || typeof msg.id === 'number' ? msg.id : undefined;
    const runId = msg.runId;
    const step = msg.step;
    if (runId !== undefined && (typeof runId !== 'string' || !isRunId(runId))) return badFrame(c, id, 'runId must be a run id');
    if (step !== undefined && (typeof step !== 'string' || step === '' || step.length > stepField.maxLength)) return badFrame(c, id, 'step must be a step name');
    switch (msg.type) {
      case 'subscribe': {
        const after = msg.after ?? (runId === undefined ? engine.lastGseq() : 0);
        if (typeof after !== 'number' || !Number.isInteger(after) || after < 0) return badFrame(c, id, 'after must be a whole number ≥ 0');
        if (runId !== undefined) {
          try {
            engine.getRunRow(runId);
          } catch (err) {
            return fail(c, id, err);
          }
        }
        const sub: Subscription = runId === undefined ? { kind: 'all', after } : { kind: 'run', runId, after };
        c.sub = sub;
        c.live = false;
        catchUp(c, sub);
        return;
      }
      case 'unsubscribe':
        delete c.sub;
        c.live = false;
        return;
      case 'chat-follow': {
        const sessionId = msg.sessionId;
        const after = msg.after ?? 0;
        if (typeof sessionId !== 'string' || !isSessionId(sessionId)) return badFrame(c, id, 'chat-follow needs a sessionId');
        if (typeof after !== 'number' || !Number.isInteger(after) || after < 0) return badFrame(c, id, 'after must be a whole number ≥ 0');
        try {
          followChat(c, sessionId, after);
        } catch (err) {
          delete c.chat;
          fail(c, id, err);
        }
        return;
      }
      case 'chat-unfollow':
        delete c.chat;
        return;
      case 'watch': {
        const topics = msg.topics;
        if (!Array.isArray(topics) || topics.some((t) => !TOPICS.includes(t as ChangedTopic))) return badFrame(c, id, `watch needs topics: a list of ${TOPICS.join(', ')}`);
        c.watch = new Set(topics as ChangedTopic[]);
        return;
      }
      case 'approve':
      case 'deny': {
        if (typeof runId !== 'string') return badFrame(c, id, `${msg.type} needs a runId`);
        const reason = msg.reason;
        if (msg.type === 'deny' && (typeof reason !== 'string' || reason.trim() === '' || reason.length > reasonField.maxLength)) return badFrame(c, id, `deny needs a reason (1–${reasonField.maxLength} characters)`);
        const opts = { ...(step === undefined ? {} : { step: step as string }), by: 'operator (websocket)' };
        const done = msg.type === 'approve' ? engine.approve(runId, opts) : engine.deny(runId, { ...opts, reason: reason as string });
        done.then((r) => send(c, { type: 'result', ...(id === undefined ? {} : { id }), ok: true, step: r.step }), (err: unknown) => fail(c, id, err));
        return;
      }
      default:
        return badFrame(c, id, `unknown frame type ${JSON.stringify(msg.type)} (subscribe, unsubscribe, approve, deny, chat-follow, chat-unfollow, watch)`);
    }
  };

  return {
    attach(socket) {
      // Handshakes in flight when the limit was reached were let through: the limit still holds.
      if (clients.size >= maxClients) {
        socket.close(1013, 'the server serves as many websocket clients as it allows; try again later');
        return;
      }
      const c: Client = { socket, live: false, watch: new Set() };
      clients.add(c);
      socket.on('message', (data, isBinary) => {
        if (isBinary) return badFrame(c, undefined, 'frames must be JSON text');
        onMessage(c, (data as Buffer).toString('utf8'));
      });
      socket.on('close', () => clients.delete(c));
      socket.on('error', () => clients.delete(c));
      send(c, { type: 'hello', version, gseq: engine.lastGseq() });
      for (const text of working.values()) sendText(c, text);
    },
    get clients() {
      return clients.size;
    },
    get full() {
      return clients.size >= maxClients;
    },
    close() {
      offEvent();
      offProgress();
      offTrace();
      offWork();
      offChat();
      offHeard();
      offToken();
      for (const off of offChanged) off();
      for (const hold of held.values()) clearTimeout(hold.timer);
      held.clear();
      for (const c of clients) c.socket.close(1001, 'the server is stopping');
      clients.clear();
    },
  };
}
