/**
 * The tools of this engine, built from config.toml: the built-ins (web_fetch,
 * web_search, the file tools confined to `[tools] root`, and the ones the engine made
 * itself: the vault's and the memory tools) and the tools of the MCP
 * servers of `[[mcp.servers]]` — the only place a server's command is read from, so a
 * horde or a bundle can never name one.
 */
import { McpManager, createFileTools, createToolRegistry, createWebFetchTool, createWebSearchTool } from '../agents/index.js';
import type { Tool, ToolRegistry } from '../agents/index.js';
import type { EngineConfig } from './config.js';

export interface EngineTools {
  registry: ToolRegistry;
  close(): Promise<void>;
}

export interface EngineToolsOptions {
  dataDir: string;
  testOnlyFetchAllow?: readonly string[];
  /** Built-in tools the engine made (the vault's: list_notes, read_note, search_notes, create_note, append_note; memory's: recall, remember, recent_turns). */
  engineTools?: readonly Tool[];
}

export function createEngineTools(config: EngineConfig, options: EngineToolsOptions): EngineTools {
  const mcp = new McpManager(config.mcpServers, { dataDir: options.dataDir });
  const registry = createToolRegistry({
    builtins: [
      createWebFetchTool(options.testOnlyFetchAllow === undefined ? {} : { testOnlyAllow: options.testOnlyFetchAllow }),
      createWebSearchTool(config.webSearch),
      ...createFileTools({ root: config.tools.root, dataDir: options.dataDir }),
      ...(options.engineTools ?? []),
    ],
    mcp,
  });
  return { registry, close: () => mcp.close() };
}
