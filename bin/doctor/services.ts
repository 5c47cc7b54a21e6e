/** The configured services: each MCP server (started or reached, its tools listed) and web search. */
import { McpManager } from '../../agents/index.js';
import type { EngineConfig } from '../../engine/index.js';
import { fail, ok, reason } from './check.js';
import type { Check } from './check.js';

/** `dataDir`: where `kowalski mcp login` keeps the sign-ins of servers reached over HTTP. */
export async function checkMcp(config: EngineConfig, dataDir: string): Promise<Check[]> {
  if (config.mcpServers.length === 0) return [ok('mcp', 'no MCP servers configured')];
  const manager = new McpManager(config.mcpServers, { dataDir });
  try {
    const checks = await manager.check();
    return checks.map((c) => c.ok
      ? ok(`mcp ${c.name}`, `${c.target}: ${c.tools.length} tools`)
      : fail(`mcp ${c.name}`, `${c.target}: ${c.error?.message ?? 'no answer'}`, c.error?.code === 'KW_ERR_MCP_SIGN_IN' ? `run \`kowalski mcp login ${c.name}\`` : `fix or remove its [[mcp.servers]] entry in config.toml (\`kowalski mcp check\` shows more)`));
  } finally {
    await manager.close();
  }
}

export async function checkWebSearch(config: EngineConfig): Promise<Check> {
  const ws = config.webSearch;
  if (ws === null) return ok('web search', 'off ([tools.web_search] not configured; web_search is not offered)');
  if (ws.provider !== 'searxng') return ok('web search', `${ws.provider}, with a key (not called: a search costs quota)`);
  try {
    const res = await fetch(`${ws.url}/`, { signal: AbortSignal.timeout(5000) });
    return res.status < 500 ? ok('web search', `searxng at ${ws.url} answers`) : fail('web search', `searxng at ${ws.url} answers HTTP ${res.status}`, 'check the instance, or [tools.web_search] url');
  } catch (err) {
    return fail('web search', `searxng at ${ws.url} does not answer (${reason(err)})`, 'start the instance, or correct [tools.web_search] url in config.toml');
  }
}
