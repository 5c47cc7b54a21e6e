/**
 * Drive the chat machine: a live XState actor per loaded session. An event the machine
 * does not accept in its state is reported with the reason and not applied.
 */
import { createActor } from 'xstate';
import type { Actor } from 'xstate';
import type { ChatEvent } from './chat.events.js';
import type { ChatContext, ChatState } from './chat.logic.js';
import { chatMachine } from './chat.machine.js';
import { foldRest } from './fold-log.js';

export type ChatSendResult = { ok: true } | { ok: false; reason: string };

export class ChatActor {
  private readonly actor: Actor<typeof chatMachine>;

  constructor(readonly sessionId: string, created: Extract<ChatEvent, { type: 'session.created' }>) {
    this.actor = createActor(chatMachine, { input: { sessionId, created } });
    this.actor.start();
  }

  get context(): ChatContext {
    return this.actor.getSnapshot().context;
  }

  get state(): ChatState {
    return this.actor.getSnapshot().value as ChatState;
  }

  /** Would the machine accept this event now? */
  accepts(event: ChatEvent): boolean {
    return this.actor.getSnapshot().can(event);
  }

  send(event: ChatEvent): ChatSendResult {
    const before = this.actor.getSnapshot();
    if (!before.can(event)) return { ok: false, reason: `${event.type} is not accepted while the session is ${String(before.value)}${'turn' in event ? ` (turn ${event.turn})` : ''}` };
    this.actor.send(event);
    return { ok: true };
  }

  stop(): void {
    this.actor.stop();
  }
}

/** Fold a whole log (first event `session.created`) into a live actor. */
export function foldChat(sessionId: string, events: readonly ChatEvent[]): { ok: true; actor: ChatActor } | { ok: false; index: number; reason: string } {
  const first = events[0];
  if (first === undefined || first.type !== 'session.created') return { ok: false, index: 0, reason: 'the log does not start with session.created' };
  return foldRest(new ChatActor(sessionId, first), events);
}
