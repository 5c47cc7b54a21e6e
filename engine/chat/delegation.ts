/**
 * `delegate_to_agent({agent, task})`: the tool a coordinator hands subtasks with. Its
 * spec (naming the team), and the checks before a delegation starts: the arguments, a
 * known agent, no cycle (A → B → A), the depth cap.
 */
import { KowalskiError } from '../../core/index.js';
import type { ToolSpec } from '../../agents/index.js';

export const DELEGATE_TOOL = 'delegate_to_agent';

/** The depth cap when config.toml does not set `[chat] max_depth`: the root, a sub-agent, and one below it. */
export const DEFAULT_MAX_DEPTH = 3;

export interface TeamMember {
  name: string;
  description: string;
}

/** The tool as offered to `caller`: every other agent of the team is listed. */
export function delegateSpec(caller: string, team: readonly TeamMember[]): ToolSpec {
  const others = team.filter((m) => m.name !== caller);
  return {
    name: DELEGATE_TOOL,
    description: `Hand a self-contained subtask to another agent of the team and get its final answer back. ` +
      `Several delegations in one answer run in parallel. Give the agent everything it needs in the task: it does not see this conversation. Agents: ` +
      (others.length === 0 ? '(none)' : others.map((m) => `${m.name} — ${m.description}`).join('; ')),
    inputSchema: {
      type: 'object',
      properties: {
        agent: { type: 'string', description: 'The name of the agent', ...(others.length === 0 ? {} : { enum: others.map((m) => m.name) }) },
        task: { type: 'string', description: 'What the agent should do, with every detail it needs' },
      },
      required: ['agent', 'task'],
      additionalProperties: false,
    },
  };
}

/** The arguments of a delegation, checked; KW_ERR_TOOL_ARGS names what is wrong. */
export function delegationArgs(args: Record<string, unknown>): { agent: string; task: string } {
  const { agent, task } = args;
  if (typeof agent !== 'string' || agent.trim() === '') throw new KowalskiError('KW_ERR_TOOL_ARGS', `${DELEGATE_TOOL} needs "agent": the name of an agent of the team`);
  if (typeof task !== 'string' || task.trim() === '') throw new KowalskiError('KW_ERR_TOOL_ARGS', `${DELEGATE_TOOL} needs "task": what ${agent} should do`);
  const extra = Object.keys(args).filter((k) => k !== 'agent' && k !== 'task');
  if (extra.length > 0) throw new KowalskiError('KW_ERR_TOOL_ARGS', `${DELEGATE_TOOL} takes only "agent" and "task", not ${extra.map((k) => `"${k}"`).join(', ')}`);
  return { agent: agent.trim(), task };
}

/** Refuse a delegation from the chain `chain` (root first) to `agent` that would close a cycle or pass the depth cap. */
export function checkDelegation(chain: readonly string[], agent: string, maxDepth: number): void {
  if (chain.includes(agent)) {
    throw new KowalskiError('KW_ERR_AGENT_CYCLE', `${chain.join(' → ')} → ${agent} is a cycle: ${agent} is already working on this above; do the subtask yourself or give it to another agent`);
  }
  if (chain.length + 1 > maxDepth) {
    throw new KowalskiError('KW_ERR_AGENT_DEPTH', `${chain.join(' → ')} → ${agent} would be ${chain.length + 1} agents deep, past the cap of ${maxDepth}; do the subtask yourself`);
  }
}
