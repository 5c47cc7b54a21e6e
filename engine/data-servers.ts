/**
 * The data tool for runs: `kowalski mcp serve data --root <run workdir>/inputs`, started
 * on demand as a child process and reached over MCP, exactly as an outside client would.
 * One server per root (a run's steps share it: the profile, the queries, a model step
 * offered `query_sql`), closed when it has been idle for a while and when the engine
 * closes. Steps name its tools without a server (`query_sql`); the root is the run's,
 * chosen here, never by the step.
 */
import path from 'node:path';
import { DATA_TOOL_NAMES, McpManager, MCP_DEFAULT_CONNECT_TIMEOUT_SECS } from '../agents/index.js';
import type { DataToolName, Tool } from '../agents/index.js';
import type { OwnCode } from '../steps/index.js';
import type { Clock } from './base/clock.js';
import type { Timers } from './base/timers.js';

/** The server name under which the run's data tool is connected (its tools are `data.<tool>` inside). */
const SERVER = 'data';
/** A query may take up to the data tool's own 30 s limit; a little more here so its own error arrives first. */
const CALL_TIMEOUT_MS = 45_000;
/** Loading a big folder of spreadsheets happens at the first call. */
const CONNECT_TIMEOUT_MS = Math.max(MCP_DEFAULT_CONNECT_TIMEOUT_SECS * 1000, 60_000);

export function isDataToolName(name: string): name is DataToolName {
  return (DATA_TOOL_NAMES as readonly string[]).includes(name);
}

/** The folder a run's data tool serves: what `ingest` copied in. */
export function dataRootOf(workdir: string): string {
  return path.join(workdir, 'inputs');
}

interface Served {
  manager: McpManager;
  /** Cancels the idle timer. */
  idle?: () => void;
  /** Calls in progress: a server is never closed under one. */
  busy: number;
}

export interface DataServersOptions {
  clock: Clock;
  timers: Timers;
  /** Where `bin/kowalski` is, and the Node flags its process starts with. */
  code: OwnCode;
  /** Close a server unused for this long, ms on `clock` (default 120 000). */
  idleMs?: number;
}

export class DataServers {
  private readonly served = new Map<string, Served>();
  private readonly idleMs: number;

  constructor(private readonly options: DataServersOptions) {
    this.idleMs = options.idleMs ?? 120_000;
  }

  /** The data tools over `root`, named as steps name them (`query_sql`, …). */
  async tools(root: string, names: readonly DataToolName[]): Promise<Tool[]> {
    const served = this.serverFor(root);
    const listed = await this.using(served, () => served.manager.tools(names.map((n) => `${SERVER}.${n}`)));
    return listed.map((tool) => ({
      spec: { ...tool.spec, name: tool.spec.name.slice(SERVER.length + 1) },
      call: (args, ctx) => this.using(served, () => tool.call(args, ctx)),
    }));
  }

  private serverFor(root: string): Served {
    let served = this.served.get(root);
    if (served === undefined) {
      served = {
        manager: new McpManager([{
          name: SERVER,
          transport: 'stdio',
          command: process.execPath,
          args: [...this.options.code.execArgv, this.options.code.file('bin/kowalski'), 'mcp', 'serve', 'data', '--root', root],
          env: {},
          timeoutMs: CALL_TIMEOUT_MS,
          connectTimeoutMs: CONNECT_TIMEOUT_MS,
        }]),
        busy: 0,
      };
      this.served.set(root, served);
    }
    return served;
  }

  private async using<T>(served: Served, work: () => Promise<T>): Promise<T> {
    served.idle?.();
    served.busy++;
    try {
      return await work();
    } finally {
      served.busy--;
      if (served.busy === 0) {
        served.idle = this.options.timers.at(this.options.clock.now() + this.idleMs, () => this.retire(served));
      }
    }
  }

  private retire(served: Served): void {
    if (served.busy > 0) return;
    for (const [root, s] of this.served) if (s === served) this.served.delete(root);
    void served.manager.close();
  }

  /** Close every server; resolves once their processes have exited. */
  async close(): Promise<void> {
    const all = [...this.served.values()];
    this.served.clear();
    for (const s of all) s.idle?.();
    await Promise.all(all.map((s) => s.manager.close()));
  }
}
