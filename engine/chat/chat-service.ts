/**
 * Chat sessions: the one agent loop every caller uses (the CLI, the API and the app,
 * the library). A message is committed as `turn.started` before anything else happens;
 * the turn then runs (turn-run.ts) and its answer is committed as `turn.finished`.
 * Turns under way when the engine stopped go on at the next start (`recover`).
 */
import crypto from 'node:crypto';
import { KowalskiError, messageOf } from '../../core/index.js';
import type { Provider, ProviderSettings, ToolCallingMode } from '../../agents/index.js';
import { parseModelRef } from '../../agents/index.js';
import type { ChatState, ChatStop } from '../../actors/index.js';
import type { Clock } from '../base/clock.js';
import type { CrashHook } from '../base/crash.js';
import type { EngineConfig } from '../config.js';
import type { Observers } from '../observers.js';
import type { TraceStore } from '../store/traces.js';
import type { ChatSessionRow } from '../store/sql/chat.js';
import { ChatStore } from './chat-store.js';
import { LiveSession } from './live-session.js';
import type { LiveSessionDeps } from './live-session.js';
import { transcriptOf } from './transcript.js';
import type { StoredChatEvent } from './chat-events.js';
import type { TurnView } from './transcript.js';
import { runTurn, usageOf } from './turn-run.js';
import type { ChatModel, ChatProfiles, ChatTools, TurnOutcome } from './turn-run.js';
import { turnMemory } from './turn-memory.js';
import { consolidate } from './consolidate.js';
import type { ConsolidateOptions, ConsolidateResult } from './consolidate.js';
import type { RecallIndex } from './recall.js';
import type { MemoryVault } from './remember.js';
import type { ChatSessionSummary } from '../../contract/chat.js';
import type { StepSessionQueries } from '../store/sql/step-sessions.js';
import type { ChatTables } from './chat-tables.js';
import type { Timers } from '../base/timers.js';
import { stepSessionId } from './step-session-id.js';

export type { ChatSessionSummary } from '../../contract/chat.js';

export interface ChatServiceDeps {
  /** The data folder's SQLite, or the Postgres store the nodes share (any node then serves any session, one node at a time running its turn). */
  tables: ChatTables;
  clock: Clock;
  observers: Observers;
  traces: TraceStore;
  profiles: ChatProfiles;
  tools(): ChatTools;
  config(): EngineConfig;
  providers(): ProviderSettings;
  /** Episodic memory: each finished turn is indexed here. */
  recall: RecallIndex;
  /** Semantic memory: the vault's notes under `memory/`. */
  vault: MemoryVault;
  /** A commit failed: the engine stops; returns the error callers get. */
  onFatal(err: unknown): Error;
  /** Durability tests' named crash points. */
  crash: CrashHook;
  /** Arms the idle sessions' leaving (the engine's timers). */
  timers: Timers;
  /** Idle sessions kept in memory, the most recently used (default 16); the others are read from their log when next used. */
  idleSessionsKept?: number;
  /** How long an idle session stays in memory after its last use (default 30 s). */
  idleSessionMs?: number;
}

export interface SendOptions {
  by?: string;
  onToken?(piece: { node: string; agent: string; text: string }): void;
}

/** A message taken: its turn is committed; `done` resolves with the answer. */
export interface Sent {
  sessionId: string;
  turn: number;
  done: Promise<TurnOutcome>;
}

const SESSION_ID = /^c[0-9a-z]{1,40}$/;
export const isSessionId = (value: string): boolean => SESSION_ID.test(value);
/** Longest message taken, in characters. */
export const MAX_MESSAGE_CHARS = 100_000;

/** The step an `agent` step's turn is for. */
export interface StepTurnAt {
  runId: string;
  step: string;
  hordeId: string;
}

/** The answer of an `agent` step's turn. */
export interface StepTurnAnswer {
  sessionId: string;
  turn: number;
  text: string;
  usage: TurnOutcome['usage'];
}

function summaryOf(r: ChatSessionRow): ChatSessionSummary {
  return {
    id: r.id, agent: r.agent, title: r.title, state: r.state as ChatState, turns: r.turns, lastStop: r.last_stop as ChatStop | null,
    budget: { limit: r.budget_limit, used: r.budget_used },
    usage: { calls: r.model_calls, inputTokens: r.input_tokens, outputTokens: r.output_tokens },
    createdAt: r.created_at, updatedAt: r.updated_at, lastSeq: r.last_seq,
  };
}

export class ChatService {
  private readonly store: ChatStore;
  /**
   * The sessions in memory, least recently used first: every one with a turn under way, and
   * at most `idleSessionsKept` idle ones, each for `idleSessionMs` after its last use — a
   * session's whole context (its turns, every tool result) is held while it is here, so a
   * long-running server would otherwise keep every session it ever touched. One that leaves
   * is committed and stopped; its log brings it back when it is next used.
   */
  private readonly live = new Map<string, LiveSession>();
  /** The cancel of each in-memory session's leaving. */
  private readonly leaving = new Map<string, () => void>();
  /** Turns under way, by session. */
  private readonly running = new Map<string, Promise<TurnOutcome>>();
  private readonly stopping = new AbortController();
  private readonly tokenListeners = new Map<string, SendOptions['onToken']>();
  /** Each running turn's own stop (an `agent` step cancelled ends its turn), beside the engine's. */
  private readonly turnStops = new Map<string, AbortController>();
  private readonly stepSessions: StepSessionQueries;
  private readonly sessionDeps: LiveSessionDeps;
  /** Provider clients by model, for the provider settings they were made with (a config reload makes new ones). */
  private clients: { settings: ProviderSettings; byModel: Map<string, Provider> } | undefined;

  constructor(private readonly deps: ChatServiceDeps) {
    this.store = new ChatStore(deps.tables, deps.clock);
    this.stepSessions = deps.tables.stepSessions;
    this.sessionDeps = {
      store: this.store,
      onCommitted: (stored, state) => {
        for (const s of stored) deps.observers.emit('chat:event', { stored: s, state });
      },
      onFatal: deps.onFatal,
    };
  }

  /** A new session with `agent` (KW_ERR_AGENT_NOT_FOUND for an agent the team does not have). */
  create(options: { agent: string; title?: string; by?: string }): ChatSessionSummary {
    this.deps.profiles.snapshot(options.agent);
    const id = `c${this.deps.clock.now().toString(36)}${crypto.randomBytes(5).toString('hex')}`;
    const title = (options.title ?? '').trim().slice(0, 200);
    const session = LiveSession.create(id, { type: 'session.created', agent: options.agent, title, by: options.by ?? 'api' }, this.deps.clock.now(), this.sessionDeps);
    this.keep(session);
    return this.summary(id);
  }

  list(limit = 100): ChatSessionSummary[] {
    return this.store.list(limit).map(summaryOf);
  }

  summary(id: string): ChatSessionSummary {
    const row = isSessionId(id) ? this.store.row(id) : undefined;
    if (row === undefined) throw new KowalskiError('KW_ERR_CHAT_NOT_FOUND', `no chat session ${JSON.stringify(id)}`);
    return summaryOf(row);
  }

  /** The session with every turn as people read it. */
  get(id: string): ChatSessionSummary & { transcript: TurnView[] } {
    const summary = this.summary(id);
    const run = this.stepOfSession(id);
    return { ...summary, ...(run === undefined ? {} : { run }), transcript: transcriptOf(this.store.read(id)) };
  }

  /** Take a message: resolves once the turn is committed; the answer comes in `done`. KW_ERR_CHAT_BUSY while a turn is under way. */
  send(id: string, text: string, options: SendOptions = {}): Sent {
    if (text.trim() === '') throw new KowalskiError('KW_ERR_INPUT_INVALID', 'the message is empty');
    if (text.length > MAX_MESSAGE_CHARS) throw new KowalskiError('KW_ERR_INPUT_INVALID', `the message has ${text.length} characters; at most ${MAX_MESSAGE_CHARS} are taken`);
    const session = this.take(id);
    try {
      if (session.state === 'running') {
        // A turn cut by a crash that nobody resumed yet (an embedded caller that did not call recover): it goes on now.
        if (!this.running.has(id)) void this.start(session).catch(() => undefined);
        throw new KowalskiError('KW_ERR_CHAT_BUSY', `chat session ${id} is still answering turn ${session.context.current?.turn ?? 0}; send the next message when it has ended`);
      }
      return this.begin(session, text, options);
    } catch (err) {
      this.letGo(id);
      throw err;
    }
  }

  /** Commit a new turn of an idle (or budget-stopped) session, then run it. */
  private begin(session: LiveSession, text: string, options: SendOptions): Sent {
    const agent = this.deps.profiles.snapshot(session.context.agent);
    const profile = this.deps.profiles.maxIterations(session.context.agent);
    const turn = (session.context.current?.turn ?? 0) + 1;
    session.append([{ type: 'turn.started', turn, text, agent, budget: profile ?? this.deps.config().chat.maxIterations, by: options.by ?? 'api' }]);
    this.deps.crash('chat-after-message');
    return { sessionId: session.id, turn, done: this.start(session, options.onToken) };
  }

  /** More model calls for a turn its budget stopped: the same turn goes on from its log. */
  grant(id: string, extra: number, options: SendOptions = {}): Sent {
    if (!Number.isInteger(extra) || extra < 1 || extra > 1000) throw new KowalskiError('KW_ERR_INPUT_INVALID', `extraIterations must be a whole number from 1 to 1000, not ${JSON.stringify(extra)}`);
    const session = this.take(id);
    try {
      const current = session.context.current;
      if (session.state !== 'exhausted' || current === undefined) {
        throw new KowalskiError('KW_ERR_CHAT_NOT_STOPPED', `chat session ${id} is ${session.state}: only a turn stopped by its budget can be given more`);
      }
      session.append([{ type: 'budget.granted', turn: current.turn, extra, by: options.by ?? 'api' }]);
      return { sessionId: id, turn: current.turn, done: this.start(session, options.onToken) };
    } catch (err) {
      this.letGo(id);
      throw err;
    }
  }

  /**
   * One turn of `agent` for a step of a run (the `agent` step kind), in that step's own
   * session, made once and linked in `step_sessions` in the same transaction. An attempt
   * after a crash goes on with the same turn — or takes its answer, when it had finished —
   * so no answered model call is asked again. `signal` (the run cancelled, the step's
   * timeout) ends the turn as failed; the engine closing leaves it open, to go on at the
   * next start. A turn that does not end with an answer is its KowalskiError.
   */
  async stepTurn(at: StepTurnAt, agent: string, text: string, signal: AbortSignal): Promise<StepTurnAnswer> {
    signal.throwIfAborted();
    const id = stepSessionId(at.runId, at.step);
    let session: LiveSession;
    if (this.live.has(id) || this.store.row(id) !== undefined) session = this.take(id);
    else {
      this.deps.profiles.snapshot(agent);
      const now = this.deps.clock.now();
      session = LiveSession.create(id, { type: 'session.created', agent, title: `${at.hordeId} · ${at.step}`, by: `run ${at.runId}` }, now, this.sessionDeps,
        () => this.stepSessions.insert({ session_id: id, run_id: at.runId, step: at.step, agent, created_at: now }));
      this.deps.tables.leases?.claim(id);
    }
    this.keep(session);
    const live = session;
    const current = live.context.current;
    let done: Promise<TurnOutcome>;
    try {
      if (live.state === 'running') done = this.running.get(id) ?? this.start(live);
      else if (current?.ended?.stop === 'done') {
        this.letGo(id);
        return { sessionId: id, turn: current.turn, text: current.ended.text, usage: current.ended.usage };
      } else done = this.begin(live, text, { by: `run ${at.runId}` }).done;
    } catch (err) {
      this.letGo(id);
      throw err;
    }
    const onAbort = (): void => {
      if (!this.stopping.signal.aborted) this.turnStops.get(id)?.abort(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    let outcome: TurnOutcome;
    try {
      outcome = await done;
    } catch (err) {
      const open = live.context.current;
      if (!this.stopping.signal.aborted && signal.aborted && live.state === 'running' && open !== undefined) {
        const error = { code: 'KW_ERR_STEP_CANCELLED' as const, message: `the step was stopped: ${String((signal.reason as Error | undefined)?.message ?? signal.reason)}` };
        live.append([{ type: 'turn.finished', turn: open.turn, text: '', stop: 'error', usage: usageOf(open), error }]);
      }
      throw err;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    if (outcome.stop === 'budget_exhausted') throw new KowalskiError('KW_ERR_TOOL_LOOP_BUDGET', `agent ${agent}: ${outcome.text}`);
    if (outcome.stop !== 'done') {
      const error = outcome.error ?? { code: 'KW_ERR_INTERNAL', message: 'the turn ended without an answer' };
      throw new KowalskiError(error.code, `agent ${agent}: ${error.message}`);
    }
    return { sessionId: id, turn: outcome.turn, text: outcome.text, usage: outcome.usage };
  }

  /** The sessions of a run's `agent` steps, by step. */
  stepSessionsOf(runId: string): Array<{ step: string; sessionId: string; agent: string }> {
    return this.stepSessions.ofRun(runId).map((r) => ({ step: r.step, sessionId: r.session_id, agent: r.agent }));
  }

  /** The run and step a session's turn is for, when it is an `agent` step's. */
  stepOfSession(sessionId: string): { runId: string; step: string } | undefined {
    const row = this.stepSessions.ofSession(sessionId);
    return row === undefined ? undefined : { runId: row.run_id, step: row.step };
  }

  /** Follow the tokens of a session's turns (the CLI and the library do; the app gets them on the websocket). */
  onTokens(id: string, fn: SendOptions['onToken']): () => void {
    this.tokenListeners.set(id, fn);
    return () => void this.tokenListeners.delete(id);
  }

  /** The session's log. */
  events(id: string): StoredChatEvent[] {
    this.summary(id);
    return this.store.read(id);
  }

  /** A page of the session's log: events after `after`, in order, at most `limit` and about `maxChars` of JSON; `full` when more may follow (KW_ERR_CHAT_NOT_FOUND as `events`). */
  eventsPage(id: string, after: number, limit: number, maxChars: number): { events: StoredChatEvent[]; full: boolean } {
    this.summary(id);
    return this.store.readPage(id, after, limit, maxChars);
  }

  /**
   * On a shared store: another node appended events `first`…`last` to a session; they are
   * read from the log and handed to this node's followers (`chat:heard`).
   */
  heard(id: string, first: number, last: number): void {
    if (!isSessionId(id) || !(last >= first)) return;
    const row = this.store.row(id);
    if (row === undefined) return;
    const { events } = this.store.readPage(id, first - 1, last - first + 1, Number.POSITIVE_INFINITY);
    for (const stored of events) this.deps.observers.emit('chat:heard', { stored, state: row.state as ChatState });
  }

  /** The answer of the turn under way, if one is. */
  turnUnderWay(id: string): Promise<TurnOutcome> | undefined {
    return this.running.get(id);
  }

  /** Go on with every turn that was under way when the engine stopped. Returns their sessions. */
  recover(): string[] {
    return this.adopt(this.store.runningIds());
  }

  /**
   * Go on with these sessions' turns under way, from their logs (answers already there are
   * not asked again). On a shared store, each is claimed first: a session another live node
   * runs is left to it; those of a node that died or stopped are taken. An `agent` step's
   * session is left to the node that takes its run over (its step's next attempt goes on
   * with the turn). Returns those taken.
   */
  adopt(ids: readonly string[]): string[] {
    const taken: string[] = [];
    const shared = this.deps.tables.leases !== undefined;
    for (const id of ids) {
      if (this.running.has(id)) continue;
      if (shared && this.stepSessions.ofSession(id) !== undefined) continue;
      let session: LiveSession;
      try {
        session = this.take(id);
      } catch (err) {
        if ((err as { code?: unknown }).code === 'KW_ERR_CHAT_BUSY') continue;
        throw err;
      }
      taken.push(id);
      if (session.state === 'running') void this.start(session).catch(() => undefined);
      else this.letGo(id);
    }
    return taken;
  }

  /**
   * The session, to begin or go on with a turn here. On a shared store its lease is taken
   * first (KW_ERR_CHAT_BUSY, naming the node, while another live node runs a turn of it),
   * then a copy kept in memory is read again from the log if another node appended since.
   */
  private take(id: string): LiveSession {
    const leases = this.deps.tables.leases;
    if (leases === undefined || this.running.has(id)) return this.load(id);
    if (!isSessionId(id) || this.store.row(id) === undefined) throw new KowalskiError('KW_ERR_CHAT_NOT_FOUND', `no chat session ${JSON.stringify(id)}`);
    leases.claim(id);
    try {
      const kept = this.live.get(id);
      if (kept !== undefined && (this.store.row(id)?.last_seq ?? 0) > kept.committedSeq) this.leave(kept);
      return this.load(id);
    } catch (err) {
      this.letGo(id);
      throw err;
    }
  }

  /** On a shared store: the session's lease is given up, unless a turn of it runs here. */
  private letGo(id: string): void {
    const leases = this.deps.tables.leases;
    if (leases === undefined || this.running.has(id) || !leases.holds(id)) return;
    try {
      leases.release(id);
    } catch (err) {
      this.deps.observers.emit('engine:warning', { message: `chat session ${id}: its lease could not be given up (${messageOf(err)}); it lapses by itself` });
    }
  }

  private load(id: string): LiveSession {
    const session = this.live.get(id) ?? (isSessionId(id) ? LiveSession.load(id, this.sessionDeps) : undefined);
    if (session === undefined) throw new KowalskiError('KW_ERR_CHAT_NOT_FOUND', `no chat session ${JSON.stringify(id)}`);
    this.keep(session);
    return session;
  }

  /** Mark `session` the most recently used, and let the least recently used idle ones beyond the limit go. */
  private keep(session: LiveSession): void {
    this.live.delete(session.id);
    this.live.set(session.id, session);
    this.leaveLater(session);
    this.evictIdle();
  }

  private isIdle(session: LiveSession): boolean {
    return !this.running.has(session.id) && session.state !== 'running';
  }

  /** (Re)arm the session's leaving, `idleSessionMs` from now; a session with a turn under way is let be then (its turn's end arms it again). */
  private leaveLater(session: LiveSession): void {
    this.leaving.get(session.id)?.();
    this.leaving.set(session.id, this.deps.timers.at(this.deps.clock.now() + (this.deps.idleSessionMs ?? 30_000), () => {
      this.leaving.delete(session.id);
      if (this.live.get(session.id) === session && this.isIdle(session)) this.leave(session);
    }));
  }

  private leave(session: LiveSession): void {
    this.leaving.get(session.id)?.();
    this.leaving.delete(session.id);
    this.live.delete(session.id);
    session.stop();
  }

  private evictIdle(): void {
    let idle = 0;
    for (const s of this.live.values()) if (this.isIdle(s)) idle++;
    const limit = Math.max(1, this.deps.idleSessionsKept ?? 16); // the session just used stays
    for (const s of this.live.values()) {
      if (idle <= limit) return;
      if (!this.isIdle(s)) continue;
      this.leave(s);
      idle--;
    }
  }

  /** Turns this process is running now (on Postgres, the sessions whose chat lease it holds for them). */
  get turnsRunning(): number {
    return this.running.size;
  }

  /** How many sessions are in memory (each with its whole context): those with a turn under way and the recently used idle ones. */
  get sessionsInMemory(): number {
    return this.live.size;
  }

  private start(session: LiveSession, onToken?: SendOptions['onToken']): Promise<TurnOutcome> {
    const config = this.deps.config();
    const current = session.context.current!;
    const models = new Map<string, Promise<ChatModel>>();
    const model = (name: string): Promise<ChatModel> => {
      let m = models.get(name);
      if (m === undefined) {
        m = this.model(name);
        models.set(name, m);
      }
      return m;
    };
    const now = (): number => this.deps.clock.now();
    const root = session.context.agent;
    const stop = new AbortController();
    this.turnStops.set(session.id, stop);
    const signal = AbortSignal.any([this.stopping.signal, stop.signal]);
    const done = (async () => runTurn({
      session, traces: this.deps.traces, tools: this.deps.tools(), profiles: this.deps.profiles, episodes: this.deps.recall, model,
      learn: (name: string, mode: ToolCallingMode) => this.deps.traces.learn(name, mode, this.deps.clock.now()),
      maxDepth: config.chat.maxDepth,
      maxToolErrors: config.model.maxToolErrors,
      signal,
      onToken: (piece) => {
        onToken?.(piece);
        this.tokenListeners.get(session.id)?.(piece);
        const token = { sessionId: session.id, turn: current.turn, ...piece };
        this.deps.observers.emit('chat:token', token);
        this.deps.tables.relayToken?.(token);
      },
      now,
      crash: this.deps.crash,
    }, await turnMemory({
      session, traces: this.deps.traces, vault: this.deps.vault, settings: this.deps.profiles.memory(root), model, now, signal,
    })))();
    this.running.set(session.id, done);
    const forget = (): void => {
      this.running.delete(session.id);
      // Closing: the turn goes on at the next start, or on another node (the node's clean stop frees its leases).
      if (!this.stopping.signal.aborted) this.letGo(session.id);
      if (this.turnStops.get(session.id) === stop) this.turnStops.delete(session.id);
      if (this.live.get(session.id) === session) this.leaveLater(session);
      this.evictIdle();
    };
    done.then(forget, forget);
    return done;
  }

  /** The model as a turn calls it: the client is made once per model (not per turn: its connections are kept), the settings read each turn. */
  private async model(model: string): Promise<ChatModel> {
    const ref = parseModelRef(model);
    const settings = this.deps.providers();
    if (this.clients?.settings !== settings) this.clients = { settings, byModel: new Map() };
    const clients = this.clients;
    let provider = clients.byModel.get(model);
    if (provider === undefined) {
      const { createProvider } = await import('../../agents/providers/index.js');
      provider = clients.byModel.get(model) ?? createProvider(ref, settings);
      clients.byModel.set(model, provider);
    }
    const config = this.deps.config();
    const learned = this.deps.traces.learnedMode(model);
    return {
      provider, ref,
      setting: config.model.toolCallingByModel[model] ?? config.model.toolCalling,
      ...(learned === undefined ? {} : { learned }),
    };
  }

  /** Turn the turns finished since `options.since` into facts kept under the vault's `memory/` (one traced call of the default model). */
  consolidate(options: ConsolidateOptions): Promise<ConsolidateResult> {
    return consolidate({
      recall: this.deps.recall, vault: this.deps.vault, traces: this.deps.traces, now: () => this.deps.clock.now(),
      model: () => {
        const model = this.deps.config().model.default;
        if (model === undefined) throw new KowalskiError('KW_ERR_NO_MODEL', 'config.toml has no [model] default: choose one in Setup; consolidation uses it');
        return this.model(model);
      },
    }, options);
  }

  /** Stop every turn under way without ending it (they go on at the next start). */
  async close(): Promise<void> {
    this.stopping.abort(new KowalskiError('KW_ERR_ENGINE_CLOSING', 'the engine is closing; the turn goes on at the next start'));
    await Promise.allSettled([...this.running.values()]);
    for (const cancel of this.leaving.values()) cancel();
    this.leaving.clear();
    for (const s of this.live.values()) s.stop();
    this.live.clear();
  }
}
