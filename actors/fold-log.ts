/** Feed the rest of a log (after its first event, which made the actor) to a live actor; the first event refused stops the actor and is reported. */
export interface LogActor<E> {
  send(event: E): { ok: true } | { ok: false; reason: string };
  stop(): void;
}

export function foldRest<A extends LogActor<E>, E>(actor: A, events: readonly E[]): { ok: true; actor: A } | { ok: false; index: number; reason: string } {
  for (let i = 1; i < events.length; i++) {
    const r = actor.send(events[i]!);
    if (!r.ok) {
      actor.stop();
      return { ok: false, index: i, reason: r.reason };
    }
  }
  return { ok: true, actor };
}
