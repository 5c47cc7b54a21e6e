/**
 * What a turn is given before its first model call, from the memory tiers: the memories
 * that match the message (`memory.recalled`) and the earlier conversation within the
 * working window (`memory.summarized` when turns had to be folded). Each is recorded in
 * the turn's log before the turn goes on, so a turn resumed after a crash or after more
 * budget finds them there and neither searches nor summarises again.
 */
import type { ChatMessage } from '../../agents/index.js';
import { ROOT_NODE } from '../../actors/index.js';
import type { TraceStore } from '../store/traces.js';
import type { LiveSession } from './live-session.js';
import { findMemories, memoryBlock } from './memory-inject.js';
import type { MemoryVault } from './remember.js';
import { tracedCall } from './traced-call.js';
import type { ChatModel } from './turn-run.js';
import { foldPlan, historyMessages, summaryRequest } from './working-memory.js';

/** The trace rows of memory's own model calls have this as their step (a turn's nodes are `r`, `r/1.0`, …). */
export const MEMORY_TRACE_STEP = 'memory';

export interface TurnMemoryDeps {
  session: LiveSession;
  traces: TraceStore;
  /** Undefined: the vault is not available, no memories are given. */
  vault: MemoryVault;
  /** The root profile's settings. */
  settings: { windowTokens: number; memories: number };
  model(model: string): Promise<ChatModel>;
  now(): number;
  /** The engine closing: the turn stops without ending (and goes on at the next start). */
  signal: AbortSignal;
}

/** Record what is missing of the turn's memory, then return the history to give before the user's message. */
export async function turnMemory(deps: TurnMemoryDeps): Promise<ChatMessage[]> {
  const { session, settings } = deps;
  const first = session.context.current!;
  const turn = first.turn;
  const root = first.nodes[ROOT_NODE]!.agent;
  if (first.memories === undefined && settings.memories > 0) {
    const found = await findMemories(deps.vault, first.text, settings.memories);
    // Committed with the turn's first model call (nothing acts on it before): a crash before that searches again.
    session.appendSoon([{ type: 'memory.recalled', turn, ...found }]);
  }
  const earlier = session.context.history.filter((h) => h.turn < turn);
  const fold = foldPlan(earlier, session.context.summary, settings.windowTokens);
  if (fold !== undefined) await summarize(deps, turn, root, fold);
  const block = memoryBlock(session.context.current!.memories?.list ?? []);
  return [...historyMessages(earlier, session.context.summary), ...(block === undefined ? [] : [block])];
}

/** One summary call; a failed one is traced and the turn is given the turns unfolded (over the window, never dropped). */
async function summarize(deps: TurnMemoryDeps, turn: number, root: { name: string; model: string }, fold: Parameters<typeof summaryRequest>[1]): Promise<void> {
  const { session } = deps;
  let m: ChatModel;
  try {
    m = await deps.model(root.model);
  } catch {
    return; // the turn's own first call meets the same error and reports it
  }
  const answer = await tracedCall(m, summaryRequest(session.context.summary?.text, fold), deps.now, deps.signal);
  const where = { runId: session.id, step: MEMORY_TRACE_STEP, attempt: turn, sessionId: session.id, parentId: null, agent: root.name };
  const text = answer.response?.content.trim() ?? '';
  if (answer.response === undefined || text === '') {
    deps.traces.insert(where, answer.trace);
    return;
  }
  const usage = { inputTokens: answer.response.usage.inputTokens, outputTokens: answer.response.usage.outputTokens };
  session.append([{ type: 'memory.summarized', turn, through: fold.at(-1)!.turn, text, usage }], () => void deps.traces.insert(where, answer.trace));
}
