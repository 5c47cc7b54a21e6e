/**
 * A session as people read it, folded from its log: each turn's message, what the
 * agents did (tool calls and delegations, in the order they started) and the answer.
 * Plain data: the API returns it, the CLI and the app show it.
 */
import { ROOT_NODE } from '../../actors/index.js';
import type { StoredChatEvent } from './chat-events.js';
import { DELEGATE_TOOL } from './delegation.js';
import type { ErrorCode } from '../../core/index.js';
import type { TurnItem as TurnItemOf, TurnView as TurnViewOf } from '../../contract/chat.js';

/** The transcript's shapes (contract/chat.ts), their errors coded with ours. */
export type TurnItem = TurnItemOf<ErrorCode>;
export type TurnView = TurnViewOf<ErrorCode>;

/** A tool result longer than this is cut in the transcript (the trace keeps it whole). */
const RESULT_PREVIEW = 2000;

export function transcriptOf(stored: readonly StoredChatEvent[]): TurnView[] {
  const turns: TurnView[] = [];
  const agents = new Map<string, string>();
  const tools = new Map<string, Extract<TurnItem, { kind: 'tool' }>>();
  const delegations = new Map<string, Extract<TurnItem, { kind: 'delegation' }>>();
  for (const { event: e, at } of stored) {
    const view = turns.at(-1);
    switch (e.type) {
      case 'turn.started':
        turns.push({ turn: e.turn, text: e.text, at, agent: e.agent.name, budget: { limit: e.budget, used: 0 }, items: [] });
        agents.clear();
        agents.set(ROOT_NODE, e.agent.name);
        tools.clear();
        delegations.clear();
        break;
      case 'budget.granted':
        if (view !== undefined) {
          view.budget.limit += e.extra;
          delete view.answer;
          for (const item of view.items) if (item.status === 'stopped') item.status = 'running'; // the same turn goes on
        }
        break;
      case 'model.started':
        if (view !== undefined) view.budget.used += 1;
        break;
      case 'tool.started': {
        if (e.name === DELEGATE_TOOL) break; // shown as its delegation
        const item = { kind: 'tool' as const, node: e.node, agent: agents.get(e.node) ?? '', name: e.name, arguments: e.arguments, status: 'running' as const, at };
        tools.set(`${e.node}:${e.seq}.${e.index}`, item);
        view?.items.push(item);
        break;
      }
      case 'tool.finished': {
        const item = tools.get(`${e.node}:${e.seq}.${e.index}`);
        if (item === undefined) break;
        if (e.error === undefined) {
          Object.assign(item, { status: 'done', result: e.result.length > RESULT_PREVIEW ? `${e.result.slice(0, RESULT_PREVIEW)}…` : e.result });
          if (typeof e.meta?.runId === 'string') Object.assign(item, { runId: e.meta.runId });
        }
        else Object.assign(item, { status: 'failed', error: e.error });
        break;
      }
      case 'delegation.started': {
        agents.set(e.node, e.agent.name);
        const item = { kind: 'delegation' as const, node: e.node, parent: e.parent, agent: e.agent.name, task: e.task, status: 'running' as const, at };
        delegations.set(e.node, item);
        view?.items.push(item);
        break;
      }
      case 'delegation.finished': {
        const item = delegations.get(e.node);
        if (item !== undefined) Object.assign(item, e.error === undefined ? { status: 'done', text: e.text } : { status: 'failed', error: e.error });
        break;
      }
      case 'memory.recalled':
        if (view !== undefined) view.memories = { notes: e.memories.map((m) => ({ path: m.path, text: m.text })), ...(e.error === undefined ? {} : { error: e.error }) };
        break;
      case 'memory.summarized':
        if (view !== undefined) view.summary = { through: e.through, text: e.text };
        break;
      case 'turn.finished':
        if (view !== undefined) {
          // What the turn left unfinished (its budget ran out, or it failed) is not working any more.
          for (const item of view.items) if (item.status === 'running') item.status = 'stopped';
          view.answer = {
            text: e.text, stop: e.stop, usage: e.usage, at,
            ...(e.error === undefined ? {} : { error: e.error }), ...(e.undone === undefined ? {} : { undone: e.undone }),
          };
        }
        break;
      default:
        break;
    }
  }
  return turns;
}
