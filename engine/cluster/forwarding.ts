/**
 * An operator's action on a run another live node executes, carried out by that node.
 * The node the operator reached leaves a request for the holder (store/pg/requests.ts)
 * and waits for its answer; the holder takes the requests left for it, performs each as
 * its own operator action on its own live run, and writes the answer. Both sides are
 * woken by notifications (store/pg/listener.ts) and look again on a poll, so a lost
 * notification only delays.
 *
 * A holder that does not take the request in time (paused, or cut off while its lease
 * still runs) leaves it untaken: it is withdrawn and the action is refused naming that
 * node, nothing done. One that took it but did not answer in time is reported as such:
 * the action may have been performed.
 */
import { KowalskiError, isErrorCode, messageOf } from '../../core/index.js';
import type { Clock } from '../base/clock.js';
import type { ForwardedAction, PgRequests, RequestAnswer } from '../store/pg/requests.js';
import type { Timers } from '../base/timers.js';

export interface ForwardingDeps {
  requests: PgRequests;
  nodeId: string;
  clock: Clock;
  timers: Timers;
  /** Perform a request left for this node: the operator action, here. */
  perform(action: ForwardedAction, runId: string, args: Record<string, unknown>): Promise<unknown>;
  /** How long the asking node waits for the holder's answer, ms. */
  waitMs: number;
  /** How long a waiting ask sleeps when no notification wakes it, ms (short while the listener is down). */
  pollMs(): number;
  /** A request answered into a database that is gone: the asker will time out; the engine may say so. */
  onError(err: unknown): void;
}

export class Forwarding {
  /** Requests this node waits on → the function that wakes the wait. */
  private readonly waiting = new Map<number, () => void>();

  constructor(private readonly deps: ForwardingDeps) {}

  /** Ask node `to` to perform `action` on `runId`: resolves with its result, or throws its error (the same code). */
  async ask(to: string, runId: string, action: ForwardedAction, args: Record<string, unknown>): Promise<unknown> {
    const { requests, clock } = this.deps;
    const id = requests.leave(this.deps.nodeId, to, runId, action, args);
    const deadline = clock.now() + this.deps.waitMs;
    try {
      for (;;) {
        const state = requests.state(id);
        if (state?.answer !== undefined) return unwrap(state.answer);
        const left = deadline - clock.now();
        if (state === undefined || left <= 0) throw this.unanswered(to, runId, action, id);
        await this.nap(id, Math.min(left, this.deps.pollMs()));
      }
    } finally {
      this.waiting.delete(id);
      try {
        requests.forget(id);
      } catch {
        // The database is gone: the row is swept an hour later by whichever node takes requests.
      }
    }
  }

  /** A notification: request `id` was answered. */
  answered(id: number): void {
    this.waiting.get(id)?.();
  }

  /** Every waiting ask looks again (the listener came back: notifications may have been missed). */
  lookAll(): void {
    for (const wake of [...this.waiting.values()]) wake();
  }

  /** Take the requests left for this node and perform them; each answer is written when its action settles. */
  serve(): void {
    const { requests, perform } = this.deps;
    for (const r of requests.take(this.deps.nodeId)) {
      void perform(r.action, r.runId, r.args).then(
        (value): RequestAnswer => ({ ok: true, value: value ?? null }),
        (err: unknown): RequestAnswer => err instanceof KowalskiError
          ? { ok: false, code: err.code, message: err.message }
          : { ok: false, code: 'KW_ERR_INTERNAL', message: messageOf(err) },
      ).then((answer) => {
        try {
          requests.answer(r.id, answer);
        } catch (err) {
          this.deps.onError(err);
        }
      });
    }
  }

  private nap(id: number, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const cancel = this.deps.timers.at(this.deps.clock.now() + ms, () => wake());
      const wake = (): void => {
        cancel();
        this.waiting.delete(id);
        resolve();
      };
      this.waiting.set(id, wake);
    });
  }

  private unanswered(to: string, runId: string, action: ForwardedAction, id: number): KowalskiError {
    const secs = Math.round(this.deps.waitMs / 100) / 10;
    const verb = action.replace('_', ' ');
    if (this.deps.requests.withdraw(id)) {
      return new KowalskiError('KW_ERR_RUN_ELSEWHERE', `run ${runId} is being executed by node ${to}, which did not take the ${verb} within ${secs} s (paused or cut off?); nothing was done. Try again, or once its lease has passed to another node`);
    }
    return new KowalskiError('KW_ERR_RUN_ELSEWHERE', `node ${to}, which executes run ${runId}, took the ${verb} but did not answer within ${secs} s: look at the run before trying again`);
  }
}

function unwrap(answer: RequestAnswer): unknown {
  if (answer.ok) return answer.value ?? undefined;
  throw new KowalskiError(isErrorCode(answer.code) ? answer.code : 'KW_ERR_INTERNAL', answer.message);
}
