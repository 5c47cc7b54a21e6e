/**
 * Tools the program that embeds kowalski registers (the library's `registerTool`): they
 * join the engine's one tool registry as built-ins, so they are offered, checked against
 * their schema, bounded in time and traced like every tool, to the chat agents whose
 * profiles allow them and to the horde steps that list them. A definition is checked
 * before anything changes: the name as a plugin tool's (lowercase letters, digits and _,
 * at most 64, and no `__`, which plugins' and MCP servers' tools travel under: so it is
 * offered as it is and no other tool's name can reach the model as it), not one a tool has already, and the input schema as a plugin's (engine/plugins/input-schema.ts).
 */
import { Ajv } from 'ajv';
import { KowalskiError } from '../core/index.js';
import { DATA_TOOL_NAMES } from '../agents/index.js';
import type { Tool, ToolContext, ToolOutput } from '../agents/index.js';
import { ADAPTER_TOOL_NAMES } from './adapters/index.js';
import { DELEGATE_TOOL } from './chat/index.js';
import { FS_TOOL } from './horde/index.js';
import { inputSchemaProblem } from './plugins/input-schema.js';

const NAME = /^[a-z][a-z0-9_]*$/;
/** Longest tool name providers take (Anthropic, OpenAI: 64). */
const MAX_NAME = 64;

/** Who a call is for, as the tool's `run` is told. */
export interface UserToolContext {
  /** Aborted when the turn or the step is cancelled, or the call outlives the registry's time limit (120 s). */
  signal: AbortSignal;
  /** The chat agent that called it, with its session; absent for a horde's model step. */
  chat?: { sessionId: string; agent: string };
}

export interface UserToolDef {
  /** Lowercase letters, digits and `_`, starting with a letter, at most 64 characters, no `__`; not the name of a tool that exists. */
  name: string;
  /** What the model reads to decide when to call it. */
  description: string;
  /** The JSON schema of the arguments (`type: "object"`); a call whose arguments fail it never reaches `run` (KW_ERR_TOOL_ARGS). */
  input: Record<string, unknown>;
  /** Safe to call again when a crash left a call's outcome unknown (it only reads). Default false: such a call is reported as KW_ERR_TOOL_OUTCOME_UNKNOWN. */
  idempotent?: boolean;
  /** The call: a string is what the model reads; anything else is given to it as JSON. A throw is a failed call the model is told of (KW_ERR_TOOL_FAILED, or the error's own `code`). */
  run(input: Record<string, unknown>, context: UserToolContext): unknown;
}

export interface UserToolsDeps {
  /** The names of the registry's built-in tools as it is now (these tools included). */
  builtinToolNames(): readonly string[];
  /** A tool came or went: rebuild the registry (the team re-checks its profiles when the registry's names change). */
  onChange(): void;
}

export class UserTools {
  private readonly defs = new Map<string, UserToolDef>();
  private readonly ajv = new Ajv({ strict: false });

  constructor(private readonly deps: UserToolsDeps) {}

  /**
   * Add a tool; returns what removes it. KW_ERR_TOOL_INVALID for a bad name, description or
   * schema; KW_ERR_TOOL_NAME_TAKEN when a tool of that name (or of the name it travels under) exists.
   */
  register(def: UserToolDef): () => void {
    this.check(def);
    const own: UserToolDef = { ...def, input: structuredClone(def.input) };
    this.defs.set(def.name, own);
    this.deps.onChange();
    return () => {
      if (this.defs.get(def.name) === own) this.unregister(def.name);
    };
  }

  /** Remove the tool of that name; false when none was registered. A call under way finishes. */
  unregister(name: string): boolean {
    if (!this.defs.delete(name)) return false;
    this.deps.onChange();
    return true;
  }

  names(): string[] {
    return [...this.defs.keys()];
  }

  /** The tools as the registry takes them. */
  tools(): Tool[] {
    return [...this.defs.values()].map((def): Tool => ({
      spec: { name: def.name, description: def.description, inputSchema: def.input as Tool['spec']['inputSchema'] },
      ...(def.idempotent === true ? { idempotent: true } : {}),
      call: async (args, ctx) => outputOf(await def.run(args, contextOf(ctx))),
    }));
  }

  private check(def: UserToolDef): void {
    const bad = (message: string): KowalskiError => new KowalskiError('KW_ERR_TOOL_INVALID', `registerTool: ${message}`);
    const name: unknown = def?.name;
    if (typeof name !== 'string' || !NAME.test(name) || name.includes('__') || name.length > MAX_NAME) {
      throw bad(`the name must be lowercase letters, digits and _, starting with a letter, at most ${MAX_NAME} characters, without "__", not ${JSON.stringify(name)}`);
    }
    if (typeof def.description !== 'string' || def.description.trim() === '') throw bad(`the tool ${name} needs a description (what the model reads to decide when to call it)`);
    if (typeof def.run !== 'function') throw bad(`the tool ${name} needs a run function`);
    const input: unknown = def.input;
    if (typeof input !== 'object' || input === null || Array.isArray(input) || (input as { type?: unknown }).type !== 'object') {
      throw bad(`the input of ${name} must be a JSON schema of an object of arguments ({ type: "object", properties: {…} })`);
    }
    const problem = inputSchemaProblem(this.ajv, input as Record<string, unknown>);
    if (problem !== undefined) throw bad(`the input schema of ${name} ${problem}`);
    const taken = [...this.deps.builtinToolNames(), ...DATA_TOOL_NAMES, ...ADAPTER_TOOL_NAMES, DELEGATE_TOOL, FS_TOOL];
    if (this.defs.has(name) || taken.includes(name)) {
      throw new KowalskiError('KW_ERR_TOOL_NAME_TAKEN', `registerTool: a tool named ${name} exists already${this.defs.has(name) ? ' (registered earlier: unregister it first)' : ''}; choose another name`);
    }
  }
}

function contextOf(ctx: ToolContext): UserToolContext {
  const caller = ctx.caller;
  return { signal: ctx.signal, ...(caller === undefined ? {} : { chat: { sessionId: caller.sessionId, agent: caller.agent } }) };
}

function outputOf(value: unknown): ToolOutput {
  if (typeof value === 'string') return { content: value };
  return { content: JSON.stringify(value) ?? '', structured: value };
}
