/** MCP servers for tests: the reference "everything" server (a devDependency, not ours) over Streamable HTTP. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { McpManager } from '../../agents/index.js';
import type { McpManagerOptions, McpServerConfig, Tool } from '../../agents/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { freePort } from '../../testkit/free-port.js';

export const EVERYTHING = path.join(fileURLToPath(new URL('../..', import.meta.url)), 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

/** Only guards against a hung test on a busy machine. */
const GUARD_MS = 30_000;

/** The everything server over Streamable HTTP (PORT, path /mcp), once it says it listens. */
export async function startEverythingHttp(t: TestContext): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = once(child, 'exit');
  cleanups(t)(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    await exited;
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const limit = setTimeout(() => reject(new Error(`the everything server did not listen within ${GUARD_MS} ms:\n${stderr}`)), GUARD_MS);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/listening on port/.test(stderr)) {
        clearTimeout(limit);
        resolve();
      }
    });
    void exited.then(([code]) => {
      clearTimeout(limit);
      reject(new Error(`the everything server exited (${String(code)}):\n${stderr}`));
    });
  });
  return `http://127.0.0.1:${port}/mcp`;
}

/** A manager of this process for `servers`, closed when the test ends. */
export function managerFor(t: TestContext, servers: McpServerConfig[], options?: McpManagerOptions): McpManager {
  const manager = new McpManager(servers, options);
  cleanups(t)(() => manager.close());
  return manager;
}

/** The manager's tool `name` (server.tool), which it must offer. */
export async function toolNamed(manager: McpManager, name: string): Promise<Tool> {
  const [tool] = await manager.tools([name]);
  assert.ok(tool !== undefined, `the manager offers ${name}`);
  return tool;
}
