/**
 * One chat turn, run durably: the root agent's tool loop (agents/tool-loop.ts, the same
 * loop model steps use), with every model call and tool call going through the
 * session's log. A call already answered in the log is given back from it, never made
 * again; a call started and not answered (the process died) is made again, except a
 * tool that is not safe to repeat, which the model is told has an unknown outcome.
 * Delegations run the named agent's own loop as a child node of the tree; every model
 * call of the tree takes one from the turn's budget, and when none is left the whole
 * tree stops and the turn ends `budget_exhausted`, naming what it left undone.
 */
import { setMaxListeners } from 'node:events';
import { KowalskiError, isErrorCode, messageOf } from '../../core/index.js';
import type { ErrorCode } from '../../core/index.js';
import { ROOT_NODE, agentChain, budgetLeft, callKey, childNode, toolKey } from '../../actors/index.js';
import type { ChatStop, EventError, ProfileSnapshot, RecordedResponse, TurnRecord, TurnUsage, UndoneWork } from '../../actors/index.js';
import { boundedToolResult, runToolLoop } from '../../agents/index.js';
import type {
  ChatMessage, ChatRequest, ChatResponse, ModelCallTrace, ModelRef, Provider, ToolCaller, ToolCallingMode, ToolCallingSetting, ToolOutput, ToolSpec,
} from '../../agents/index.js';
import type { CrashHook } from '../base/crash.js';
import type { TraceStore } from '../store/traces.js';
import { DELEGATE_TOOL, checkDelegation, delegateSpec, delegationArgs } from './delegation.js';
import type { TeamMember } from './delegation.js';
import type { LiveSession } from './live-session.js';
import { loggedArguments, loggedToolCall } from './logged-arguments.js';
import type { RecallIndex } from './recall.js';

/** A model as a node calls it. */
export interface ChatModel {
  provider: Provider;
  ref: ModelRef;
  setting: ToolCallingSetting;
  learned?: ToolCallingMode;
}

export interface ChatTools {
  describe(names: readonly string[]): Promise<ToolSpec[]>;
  /** `caller` says which session, agent and model call asked (the vault's audit records it). */
  call(name: string, args: Record<string, unknown>, signal: AbortSignal, caller: ToolCaller): Promise<ToolOutput>;
  /** Safe to run again when a crash left its outcome unknown (reads, searches). */
  idempotent(name: string): boolean;
}

export interface ChatProfiles {
  /** The profile as a node uses it (its model, or `parentModel`, or the default); throws KW_ERR_AGENT_NOT_FOUND / KW_ERR_NO_MODEL. */
  snapshot(name: string, parentModel?: string): ProfileSnapshot;
  /** The profile's `max_iterations` (the whole tree's budget when it is the root), if it sets one. */
  maxIterations(name: string): number | undefined;
  /** The profile's memory settings: its working window in tokens, and how many memories to give before a turn (0 = none). */
  memory(name: string): { windowTokens: number; memories: number };
  team(): TeamMember[];
}

export interface TurnRunDeps {
  session: LiveSession;
  traces: TraceStore;
  model(model: string): Promise<ChatModel>;
  learn(model: string, mode: ToolCallingMode): void;
  tools: ChatTools;
  profiles: ChatProfiles;
  /** Episodic memory: the finished turn is indexed in the transaction of its `turn.finished`. */
  episodes: Pick<RecallIndex, 'write'>;
  maxDepth: number;
  maxToolErrors: number;
  /** Stops the turn without ending it (the engine closes): it goes on at the next start. */
  signal: AbortSignal;
  onToken?(piece: { node: string; agent: string; text: string }): void;
  now(): number;
  /** Durability tests' named crash points. */
  crash: CrashHook;
}

export interface TurnOutcome {
  turn: number;
  text: string;
  stop: ChatStop;
  usage: TurnUsage;
  error?: EventError;
  undone?: UndoneWork[];
  /** Every tool call of the turn's tree (delegations included), in the order they were made. */
  toolCalls: TurnToolCall[];
  /** The trace of the root agent's last model call; its delegations are its children. */
  traceId: number | null;
}

export interface TurnToolCall {
  /** The agent's node (`r`, `r/1.0`, …). */
  node: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Set when the call failed (the model was told). */
  error?: EventError;
}

/** What is thrown through every loop of the tree when the budget is gone. */
class BudgetGone extends KowalskiError {
  constructor(limit: number) {
    super('KW_ERR_BUDGET_EXHAUSTED', `the turn used all ${limit} model calls of its budget`);
  }
}

function errorOf(err: unknown): EventError {
  if (err instanceof KowalskiError) return { code: err.code, message: err.message };
  const code = (err as { code?: unknown } | null)?.code;
  return { code: isErrorCode(code) ? code : 'KW_ERR_INTERNAL', message: messageOf(err) };
}

const replayError = (e: EventError): KowalskiError => new KowalskiError(e.code as ErrorCode, e.message);

function recorded(response: ChatResponse): RecordedResponse {
  return {
    content: response.content, toolCalls: response.toolCalls.map(loggedToolCall), stopReason: response.stopReason,
    usage: response.usage, costUsd: response.costUsd, latencyMs: response.latencyMs, attempts: response.attempts,
  };
}

export function usageOf(turn: TurnRecord): TurnUsage {
  const usage: TurnUsage = { calls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
  for (const call of Object.values(turn.calls)) {
    usage.calls += 1;
    if (call.response === undefined) continue;
    usage.inputTokens += call.response.usage.inputTokens;
    usage.outputTokens += call.response.usage.outputTokens;
    usage.costUsd = usage.costUsd === null || call.response.costUsd === null ? null : usage.costUsd + call.response.costUsd;
  }
  usage.toolCalls = Object.values(turn.tools).filter((t) => t.ended !== undefined).length;
  return usage;
}

const short = (text: string): string => (text.length <= 80 ? text : `${text.slice(0, 77)}…`);

/** Run (or go on with) the session's open turn; resolves once `turn.finished` is committed. Rejects, leaving the turn open, when `deps.signal` stops it. */
export async function runTurn(deps: TurnRunDeps, history: readonly ChatMessage[]): Promise<TurnOutcome> {
  const { session } = deps;
  const open = (): TurnRecord => session.context.current!;
  const first = open();
  const turn = first.turn;
  const controller = new AbortController();
  // Every model call of the tree listens to it: 50 delegations at once are not a leak.
  setMaxListeners(0, controller.signal);
  const stopAll = (): void => controller.abort(deps.signal.reason);
  deps.signal.addEventListener('abort', stopAll, { once: true });
  const traceIds = new Map<string, number>();
  const traceOf = (node: string, seq: number): number | undefined => {
    const key = callKey(node, seq);
    const id = traceIds.get(key) ?? deps.traces.chatCall(session.id, turn, node, seq);
    if (id !== undefined) traceIds.set(key, id);
    return id;
  };
  /** The trace of the model call that asked for this node. */
  const parentTrace = (node: string): number | null => {
    const m = /^(.*)\/(\d+)\.\d+$/.exec(node);
    return m === null ? null : traceOf(m[1]!, Number(m[2])) ?? null;
  };

  const callModel = async (node: string, agent: ProfileSnapshot, m: ChatModel, request: ChatRequest, at: { seq: number; mode: ToolCallingMode }): Promise<ChatResponse> => {
    const rec = open().calls[callKey(node, at.seq)];
    if (rec?.response !== undefined) return { ...rec.response, toolCalls: rec.response.toolCalls.map((c) => ({ ...c })) };
    if (rec?.error !== undefined) throw replayError(rec.error);
    if (rec === undefined) {
      if (budgetLeft(session.context) <= 0) {
        const gone = new BudgetGone(open().budget.limit);
        controller.abort(gone);
        throw gone;
      }
      session.append([{ type: 'model.started', turn, node, seq: at.seq }]);
    }
    deps.crash('chat-in-model-call');
    if (node !== ROOT_NODE) deps.crash('chat-in-subagent-call');
    const startedAt = deps.now();
    const trace: ModelCallTrace = {
      seq: at.seq, provider: m.ref.provider, model: m.ref.model, mode: at.mode, messages: request.messages,
      tools: (request.tools ?? []).map((t) => t.name), completion: '', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 },
      costUsd: null, latencyMs: 0, attempts: 0, startedAt,
    };
    const where = { runId: session.id, step: node, attempt: turn, sessionId: session.id, parentId: parentTrace(node), agent: agent.name };
    const onToken = deps.onToken;
    let response: ChatResponse;
    try {
      response = await m.provider.chat({ ...request, ...(onToken === undefined ? {} : { onToken: (text: string) => onToken({ node, agent: agent.name, text }) }) });
    } catch (err) {
      // Stopped (budget gone elsewhere, or the engine closing): the call is made again when the turn goes on.
      if (controller.signal.aborted) throw controller.signal.reason;
      const error = errorOf(err);
      Object.assign(trace, { error, latencyMs: deps.now() - startedAt });
      session.appendSoon([{ type: 'model.failed', turn, node, seq: at.seq, error }], () => traceIds.set(callKey(node, at.seq), deps.traces.insert(where, trace)));
      throw err;
    }
    Object.assign(trace, { completion: response.content, usage: response.usage, costUsd: response.costUsd, latencyMs: response.latencyMs, attempts: response.attempts });
    // Committed with what it leads to (a tool's intent, the next call, the answer): nothing acts on it before that.
    session.appendSoon([{ type: 'model.finished', turn, node, seq: at.seq, response: recorded(response) }],
      () => traceIds.set(callKey(node, at.seq), deps.traces.insert(where, trace)));
    return response;
  };

  const callTool = async (node: string, depth: number, agent: ProfileSnapshot, name: string, args: Record<string, unknown>, at: { seq: number; index: number }): Promise<ToolOutput> => {
    const key = toolKey(node, at.seq, at.index);
    const rec = open().tools[key];
    if (rec?.ended !== undefined) {
      if (rec.ended.error !== undefined) throw replayError(rec.ended.error);
      return { content: rec.ended.result, ...(rec.ended.meta === undefined ? {} : { meta: rec.ended.meta }) };
    }
    const isDelegation = name === DELEGATE_TOOL;
    if (rec !== undefined && !rec.idempotent) {
      const error: EventError = {
        code: 'KW_ERR_TOOL_OUTCOME_UNKNOWN',
        message: `${name} was interrupted (kowalski stopped) before its result was recorded; it may or may not have taken effect. Check before you call it again.`,
      };
      session.appendSoon([{ type: 'tool.finished', turn, node, seq: at.seq, index: at.index, result: '', error }]);
      throw replayError(error);
    }
    if (rec === undefined) {
      const idempotent = isDelegation || deps.tools.idempotent(name);
      session.append([{ type: 'tool.started', turn, node, seq: at.seq, index: at.index, name, arguments: loggedArguments(args), idempotent }]);
      if (!isDelegation) deps.crash('chat-after-tool-intent');
    }
    let output: ToolOutput;
    try {
      // A tool runs to its end even when the budget runs out elsewhere (its result is recorded); only the engine closing stops it.
      output = isDelegation
        ? await delegate(node, depth, agent, args, at)
        : await deps.tools.call(name, args, deps.signal, { sessionId: session.id, agent: agent.name, traceId: traceOf(node, at.seq) ?? null, key: `${session.id}:${turn}:${key}` });
    } catch (err) {
      if (controller.signal.aborted && (isDelegation || deps.signal.aborted)) throw controller.signal.reason;
      const error = errorOf(err);
      session.appendSoon([{ type: 'tool.finished', turn, node, seq: at.seq, index: at.index, result: '', error }]);
      throw err;
    }
    const result = boundedToolResult(output.content);
    if (!isDelegation) deps.crash('chat-before-tool-result');
    session.appendSoon([{ type: 'tool.finished', turn, node, seq: at.seq, index: at.index, result, ...(output.meta === undefined ? {} : { meta: output.meta }) }]);
    return { ...output, content: result };
  };

  const delegate = async (parent: string, depth: number, caller: ProfileSnapshot, args: Record<string, unknown>, at: { seq: number; index: number }): Promise<ToolOutput> => {
    const node = childNode(parent, at.seq, at.index);
    let child = open().nodes[node];
    if (child === undefined) {
      const { agent, task } = delegationArgs(args);
      checkDelegation(agentChain(open(), parent), agent, deps.maxDepth);
      const snapshot = deps.profiles.snapshot(agent, caller.model);
      session.append([{ type: 'delegation.started', turn, node, parent, agent: snapshot, task }]);
      child = open().nodes[node]!;
    }
    if (child.ended !== undefined) {
      if (child.ended.error !== undefined) throw replayError(child.ended.error);
      return { content: child.ended.text };
    }
    let text: string;
    try {
      text = await runNode(node, depth + 1, child.agent, [{ role: 'system', content: child.agent.prompt }, { role: 'user', content: child.task }]);
    } catch (err) {
      if (controller.signal.aborted) throw controller.signal.reason;
      const e = errorOf(err);
      const error = { code: e.code, message: `${child.agent.name} failed: ${e.message}` };
      session.appendSoon([{ type: 'delegation.finished', turn, node, text: '', error }]);
      throw replayError(error);
    }
    session.appendSoon([{ type: 'delegation.finished', turn, node, text }]);
    return { content: text };
  };

  const runNode = async (node: string, depth: number, agent: ProfileSnapshot, messages: ChatMessage[]): Promise<string> => {
    const m = await deps.model(agent.model);
    const offered = agent.tools.filter((t) => t !== DELEGATE_TOOL);
    const specs = offered.length === 0 ? [] : await deps.tools.describe(offered);
    if (agent.tools.includes(DELEGATE_TOOL)) specs.push(delegateSpec(agent.name, deps.profiles.team()));
    const result = await runToolLoop({
      provider: m.provider, ref: m.ref, messages, tools: specs, setting: m.setting,
      ...(m.learned === undefined ? {} : { learned: m.learned }),
      callModel: (request, at) => callModel(node, agent, m, request, at),
      callTool: (name, args, _signal, at) => callTool(node, depth, agent, name, args, at),
      concurrentTools: true,
      signal: controller.signal,
      // The turn's budget bounds the calls; this only keeps one loop from running away if it were unbounded.
      maxIterations: Number.MAX_SAFE_INTEGER,
      maxToolErrors: deps.maxToolErrors,
      onTrace: (trace) => {
        if (trace.toolCalls.length === 0) return;
        // After the call's own trace row, which may still be waiting for its commit.
        session.later(() => {
          const id = traceOf(node, trace.seq);
          if (id !== undefined) deps.traces.updateCalls(id, trace);
        });
      },
      onLearned: (mode) => deps.learn(agent.model, mode),
      now: deps.now,
    });
    return result.content;
  };

  const finish = (stop: ChatStop, text: string, extra: { error?: EventError; undone?: UndoneWork[] } = {}): TurnOutcome => {
    const usage = usageOf(open());
    const again = session.context.history.at(-1)?.turn === turn;
    const episode = { session_id: session.id, turn, agent: open().nodes[ROOT_NODE]!.agent.name, at: deps.now(), user: open().text, assistant: text };
    session.append([{ type: 'turn.finished', turn, text, stop, usage, ...extra }], () => deps.episodes.write(episode, again));
    const rootCalls = Object.keys(open().calls).filter((k) => k.startsWith(`${ROOT_NODE}:`)).map((k) => Number(k.slice(ROOT_NODE.length + 1)));
    const traceId = rootCalls.length === 0 ? null : traceOf(ROOT_NODE, Math.max(...rootCalls)) ?? null;
    const toolCalls = Object.entries(open().tools).map(([key, t]) => ({
      node: key.slice(0, key.lastIndexOf(':')), name: t.name, arguments: t.arguments, ...(t.ended?.error === undefined ? {} : { error: t.ended.error }),
    }));
    return { turn, text, stop, usage, ...extra, toolCalls, traceId };
  };

  try {
    const root = first.nodes[ROOT_NODE]!;
    const text = await runNode(ROOT_NODE, 1, root.agent, [{ role: 'system', content: root.agent.prompt }, ...history, { role: 'user', content: first.text }]);
    return finish('done', text);
  } catch (err) {
    if (deps.signal.aborted) throw deps.signal.reason;
    if (controller.signal.reason instanceof BudgetGone) {
      const t = open();
      const undone = Object.entries(t.nodes).filter(([, n]) => n.ended === undefined).map(([node, n]) => ({ node, agent: n.agent.name, task: n.task }));
      const list = undone.map((u) => (u.node === ROOT_NODE ? `${u.agent} (the answer)` : `${u.agent} ("${short(u.task)}")`)).join(', ');
      const text = `The budget of ${t.budget.limit} model calls for this turn ran out before the answer was finished. Not finished: ${list}. Grant more model calls to go on from here.`;
      return finish('budget_exhausted', text, { error: errorOf(controller.signal.reason), undone });
    }
    return finish('error', '', { error: errorOf(err) });
  } finally {
    deps.signal.removeEventListener('abort', stopAll);
  }
}
