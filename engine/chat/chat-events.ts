/** Stored chat events: the chat machine's events (actors/chat.events.ts) in the versioned envelope. */
import type { ChatEvent } from '../../actors/index.js';
import { envelopeOf } from '../store/envelope.js';

export interface StoredChatEvent {
  sessionId: string;
  /** Per-session order, from 1. */
  seq: number;
  /** Engine clock at append, ms since epoch. */
  at: number;
  event: ChatEvent;
}

export const chatEnvelope = envelopeOf<ChatEvent>({
  'session.created': { current: 1, required: ['agent', 'title', 'by'], upcast: {} },
  'turn.started': { current: 1, required: ['turn', 'text', 'agent', 'budget', 'by'], upcast: {} },
  'budget.granted': { current: 1, required: ['turn', 'extra', 'by'], upcast: {} },
  'model.started': { current: 1, required: ['turn', 'node', 'seq'], upcast: {} },
  'model.finished': { current: 1, required: ['turn', 'node', 'seq', 'response'], upcast: {} },
  'model.failed': { current: 1, required: ['turn', 'node', 'seq', 'error'], upcast: {} },
  'tool.started': { current: 1, required: ['turn', 'node', 'seq', 'index', 'name', 'arguments', 'idempotent'], upcast: {} },
  'tool.finished': { current: 1, required: ['turn', 'node', 'seq', 'index', 'result'], upcast: {} },
  'delegation.started': { current: 1, required: ['turn', 'node', 'parent', 'agent', 'task'], upcast: {} },
  'delegation.finished': { current: 1, required: ['turn', 'node', 'text'], upcast: {} },
  'turn.finished': { current: 1, required: ['turn', 'text', 'stop', 'usage'], upcast: {} },
  'memory.recalled': { current: 1, required: ['turn', 'memories'], upcast: {} },
  'memory.summarized': { current: 1, required: ['turn', 'through', 'text', 'usage'], upcast: {} },
});
