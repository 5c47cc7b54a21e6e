/**
 * The tools of this engine, built from config.toml: the built-ins (web_fetch,
 * web_search, the file tools confined to `[tools] root`) and the tools of the MCP
 * servers of `[[mcp.servers]]` — the only place a server's command is read from, so a
 * horde or a bundle can never name one.
 */
import {
  McpManager, createFileTools, createToolRegistry, createWebFetchTool, createWebSearchTool, mcpServersFrom, webSearchConfigFrom,
} from '../agents/index.js';
import type { ToolRegistry } from '../agents/index.js';
import type { EngineConfig } from './config.js';

export interface EngineTools {
  registry: ToolRegistry;
  close(): Promise<void>;
}

export interface EngineToolsOptions {
  configFile: string;
  dataDir: string;
  testOnlyFetchAllow?: readonly string[];
}

function toolsRoot(raw: Record<string, unknown>): string | null {
  const tools = raw.tools;
  if (typeof tools !== 'object' || tools === null) return null;
  const root = (tools as Record<string, unknown>).root;
  return typeof root === 'string' && root !== '' ? root : null;
}

export function createEngineTools(config: EngineConfig, options: EngineToolsOptions): EngineTools {
  const servers = mcpServersFrom(config.raw, options.configFile);
  const mcp = new McpManager(servers);
  const registry = createToolRegistry({
    builtins: [
      createWebFetchTool(options.testOnlyFetchAllow === undefined ? {} : { testOnlyAllow: options.testOnlyFetchAllow }),
      createWebSearchTool(webSearchConfigFrom(config.raw, options.configFile)),
      ...createFileTools({ root: toolsRoot(config.raw), dataDir: options.dataDir }),
    ],
    mcp: {
      tools: (names) => mcp.tools(names),
      serverNames: () => servers.map((s) => s.name),
    },
  });
  return { registry, close: () => mcp.close() };
}
