/**
 * What a horde asks for, as a bundle shows it before anyone trusts it: its steps (kind,
 * tools, command, model, and what a `send` or `mcp_call` step reaches), every command it will ask to run, the tools and MCP servers it
 * wants, and its triggers (which arrive switched off).
 */
import type { HordeDef } from '../core/index.js';

/** What the horde will want from the machine it is installed on. */
export interface HordeWants {
  /** Every tool name its steps list, sorted. */
  tools: string[];
  /** The server part of every `server.tool` name its steps list or an `mcp_call` step calls (as written, not a placeholder), sorted: MCP servers are never installed by a bundle. */
  mcpServers: string[];
  /** Every `verify_command`, in pipeline order, each once. */
  commands: string[];
}

export interface ReviewedHorde {
  id: string;
  displayName: string;
  description: string;
  pipeline: string[];
  /** false: its verify and apply steps run without asking (confirm_commands = false in horde.md). */
  confirmCommands: boolean;
  steps: { name: string; kind: string; tools: string[]; command?: string; model?: string; reaches?: string }[];
  triggers: { name: string; kind: 'cron' | 'watch' | 'webhook'; schedule?: string; path?: string }[];
}

/**
 * What a step reaches outside the run, in words, as written (a `{{input.…}}` is filled when
 * it runs): a `send` step's adapter and recipient, an `mcp_call` step's tool. Each waits for
 * the operator's approval when the horde was imported.
 */
function reachesOf(step: HordeDef['steps'][string]): { reaches?: string } {
  if (step.send !== undefined) return { reaches: `sends through adapter ${step.send.adapter || '(none)'} to ${step.send.to || '(none)'}` };
  if (step.call !== undefined) return { reaches: `calls MCP tool ${step.call.tool || '(none)'}` };
  return {};
}

const sorted = (values: Iterable<string>): string[] => [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

export function wantsOf(horde: HordeDef): HordeWants {
  const steps = horde.pipeline.map((name) => horde.steps[name]).filter((s) => s !== undefined);
  const tools = sorted(steps.flatMap((s) => s.tools));
  const calls = steps.flatMap((s) => (s.call === undefined || s.call.tool.includes('{{') ? [] : [s.call.tool]));
  return {
    tools,
    mcpServers: sorted([...tools, ...calls].filter((t) => t.includes('.')).map((t) => t.slice(0, t.indexOf('.')))),
    commands: [...new Set(steps.flatMap((s) => (s.verifyCommand === undefined ? [] : [s.verifyCommand])))],
  };
}

export function reviewedHorde(horde: HordeDef): ReviewedHorde {
  return {
    id: horde.id,
    displayName: horde.displayName,
    description: horde.description,
    pipeline: [...horde.pipeline],
    confirmCommands: horde.confirmCommands,
    steps: horde.pipeline.map((name) => horde.steps[name]).filter((s) => s !== undefined).map((s) => ({
      name: s.name,
      kind: s.kind,
      tools: [...s.tools],
      ...(s.verifyCommand === undefined ? {} : { command: s.verifyCommand }),
      ...(s.model === undefined ? {} : { model: s.model }),
      ...reachesOf(s),
    })),
    triggers: horde.triggers.map((t) => ({
      name: t.name,
      kind: t.kind,
      ...(t.schedule === undefined ? {} : { schedule: t.schedule }),
      ...(t.path === undefined ? {} : { path: t.path }),
    })),
  };
}
