/**
 * The life of a chat session, as one XState v5 machine. A session is idle between
 * turns, running while a turn is under way, or exhausted when a turn's budget of model
 * calls ran out (the operator may grant more, and the same turn goes on). Each state
 * lists the events it accepts, each a guarded transition with its context update; an
 * event a state does not list, or whose guard fails, is refused — so the budget is the
 * machine's rule: a model call past it cannot be recorded.
 */
import { assign, setup } from 'xstate';
import type { ChatEvent } from './chat.events.js';
import type { ChatContext } from './chat.logic.js';
import {
  canDelegate, canEndCall, canEndDelegation, canEndTool, canEndTurn, canGrant, canRecall, canStartCall, canStartTool, canSummarize, endCall,
  endDelegation, endTool, endTurn, endsExhausted, grantBudget, initialChatContext, isNextTurn, recordMemories, recordSummary, startCall,
  startDelegation, startTool, startTurn,
} from './chat.logic.js';

export interface ChatMachineInput {
  sessionId: string;
  created: Extract<ChatEvent, { type: 'session.created' }>;
}

type Of<T extends ChatEvent['type']> = Extract<ChatEvent, { type: T }>;

const newTurn = { guard: 'it is the next turn', target: 'running', actions: 'open the turn' } as const;

export const chatMachine = setup({
  types: {
    context: {} as ChatContext,
    events: {} as ChatEvent,
    input: {} as ChatMachineInput,
  },
  actions: {
    'open the turn': assign(({ context, event }) => startTurn(context, event as Of<'turn.started'>)),
    'count the call': assign(({ context, event }) => startCall(context, event as Of<'model.started'>)),
    'record the answer': assign(({ context, event }) => endCall(context, event as Of<'model.finished'> | Of<'model.failed'>)),
    'record the intent': assign(({ context, event }) => startTool(context, event as Of<'tool.started'>)),
    'record the result': assign(({ context, event }) => endTool(context, event as Of<'tool.finished'>)),
    'add the node': assign(({ context, event }) => startDelegation(context, event as Of<'delegation.started'>)),
    'end the node': assign(({ context, event }) => endDelegation(context, event as Of<'delegation.finished'>)),
    'close the turn': assign(({ context, event }) => endTurn(context, event as Of<'turn.finished'>)),
    'raise the budget': assign(({ context, event }) => grantBudget(context, event as Of<'budget.granted'>)),
    'keep the memories': assign(({ context, event }) => recordMemories(context, event as Of<'memory.recalled'>)),
    'move the summary on': assign(({ context, event }) => recordSummary(context, event as Of<'memory.summarized'>)),
  },
  guards: {
    'it is the next turn': ({ context, event }) => isNextTurn(context, event as Of<'turn.started'>),
    'budget left, and the call is new': ({ context, event }) => canStartCall(context, event as Of<'model.started'>),
    'the call was started and has no answer': ({ context, event }) => canEndCall(context, event as Of<'model.finished'> | Of<'model.failed'>),
    'its model call has answered, and it is new': ({ context, event }) => canStartTool(context, event as Of<'tool.started'>),
    'the tool was started and has no result': ({ context, event }) => canEndTool(context, event as Of<'tool.finished'>),
    'the parent is in the tree, the node is new': ({ context, event }) => canDelegate(context, event as Of<'delegation.started'>),
    'the node runs': ({ context, event }) => canEndDelegation(context, event as Of<'delegation.finished'>),
    'it is this turn, stopped by the budget': ({ context, event }) =>
      canEndTurn(context, event as Of<'turn.finished'>) && endsExhausted(context, event as Of<'turn.finished'>),
    'it is this turn': ({ context, event }) => canEndTurn(context, event as Of<'turn.finished'>),
    'the turn stopped on its budget': ({ context, event }) => canGrant(context, event as Of<'budget.granted'>),
    'it is this turn, and its memories are not recorded': ({ context, event }) => canRecall(context, event as Of<'memory.recalled'>),
    'it is this turn, and the fold moves forward': ({ context, event }) => canSummarize(context, event as Of<'memory.summarized'>),
  },
}).createMachine({
  id: 'chat',
  context: ({ input }) => initialChatContext(input.sessionId, input.created),
  initial: 'idle',
  states: {
    /** Between turns: the next message opens one. */
    idle: { on: { 'turn.started': newTurn } },
    /** A turn is under way: its memories and the summary of earlier turns first, then model calls (each costs one of the budget), tool calls, delegations. */
    running: {
      on: {
        'memory.recalled': { guard: 'it is this turn, and its memories are not recorded', actions: 'keep the memories' },
        'memory.summarized': { guard: 'it is this turn, and the fold moves forward', actions: 'move the summary on' },
        'model.started': { guard: 'budget left, and the call is new', actions: 'count the call' },
        'model.finished': { guard: 'the call was started and has no answer', actions: 'record the answer' },
        'model.failed': { guard: 'the call was started and has no answer', actions: 'record the answer' },
        'tool.started': { guard: 'its model call has answered, and it is new', actions: 'record the intent' },
        'tool.finished': { guard: 'the tool was started and has no result', actions: 'record the result' },
        'delegation.started': { guard: 'the parent is in the tree, the node is new', actions: 'add the node' },
        'delegation.finished': { guard: 'the node runs', actions: 'end the node' },
        'turn.finished': [
          { guard: 'it is this turn, stopped by the budget', target: 'exhausted', actions: 'close the turn' },
          { guard: 'it is this turn', target: 'idle', actions: 'close the turn' },
        ],
      },
    },
    /** The turn's budget ran out: more budget goes on with the same turn; a new message leaves it as it stopped. */
    exhausted: {
      on: {
        'budget.granted': { guard: 'the turn stopped on its budget', target: 'running', actions: 'raise the budget' },
        'turn.started': newTurn,
      },
    },
  },
});
