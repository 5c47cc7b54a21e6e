/**
 * The agent team of a data directory: the package's `team/` and `<data>/team/`, checked
 * against the tools this engine has — the built-in tools, `delegate_to_agent`, and
 * `server.tool` of an MCP server configured in config.toml. Built by createEngine, or
 * without an engine for a one-shot read (`kowalski agents`).
 */
import path from 'node:path';
import type { Clock } from './base/clock.js';
import { systemClock } from './base/clock.js';
import { configuredPostgresUrl, loadConfig } from './config.js';
import type { EngineConfig } from './config.js';
import { dataPaths } from './base/data-dir.js';
import { packageRoot, packageVersion } from './base/modules.js';
import { DELEGATE_TOOL } from './chat/index.js';
import { Observers } from './observers.js';
import { Team } from './team/index.js';
import type { ProfileTools } from './team/index.js';
import { grantedPluginToolNames } from './plugins/granted.js';
import { createEngineTools } from './tools.js';
import type { Timers } from './base/timers.js';
import { systemTimers } from './base/timers.js';
import { RECALL_TOOL, RECENT_TURNS_TOOL, REMEMBER_TOOL } from './chat/memory-tools.js';
import { VAULT_TOOL_NAMES } from './vault/vault-tools.js';
import { ROOKERY_TOOL_NAMES } from './rookery/rookery-tools.js';
import { RUN_HORDE_TOOL } from './runs/run-horde-tool.js';
import { ADAPTER_TOOL_NAMES } from './adapters/index.js';


/**
 * The tools a profile may list: a built-in tool (with the granted plugins' tools), delegate_to_agent,
 * a tool an adapter gives while it runs (the calendar's), or `server.tool` of a configured MCP server.
 */
export function teamTools(builtinNames: () => readonly string[], config: () => EngineConfig): ProfileTools {
  const names = (): string[] => [...new Set([...builtinNames(), ...ADAPTER_TOOL_NAMES, DELEGATE_TOOL])];
  const mcpServers = (): string[] => config().mcpServers.map((s) => s.name);
  return {
    names,
    mcpServers,
    has: (name) => {
      if (names().includes(name)) return true;
      const dot = name.indexOf('.');
      return dot > 0 && dot < name.length - 1 && mcpServers().includes(name.slice(0, dot));
    },
  };
}

/** The package's built-in profiles. */
export function builtinTeamDir(): string {
  return path.join(packageRoot(import.meta.url), 'team');
}

export interface TeamHostOptions {
  dataDir: string;
  config(): EngineConfig;
  builtinToolNames(): readonly string[];
  clock: Clock;
  timers: Timers;
  observers: Observers;
  /** Default: the package's `team/`. */
  builtinDir?: string;
  /** Quiet time after a change under `<data>/team/` before the profiles are re-read, ms (default 300). */
  reloadDebounceMs?: number;
}

export function createTeam(options: TeamHostOptions): Team {
  return new Team({
    builtinDir: options.builtinDir ?? builtinTeamDir(),
    userDir: dataPaths(options.dataDir).team,
    tools: teamTools(options.builtinToolNames, options.config),
    clock: options.clock,
    timers: options.timers,
    observers: options.observers,
    ...(options.reloadDebounceMs === undefined ? {} : { reloadDebounceMs: options.reloadDebounceMs }),
  });
}

/** The team of a data directory read once, without an engine (no lock, no watch): what `kowalski agents` prints. */
export async function readTeam(dataDir: string, builtinDir?: string): Promise<Team> {
  const paths = dataPaths(dataDir);
  const config = loadConfig(paths.config);
  // The granted plugins' tools, as the server's registry has them (read from their folders and the grants).
  const pluginTools = await grantedPluginToolNames({
    pluginsDir: paths.plugins, database: paths.database, postgresUrl: configuredPostgresUrl(config), kowalskiVersion: packageVersion(), now: () => systemClock.now(),
  });
  const tools = createEngineTools(config, { dataDir });
  try {
    // The tools the engine makes itself (the vault's, memory's, the Rookery's, run_horde) are built-ins too.
    const names = [...tools.registry.builtinNames(), ...VAULT_TOOL_NAMES, RECALL_TOOL, REMEMBER_TOOL, RECENT_TURNS_TOOL, ...ROOKERY_TOOL_NAMES, RUN_HORDE_TOOL, ...pluginTools];
    return createTeam({
      dataDir, config: () => config, builtinToolNames: () => names,
      clock: systemClock, timers: systemTimers(systemClock), observers: new Observers(),
      ...(builtinDir === undefined ? {} : { builtinDir }),
    });
  } finally {
    await tools.close();
  }
}
