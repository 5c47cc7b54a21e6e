/** `mcp check`: start or reach every MCP server of config.toml, here in this process, and list its tools. */
import { McpManager, mcpServersFrom } from '../../agents/index.js';
import type { McpCheck, McpServerConfig } from '../../agents/index.js';
import { dataPaths, loadConfig } from '../../engine/index.js';
import { EXIT, dataDir, reportError } from './common.js';

const HOW_TO_ADD = `Add one to config.toml, e.g.

[[mcp.servers]]
name = "files"
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/Documents"]

or, for a server reached over Streamable HTTP:

[[mcp.servers]]
name = "remote"
url = "https://example.com/mcp"
token = "…"
`;

function firstLine(text: string, max = 100): string {
  const line = text.split('\n')[0]?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function printCheck(c: McpCheck): void {
  const head = `${c.name}: ${c.ok ? 'ok' : 'FAILED'} (${c.transport}: ${c.target})`;
  if (c.ok) {
    process.stdout.write(`${head}, ${c.tools.length} tool${c.tools.length === 1 ? '' : 's'}, ${c.ms} ms\n`);
    const width = Math.max(0, ...c.tools.map((t) => t.name.length));
    for (const t of c.tools) process.stdout.write(`    ${`${c.name}.${t.name}`.padEnd(width + c.name.length + 1)}  ${firstLine(t.description)}\n`);
  } else {
    process.stdout.write(`${head}, ${c.ms} ms\n${`${c.error?.message ?? 'no answer'} [${c.error?.code ?? 'KW_ERR_MCP_UNAVAILABLE'}]`.replace(/^/gm, '    ')}\n`);
  }
}

export async function mcpCheckCommand(opts: { json?: boolean }): Promise<number> {
  const json = opts.json === true;
  const file = dataPaths(dataDir()).config;
  let servers: McpServerConfig[];
  try {
    servers = mcpServersFrom(loadConfig(file).raw, file);
  } catch (err) {
    reportError(err, json);
    return EXIT.usage;
  }
  if (servers.length === 0) {
    if (json) process.stdout.write(`${JSON.stringify({ config: file, ok: true, servers: [] })}\n`);
    else process.stdout.write(`No MCP servers are configured in ${file}.\n${HOW_TO_ADD}`);
    return EXIT.ok;
  }
  const manager = new McpManager(servers, { dataDir: dataDir() });
  let checks: McpCheck[];
  try {
    checks = await manager.check();
  } finally {
    await manager.close();
  }
  const answered = checks.filter((c) => c.ok).length;
  if (json) process.stdout.write(`${JSON.stringify({ config: file, ok: answered === checks.length, servers: checks })}\n`);
  else {
    for (const c of checks) printCheck(c);
    process.stdout.write(`${answered} of ${checks.length} MCP server${checks.length === 1 ? '' : 's'} answered.\n`);
  }
  return answered === checks.length ? EXIT.ok : EXIT.failed;
}
