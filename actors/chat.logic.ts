/**
 * A chat session's context and the pure updates and guards of its machine
 * (chat.machine.ts). No I/O, no clock.
 */
import type { EventError } from './run.events.js';
import type { ChatEvent, ChatStop, InjectedMemory, ProfileSnapshot, RecordedResponse, TurnUsage, UndoneWork } from './chat.events.js';
import type { ChatState } from '../contract/chat.js';
export type { ChatState } from '../contract/chat.js';

export const CHAT_STATES: readonly ChatState[] = ['idle', 'running', 'exhausted'];

/** The id of the root node of every turn. */
export const ROOT_NODE = 'r';

/** A node of the turn's tree: the root agent, or a delegation. */
export interface TurnNode {
  agent: ProfileSnapshot;
  /** null for the root. */
  parent: string | null;
  task: string;
  /** Set when the delegation ended. */
  ended?: { text: string; error?: EventError };
}

export interface RecordedCall {
  response?: RecordedResponse;
  error?: EventError;
}

export interface RecordedTool {
  name: string;
  arguments: Record<string, unknown>;
  idempotent: boolean;
  ended?: { result: string; error?: EventError; meta?: Record<string, unknown> };
}

/** The turn in progress (or the last one): everything a resumed turn replays. */
export interface TurnRecord {
  turn: number;
  text: string;
  budget: { limit: number; used: number };
  nodes: Record<string, TurnNode>;
  /** By `node:seq`. */
  calls: Record<string, RecordedCall>;
  /** By `node:seq.index`. */
  tools: Record<string, RecordedTool>;
  ended?: { text: string; stop: ChatStop; usage: TurnUsage; error?: EventError; undone?: UndoneWork[] };
  /** The memories given before the turn, once recorded (`memory.recalled`). */
  memories?: { list: InjectedMemory[]; error?: EventError };
}

/** One exchange of the conversation, as the next turns see it. */
export interface Exchange {
  turn: number;
  user: string;
  assistant: string;
  stop: ChatStop;
}

export interface ChatContext {
  sessionId: string;
  agent: string;
  title: string;
  history: Exchange[];
  current?: TurnRecord;
  /** The running summary of the earlier turns, `1..through` (working memory); absent until the first fold. */
  summary?: { through: number; text: string };
  /** Every model call of the session, and its tokens. */
  totals: { calls: number; inputTokens: number; outputTokens: number };
}

type Of<T extends ChatEvent['type']> = Extract<ChatEvent, { type: T }>;

export const callKey = (node: string, seq: number): string => `${node}:${seq}`;
export const toolKey = (node: string, seq: number, index: number): string => `${node}:${seq}.${index}`;
/** The node a delegation asked for by tool call `index` of model call `seq` of `parent` runs as. */
export const childNode = (parent: string, seq: number, index: number): string => `${parent}/${seq}.${index}`;

export function initialChatContext(sessionId: string, created: Of<'session.created'>): ChatContext {
  return { sessionId, agent: created.agent, title: created.title, history: [], totals: { calls: 0, inputTokens: 0, outputTokens: 0 } };
}

/** Model calls still allowed in the current turn. */
export function budgetLeft(ctx: ChatContext): number {
  const b = ctx.current?.budget;
  return b === undefined ? 0 : Math.max(0, b.limit - b.used);
}

/** The chain of agents from the root to `node` (for the depth cap and cycles). */
export function agentChain(turn: TurnRecord, node: string): string[] {
  const chain: string[] = [];
  for (let n: string | null = node; n !== null; n = turn.nodes[n]?.parent ?? null) {
    const found: TurnNode | undefined = turn.nodes[n];
    if (found === undefined) break;
    chain.unshift(found.agent.name);
  }
  return chain;
}

// Guards.

export const isNextTurn = (ctx: ChatContext, e: Of<'turn.started'>): boolean => e.turn === (ctx.current?.turn ?? 0) + 1 && e.budget >= 1;
const isCurrent = (ctx: ChatContext, turn: number): ctx is ChatContext & { current: TurnRecord } => ctx.current !== undefined && ctx.current.turn === turn && ctx.current.ended === undefined;

export const canStartCall = (ctx: ChatContext, e: Of<'model.started'>): boolean =>
  isCurrent(ctx, e.turn) && ctx.current.nodes[e.node] !== undefined && ctx.current.nodes[e.node]!.ended === undefined &&
  ctx.current.calls[callKey(e.node, e.seq)] === undefined && budgetLeft(ctx) > 0;

export const canEndCall = (ctx: ChatContext, e: Of<'model.finished'> | Of<'model.failed'>): boolean => {
  if (!isCurrent(ctx, e.turn)) return false;
  const call = ctx.current.calls[callKey(e.node, e.seq)];
  return call !== undefined && call.response === undefined && call.error === undefined;
};

export const canStartTool = (ctx: ChatContext, e: Of<'tool.started'>): boolean =>
  isCurrent(ctx, e.turn) && ctx.current.calls[callKey(e.node, e.seq)]?.response !== undefined &&
  ctx.current.tools[toolKey(e.node, e.seq, e.index)] === undefined;

export const canEndTool = (ctx: ChatContext, e: Of<'tool.finished'>): boolean => {
  if (!isCurrent(ctx, e.turn)) return false;
  const tool = ctx.current.tools[toolKey(e.node, e.seq, e.index)];
  return tool !== undefined && tool.ended === undefined;
};

export const canDelegate = (ctx: ChatContext, e: Of<'delegation.started'>): boolean =>
  isCurrent(ctx, e.turn) && ctx.current.nodes[e.parent] !== undefined && ctx.current.nodes[e.node] === undefined;

export const canEndDelegation = (ctx: ChatContext, e: Of<'delegation.finished'>): boolean =>
  isCurrent(ctx, e.turn) && e.node !== ROOT_NODE && ctx.current.nodes[e.node] !== undefined && ctx.current.nodes[e.node]!.ended === undefined;

export const canEndTurn = (ctx: ChatContext, e: Of<'turn.finished'>): boolean => isCurrent(ctx, e.turn);
export const endsExhausted = (_ctx: ChatContext, e: Of<'turn.finished'>): boolean => e.stop === 'budget_exhausted';

export const canRecall = (ctx: ChatContext, e: Of<'memory.recalled'>): boolean => isCurrent(ctx, e.turn) && ctx.current.memories === undefined;

/** A fold moves forward over turns that have ended (the current one is never folded). */
export const canSummarize = (ctx: ChatContext, e: Of<'memory.summarized'>): boolean =>
  isCurrent(ctx, e.turn) && e.through < e.turn && e.through > (ctx.summary?.through ?? 0);

export const canGrant = (ctx: ChatContext, e: Of<'budget.granted'>): boolean =>
  ctx.current !== undefined && ctx.current.turn === e.turn && ctx.current.ended?.stop === 'budget_exhausted' && e.extra >= 1;

// Updates.

function withTurn(ctx: ChatContext, change: (t: TurnRecord) => TurnRecord): ChatContext {
  return { ...ctx, current: change(ctx.current!) };
}

export function startTurn(ctx: ChatContext, e: Of<'turn.started'>): ChatContext {
  return {
    ...ctx,
    current: {
      turn: e.turn, text: e.text, budget: { limit: e.budget, used: 0 },
      nodes: { [ROOT_NODE]: { agent: e.agent, parent: null, task: e.text } }, calls: {}, tools: {},
    },
  };
}

export const startCall = (ctx: ChatContext, e: Of<'model.started'>): ChatContext => ({
  ...withTurn(ctx, (t) => ({ ...t, budget: { ...t.budget, used: t.budget.used + 1 }, calls: { ...t.calls, [callKey(e.node, e.seq)]: {} } })),
  totals: { ...ctx.totals, calls: ctx.totals.calls + 1 },
});

export const endCall = (ctx: ChatContext, e: Of<'model.finished'> | Of<'model.failed'>): ChatContext => {
  const next = withTurn(ctx, (t) => ({
    ...t, calls: { ...t.calls, [callKey(e.node, e.seq)]: e.type === 'model.finished' ? { response: e.response } : { error: e.error } },
  }));
  if (e.type === 'model.failed') return next;
  const { inputTokens, outputTokens } = e.response.usage;
  return { ...next, totals: { ...ctx.totals, inputTokens: ctx.totals.inputTokens + inputTokens, outputTokens: ctx.totals.outputTokens + outputTokens } };
};

export const startTool = (ctx: ChatContext, e: Of<'tool.started'>): ChatContext => withTurn(ctx, (t) => ({
  ...t, tools: { ...t.tools, [toolKey(e.node, e.seq, e.index)]: { name: e.name, arguments: e.arguments, idempotent: e.idempotent } },
}));

export const endTool = (ctx: ChatContext, e: Of<'tool.finished'>): ChatContext => withTurn(ctx, (t) => {
  const key = toolKey(e.node, e.seq, e.index);
  const ended = { result: e.result, ...(e.error === undefined ? {} : { error: e.error }), ...(e.meta === undefined ? {} : { meta: e.meta }) };
  return { ...t, tools: { ...t.tools, [key]: { ...t.tools[key]!, ended } } };
});

export const startDelegation = (ctx: ChatContext, e: Of<'delegation.started'>): ChatContext => withTurn(ctx, (t) => ({
  ...t, nodes: { ...t.nodes, [e.node]: { agent: e.agent, parent: e.parent, task: e.task } },
}));

export const endDelegation = (ctx: ChatContext, e: Of<'delegation.finished'>): ChatContext => withTurn(ctx, (t) => ({
  ...t, nodes: { ...t.nodes, [e.node]: { ...t.nodes[e.node]!, ended: { text: e.text, ...(e.error === undefined ? {} : { error: e.error }) } } },
}));

export function endTurn(ctx: ChatContext, e: Of<'turn.finished'>): ChatContext {
  const t = ctx.current!;
  const exchange: Exchange = { turn: e.turn, user: t.text, assistant: e.text, stop: e.stop };
  const history = ctx.history.at(-1)?.turn === e.turn ? [...ctx.history.slice(0, -1), exchange] : [...ctx.history, exchange];
  const ended = { text: e.text, stop: e.stop, usage: e.usage, ...(e.error === undefined ? {} : { error: e.error }), ...(e.undone === undefined ? {} : { undone: e.undone }) };
  return { ...ctx, history, current: { ...t, ended } };
}

export const recordMemories = (ctx: ChatContext, e: Of<'memory.recalled'>): ChatContext =>
  withTurn(ctx, (t) => ({ ...t, memories: { list: e.memories, ...(e.error === undefined ? {} : { error: e.error }) } }));

/** The summary moves on; its model call counts in the session's totals (not in the turn's budget). */
export const recordSummary = (ctx: ChatContext, e: Of<'memory.summarized'>): ChatContext => ({
  ...ctx,
  summary: { through: e.through, text: e.text },
  totals: {
    calls: ctx.totals.calls + 1,
    inputTokens: ctx.totals.inputTokens + e.usage.inputTokens,
    outputTokens: ctx.totals.outputTokens + e.usage.outputTokens,
  },
});

/** More budget for the stopped turn: it is open again, and goes on from its log. */
export const grantBudget = (ctx: ChatContext, e: Of<'budget.granted'>): ChatContext => {
  const t = ctx.current!;
  const { ended: _ended, ...open } = t;
  return { ...ctx, current: { ...open, budget: { ...t.budget, limit: t.budget.limit + e.extra } } };
};
