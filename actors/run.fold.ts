/**
 * Drive the run machine: a live XState actor per active run whose only action records
 * the effects it names, so the engine can perform them after the commit. The machine
 * stays pure; nothing here does I/O.
 */
import { createActor } from 'xstate';
import type { Actor } from 'xstate';
import type { RunEvent } from './run.events.js';
import type { RunContext, RunState } from './run.context.js';
import type { RunEffect } from './run.logic.js';
import { checkRunEvent } from './run.logic.js';
import { runMachine } from './run.machine.js';

export type SendResult = { ok: true; effects: RunEffect[] } | { ok: false; reason: string };

export class RunActor {
  private readonly actor: Actor<typeof runMachine>;
  private effects: RunEffect[] = [];

  constructor(readonly runId: string, created: Extract<RunEvent, { type: 'run.created' }>) {
    this.actor = createActor(runMachine, { input: { runId, created } });
    this.actor.on('effect', (e) => void this.effects.push(e.effect));
    this.actor.start();
  }

  get context(): RunContext {
    return this.actor.getSnapshot().context;
  }

  get state(): RunState {
    return this.actor.getSnapshot().value as RunState;
  }

  /** One event through the machine; an event that does not fit is reported and not applied. */
  send(event: RunEvent): SendResult {
    const reason = checkRunEvent(this.context, event);
    if (reason !== undefined) return { ok: false, reason };
    this.actor.send(event);
    const effects = this.effects;
    this.effects = [];
    return { ok: true, effects };
  }

  stop(): void {
    this.actor.stop();
  }
}

/** Fold a whole log (first event `run.created`) into a live actor. */
export function foldRun(runId: string, events: readonly RunEvent[]): { ok: true; actor: RunActor } | { ok: false; index: number; reason: string } {
  const first = events[0];
  if (first === undefined || first.type !== 'run.created') return { ok: false, index: 0, reason: 'the log does not start with run.created' };
  const actor = new RunActor(runId, first);
  for (let i = 1; i < events.length; i++) {
    const r = actor.send(events[i]!);
    if (!r.ok) {
      actor.stop();
      return { ok: false, index: i, reason: r.reason };
    }
  }
  return { ok: true, actor };
}
