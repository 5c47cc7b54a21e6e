/**
 * The tool registry: every tool a step may be offered, by name — the built-ins and the
 * tools of the configured MCP servers (`server.tool`). It is the one place a call is
 * checked against the tool's JSON schema and bounded in time, so no tool can be called
 * with arguments it did not declare, and none can hang a run.
 */
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import { KowalskiError } from '../core/index.js';
import type { Tool, ToolCaller, ToolOutput, ToolSpec } from './types.js';

/** Where MCP tools come from (the MCP manager). */
export interface McpToolSource {
  /** The tools named (`server.tool`) that the servers provide; a name no server provides is left out. */
  tools(names: string[]): Promise<Tool[]>;
  /** Names of the configured servers, for error messages. */
  serverNames(): string[];
}

export interface ToolRegistryOptions {
  builtins: readonly Tool[];
  mcp?: McpToolSource;
  /** Longest a call may take, ms (default 120 000). */
  callTimeoutMs?: number;
}

export interface ToolRegistry {
  /** The specs of the tools named, in order; a name nothing provides is KW_ERR_TOOL_UNKNOWN. */
  describe(names: readonly string[]): Promise<ToolSpec[]>;
  /** Check the arguments against the tool's schema (KW_ERR_TOOL_ARGS), then run it within the time limit (KW_ERR_TOOL_TIMEOUT). */
  call(name: string, args: Record<string, unknown>, signal: AbortSignal, caller?: ToolCaller): Promise<ToolOutput>;
  /** The built-in tools' names. */
  builtinNames(): string[];
  /** Whether the tool only reads, so a call interrupted by a crash may be made again (MCP tools: never assumed). */
  idempotent(name: string): boolean;
}

export function createToolRegistry(options: ToolRegistryOptions): ToolRegistry {
  const builtins = new Map(options.builtins.map((t) => [t.spec.name, t]));
  const timeoutMs = options.callTimeoutMs ?? 120_000;
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validators = new Map<Tool, ValidateFunction>();

  const unknown = (names: string[]): KowalskiError => {
    const servers = options.mcp?.serverNames() ?? [];
    const mcp = servers.length === 0 ? 'no MCP servers are configured' : `MCP servers configured: ${servers.join(', ')}`;
    return new KowalskiError('KW_ERR_TOOL_UNKNOWN',
      `no tool provides ${names.map((n) => `"${n}"`).join(', ')} (built-in tools: ${[...builtins.keys()].join(', ')}; ${mcp})`);
  };

  const resolve = async (names: readonly string[]): Promise<Tool[]> => {
    const external = names.filter((n) => !builtins.has(n));
    const found = new Map<string, Tool>();
    if (external.length > 0 && options.mcp !== undefined) {
      const servers = new Set(options.mcp.serverNames());
      const asked = external.filter((n) => servers.has(n.slice(0, n.indexOf('.'))));
      for (const tool of asked.length === 0 ? [] : await options.mcp.tools(asked)) found.set(tool.spec.name, tool);
    }
    const missing = external.filter((n) => !found.has(n));
    if (missing.length > 0) throw unknown(missing);
    return names.map((n) => builtins.get(n) ?? found.get(n)!);
  };

  const validatorOf = (tool: Tool): ValidateFunction => {
    let v = validators.get(tool);
    if (v === undefined) {
      v = ajv.compile(tool.spec.inputSchema);
      validators.set(tool, v);
    }
    return v;
  };

  return {
    async describe(names) {
      return (await resolve(names)).map((t) => t.spec);
    },
    async call(name, args, signal, caller) {
      const [tool] = await resolve([name]);
      const validate = validatorOf(tool!);
      if (!validate(args)) {
        throw new KowalskiError('KW_ERR_TOOL_ARGS', `${ajv.errorsText(validate.errors, { dataVar: 'arguments' })}; the schema of ${name} is ${JSON.stringify(tool!.spec.inputSchema)}`);
      }
      const timer = AbortSignal.timeout(timeoutMs);
      const both = AbortSignal.any([signal, timer]);
      // A tool that ignores its signal still cannot hold the loop past the limit.
      let onAbort: (() => void) | undefined;
      const stopped = new Promise<never>((_, reject) => {
        // The listener reads `timer` so it stays reachable: a timeout signal only held by AbortSignal.any can be
        // garbage-collected before it fires on Node 20 (nodejs/node#57736).
        onAbort = () => reject(signal.aborted || !timer.aborted
          ? signal.reason
          : new KowalskiError('KW_ERR_TOOL_TIMEOUT', `the tool ${name} did not answer within ${Math.round(timeoutMs / 1000)} s`));
        both.addEventListener('abort', onAbort, { once: true });
      });
      stopped.catch(() => undefined);
      try {
        return await Promise.race([tool!.call(args, { signal: both, ...(caller === undefined ? {} : { caller }) }), stopped]);
      } finally {
        if (onAbort !== undefined) both.removeEventListener('abort', onAbort);
      }
    },
    builtinNames() {
      return [...builtins.keys()];
    },
    idempotent(name) {
      return builtins.get(name)?.idempotent === true;
    },
  };
}
