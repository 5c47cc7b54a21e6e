/**
 * The durable inbound record: `accept()` commits a message (deduplicated by its delivery id
 * and dedupe keys) before anything else happens; then each conversation's messages go, one
 * at a time and in order, through its chat session with the adapter's agent — the session
 * and turn a message goes to are recorded before it is sent there (a crash between the two
 * is told apart from one after by looking at the session), the answer is recorded, then the
 * adapter's `reply()` is called, tried again with a pause when it throws (bounded); a turn
 * that ends without an answer fails the record, and an adapter that can (`replyFailed`) says so. A
 * message arriving while its session answers another waits (`received`) for that turn's
 * end. After a restart, `resume()` takes every record not settled from where it stopped.
 */
import { KowalskiError, messageOf } from '../../core/index.js';
import type { ChatService } from '../chat/index.js';
import { MAX_MESSAGE_CHARS } from '../chat/index.js';
import type { Clock } from '../base/clock.js';
import type { CrashHook } from '../base/crash.js';
import type { AdapterMessageRow, AdapterQueries } from '../store/sql/adapters.js';
import type { Timers } from '../base/timers.js';
import type { Accepted, AdapterInstance, InboundMessage, InboundRecord } from './types.js';

export type InboundChat = Pick<ChatService, 'create' | 'send' | 'summary' | 'get' | 'turnUnderWay' | 'recover'>;

/** A running adapter, as the records need it. */
export interface InboundTarget {
  agent: string | null;
  instance: AdapterInstance;
}

export interface InboundDeps {
  /** The records: the data folder's SQLite, or the Postgres store the nodes share. */
  queries: AdapterQueries;
  /** Where each conversation's messages are answered. */
  chat: InboundChat;
  clock: Clock;
  timers: Timers;
  crash: CrashHook;
  /** The adapter while it runs; undefined when stopped (its records wait for its next start). */
  target(adapter: string): InboundTarget | undefined;
  activity(adapter: string): void;
  failed(adapter: string, err: KowalskiError): void;
  /** Pauses before the 2nd, 3rd… reply attempt, ms; its length + 1 is the most attempts (default [2000, 10000]: 3 attempts). */
  replyBackoffMs?: readonly number[];
}

/** Dedupe keys are kept this long (at least 24 h: Slack retries for hours), ms. */
export const DEDUPE_KEEP_MS = 7 * 24 * 3600 * 1000;
const DEFAULT_BACKOFF_MS = [2000, 10_000] as const;
const ID_MAX = 500;
const SETTLED = new Set(['replied', 'failed', 'ignored']);

export function recordOf(row: AdapterMessageRow): InboundRecord {
  return {
    id: row.id, adapter: row.adapter, deliveryId: row.delivery_id, conversation: row.conversation, from: row.sender, text: row.text,
    replyTo: JSON.parse(row.reply_to) as Record<string, unknown>, state: row.state, sessionId: row.session_id, turn: row.turn,
    answer: row.answer, replyAttempts: row.reply_attempts, lastError: row.last_error, createdAt: row.created_at, updatedAt: row.updated_at,
  };
}


/** How a turn ended, as a record needs it. */
interface TurnResult { text: string; stop: string; error?: { code?: string; message: string } }

/** The engine is closing: what a pump waiting for it hears. */
class Closing extends Error {}

export class Inbound {
  private readonly pumps = new Map<string, Promise<void>>();
  private readonly waiters = new Map<number, Array<(r: InboundRecord) => void>>();
  private readonly sleeps = new Set<() => void>();
  private readonly stopping = new AbortController();
  private readonly backoff: readonly number[];

  constructor(private readonly deps: InboundDeps) {
    this.backoff = deps.replyBackoffMs ?? DEFAULT_BACKOFF_MS;
  }

  /** Record the message (committed when this returns), or find the one it duplicates; its conversation goes on if the adapter runs. */
  accept(adapter: string, message: InboundMessage): Accepted {
    this.check(adapter, message);
    const { queries } = this.deps;
    const now = this.deps.clock.now();
    const keys = [...new Set(message.dedupeKeys ?? [])];
    const taken = queries.transaction((): { status: Accepted['status']; row: AdapterMessageRow } => {
      const prior = queries.byDelivery(adapter, message.deliveryId) ?? keys.map((k) => queries.byKey(adapter, k)).find((r) => r !== undefined);
      if (prior !== undefined) return { status: 'duplicate', row: prior };
      const id = queries.insert(adapter, message.deliveryId, message.conversation, message.from, message.text, JSON.stringify(message.replyTo), now);
      // Another node's record of this delivery id, committed since the look-up (the unique key refused ours).
      if (id === undefined) return { status: 'duplicate', row: queries.byDelivery(adapter, message.deliveryId)! };
      for (const key of keys) queries.addKey(adapter, key, id, now);
      return { status: 'accepted', row: queries.byId(id)! };
    });
    const record = recordOf(taken.row);
    const done = this.settled(record);
    if (taken.status === 'accepted') {
      this.deps.crash('adapter-after-accept');
      this.deps.activity(adapter);
      this.pump(adapter, record.conversation);
    }
    return { status: taken.status, record, done };
  }

  record(id: number): InboundRecord | undefined {
    const row = this.deps.queries.byId(id);
    return row === undefined ? undefined : recordOf(row);
  }

  /** Go on with every record of the adapter not yet settled (at its start). */
  resume(adapter: string): void {
    this.deps.queries.pruneKeys(this.deps.clock.now() - DEDUPE_KEEP_MS);
    this.pickUp(adapter);
  }

  /**
   * Go on with the adapter's conversations that have a record not settled and that no one
   * answers: on a shared store, those a node that died was answering (its hold on each
   * went with its connection); a conversation this node or another live node answers is
   * left as it is.
   */
  pickUp(adapter: string): void {
    if (this.stopping.signal.aborted) return;
    for (const conversation of this.deps.queries.openConversations(adapter)) this.pump(adapter, conversation);
  }

  /** Stop every conversation where it is (records stay as they are: the next start goes on from there). */
  close(): void {
    this.stopping.abort();
    for (const wake of this.sleeps) wake();
    for (const [id, fns] of this.waiters) {
      const record = this.record(id);
      if (record !== undefined) for (const fn of fns) fn(record);
    }
    this.waiters.clear();
  }

  private check(adapter: string, m: InboundMessage): void {
    const bad = (what: string): KowalskiError => new KowalskiError('KW_ERR_INPUT_INVALID', `adapter ${adapter}: ${what}`);
    if (typeof m.deliveryId !== 'string' || m.deliveryId === '' || m.deliveryId.length > ID_MAX) throw bad(`a message needs a delivery id of 1 to ${ID_MAX} characters`);
    if (typeof m.conversation !== 'string' || m.conversation === '' || m.conversation.length > ID_MAX) throw bad(`a message needs a conversation of 1 to ${ID_MAX} characters`);
    if (typeof m.text !== 'string' || m.text.trim() === '') throw bad('the message has no text');
    if (m.text.length > MAX_MESSAGE_CHARS) throw bad(`the message has ${m.text.length} characters; at most ${MAX_MESSAGE_CHARS} are taken`);
    if ((m.dedupeKeys ?? []).some((k) => typeof k !== 'string' || k === '' || k.length > ID_MAX)) throw bad(`a dedupe key must have 1 to ${ID_MAX} characters`);
  }

  /** Resolves with the record once it is settled (at once if it is), or as it is when the engine closes. */
  private settled(record: InboundRecord): Promise<InboundRecord> {
    if (SETTLED.has(record.state)) return Promise.resolve(record);
    return new Promise((resolve) => {
      const list = this.waiters.get(record.id) ?? [];
      list.push(resolve);
      this.waiters.set(record.id, list);
    });
  }

  private wake(id: number): void {
    const fns = this.waiters.get(id);
    if (fns === undefined) return;
    this.waiters.delete(id);
    const record = this.record(id)!;
    for (const fn of fns) fn(record);
  }

  /**
   * The conversation's open messages, one after the other; one pump per conversation at a
   * time, and, for nodes sharing a store, one node at a time: a node that finds another
   * answering the conversation leaves the message to it (that node reads it next).
   */
  private pump(adapter: string, conversation: string): void {
    const key = `${adapter}\0${conversation}`;
    if (this.pumps.has(key) || this.stopping.signal.aborted) return;
    const { queries } = this.deps;
    /** Whether it ran out of open messages (another node may have recorded one since its last look). */
    const run = async (): Promise<boolean> => {
      if (!queries.holdConversation(adapter, conversation)) return false;
      try {
        for (;;) {
          if (this.stopping.signal.aborted) return false;
          const row = queries.nextOpen(adapter, conversation);
          if (row === undefined) return true;
          const target = this.deps.target(adapter);
          if (target === undefined) return false; // stopped: its records wait for its next start
          if (!(await this.step(row, target))) return false;
        }
      } finally {
        queries.releaseConversation(adapter, conversation);
      }
    };
    const going = run().then((drained) => {
      this.pumps.delete(key);
      // A message another node recorded while this one held the conversation was left to it: look once more.
      if (drained && queries.nextOpen(adapter, conversation) !== undefined) this.pump(adapter, conversation);
    }).catch((err: unknown) => {
      this.pumps.delete(key);
      if (!(err instanceof Closing) && !this.stopping.signal.aborted) {
        this.deps.failed(adapter, new KowalskiError('KW_ERR_INTERNAL', `adapter ${adapter}: conversation ${conversation}: ${messageOf(err)}`, { cause: err }));
      }
    });
    this.pumps.set(key, going);
  }

  /** One step of a record's life; false: stop this conversation for now. */
  private async step(row: AdapterMessageRow, target: InboundTarget): Promise<boolean> {
    switch (row.state) {
      case 'received':
      case 'answering':
        return this.answer(row, target);
      case 'answered':
        return this.reply(row, target);
      default:
        return true;
    }
  }

  /** The message's turn: sent (unless the session has it already), its answer awaited and recorded. */
  private async answer(row: AdapterMessageRow, target: InboundTarget): Promise<boolean> {
    const { chat } = this.deps;
    if (target.agent === null) return this.failTurn(row, target, new KowalskiError('KW_ERR_ADAPTER_CONFIG', `adapter ${row.adapter} has no agent to answer its messages`));
    let sessionId = row.session_id ?? this.deps.queries.sessionOf(row.adapter, row.conversation);
    if (sessionId === undefined) {
      try {
        sessionId = chat.create({ agent: target.agent, title: `${row.adapter}: ${row.conversation}`, by: `adapter:${row.adapter}` }).id;
      } catch (err) {
        return this.failTurn(row, target, err);
      }
      this.deps.queries.setSession(row.adapter, row.conversation, sessionId, this.deps.clock.now());
      // Another node may have started this conversation's session at the same moment: the one recorded is the conversation's.
      sessionId = this.deps.queries.sessionOf(row.adapter, row.conversation) ?? sessionId;
    }
    let outcome = row.turn === null ? undefined : this.recordedTurn(sessionId, row.turn, row.text);
    if (outcome === undefined) {
      await this.untilIdle(sessionId);
      const turn = chat.summary(sessionId).turns + 1;
      // The identity first: after a crash, the session tells whether this turn was sent.
      this.deps.queries.answering(row.id, sessionId, turn, this.deps.clock.now());
      try {
        outcome = chat.send(sessionId, row.text, { by: `adapter:${row.adapter}:${row.sender}` }).done;
      } catch (err) {
        return this.failTurn(row, target, err);
      }
    }
    let result: TurnResult;
    try {
      result = await this.unlessClosing(outcome);
    } catch (err) {
      if (err instanceof Closing || this.stopping.signal.aborted) throw new Closing();
      return this.failTurn(row, target, err);
    }
    if (result.stop !== 'done') {
      const why = result.stop === 'budget_exhausted' ? 'used up its budget' : `failed: ${result.error?.message ?? 'no answer'}`;
      const told = result.stop === 'budget_exhausted' ? 'the agent used up its budget before it had an answer' : `the agent's turn failed (${result.error?.code ?? 'no answer'})`;
      return this.failTurn(row, target, new KowalskiError('KW_ERR_ADAPTER_TURN', `adapter ${row.adapter}: the turn of delivery ${row.delivery_id} ${why}; no answer was sent back`), told);
    }
    this.deps.queries.answered(row.id, result.text, this.deps.clock.now());
    this.deps.crash('adapter-before-reply');
    return true;
  }

  /** The outcome of turn `turn` when the session has it (ended, or under way); undefined when it was never sent. */
  private recordedTurn(sessionId: string, turn: number, text: string): Promise<TurnResult> | undefined {
    const { chat } = this.deps;
    const view = chat.get(sessionId).transcript.find((t) => t.turn === turn);
    if (view === undefined || view.text !== text) return undefined;
    if (view.answer !== undefined) return Promise.resolve(view.answer);
    return (async () => {
      await this.untilIdle(sessionId);
      const ended = chat.get(sessionId).transcript.find((t) => t.turn === turn)?.answer;
      return ended ?? { text: '', stop: 'error', error: { message: 'the turn did not end' } };
    })();
  }

  /** Until the session answers no turn (one under way, e.g. recovered after a crash, or sent from the app). */
  private async untilIdle(sessionId: string): Promise<void> {
    const { chat } = this.deps;
    while (chat.summary(sessionId).state === 'running') {
      let under = chat.turnUnderWay(sessionId);
      if (under === undefined) {
        chat.recover(); // a turn cut by a crash that nobody resumed yet
        under = chat.turnUnderWay(sessionId);
      }
      if (under === undefined) await this.sleep(200);
      else await this.unlessClosing(under.then(() => undefined, () => undefined));
      if (this.stopping.signal.aborted) throw new Closing();
    }
  }

  /** Send the answer back; a throw is tried again after a pause, at most `backoff.length + 1` times in all. */
  private async reply(row: AdapterMessageRow, target: InboundTarget): Promise<boolean> {
    const send = target.instance.reply?.bind(target.instance);
    if (send === undefined) {
      // The adapter answers in the request itself (the webhook without a callback_url).
      this.settle(row, 'replied', null);
      return true;
    }
    try {
      await send(recordOf(row), row.answer ?? '');
    } catch (err) {
      if (this.stopping.signal.aborted) throw new Closing();
      const now = this.deps.clock.now();
      this.deps.queries.replyFailed(row.id, messageOf(err), now);
      const attempts = row.reply_attempts + 1;
      const pause = this.backoff[attempts - 1];
      if (pause === undefined) {
        return this.fail(row, new KowalskiError('KW_ERR_ADAPTER_REPLY', `adapter ${row.adapter}: the reply to delivery ${row.delivery_id} failed ${attempts} times; the last error: ${messageOf(err)}`));
      }
      await this.sleep(pause);
      return !this.stopping.signal.aborted;
    }
    this.deps.crash('adapter-after-reply');
    if (this.stopping.signal.aborted) throw new Closing();
    this.deps.queries.replied(row.id, this.deps.clock.now());
    this.deps.activity(row.adapter);
    this.wake(row.id);
    return true;
  }

  /**
   * The turn gave no answer: the record fails, then the adapter, if it can, tells the
   * channel so (once; a failure to tell is counted as the adapter's error, never retried).
   * `told` is what the sender reads (default: the error's code, never its message).
   */
  private async failTurn(row: AdapterMessageRow, target: InboundTarget, err: unknown, told?: string): Promise<true> {
    this.fail(row, err);
    const tell = target.instance.replyFailed?.bind(target.instance);
    if (tell === undefined) return true;
    const code = err instanceof KowalskiError ? err.code : 'KW_ERR_ADAPTER_TURN';
    try {
      await tell(recordOf(row), `kowalski could not answer this: ${told ?? `the message could not be answered (${code})`}. The operator sees why in kowalski's Adapters screen.`);
    } catch (notice) {
      if (this.stopping.signal.aborted) return true;
      this.deps.failed(row.adapter, new KowalskiError('KW_ERR_ADAPTER_REPLY', `adapter ${row.adapter}: telling delivery ${row.delivery_id} that no answer will come failed: ${messageOf(notice)}`, { cause: notice }));
    }
    return true;
  }

  private fail(row: AdapterMessageRow, err: unknown): true {
    const error = err instanceof KowalskiError ? err : new KowalskiError('KW_ERR_ADAPTER_TURN', `adapter ${row.adapter}: delivery ${row.delivery_id}: ${messageOf(err)}`, { cause: err });
    this.settle(row, 'failed', error.message);
    this.deps.failed(row.adapter, error);
    return true;
  }

  private settle(row: AdapterMessageRow, state: 'replied' | 'failed', error: string | null): void {
    this.deps.queries.settle(row.id, state, error, this.deps.clock.now());
    this.wake(row.id);
  }

  /** A pause on the engine's timers, cut short by close. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      // Timers may call back at once (a due time): `timer.cancel` is set only after.
      const timer: { cancel?: () => void } = {};
      const wake = (): void => {
        this.sleeps.delete(wake);
        timer.cancel?.();
        resolve();
      };
      this.sleeps.add(wake);
      timer.cancel = this.deps.timers.at(this.deps.clock.now() + ms, wake);
    });
  }

  /** `p`, or Closing as soon as the engine closes. */
  private unlessClosing<T>(p: Promise<T>): Promise<T> {
    const signal = this.stopping.signal;
    if (signal.aborted) return Promise.reject(new Closing());
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(new Closing());
      signal.addEventListener('abort', onAbort, { once: true });
      p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }
}
