/**
 * The agent team as chat turns see it: a profile resolved into what a node runs with —
 * its model (its own, else its parent's, else config.toml's default) and its tools (the
 * list it names, or every tool when it names none).
 */
import { KowalskiError } from '../../core/index.js';
import type { ProfileSnapshot } from '../../actors/index.js';
import type { EngineConfig } from '../config.js';
import { DEFAULT_MEMORIES } from '../team/index.js';
import type { Team } from '../team/index.js';
import type { ChatProfiles } from './turn-run.js';

export function teamProfiles(team: Team, config: () => EngineConfig, everyTool: () => string[]): ChatProfiles {
  return {
    snapshot(name: string, parentModel?: string): ProfileSnapshot {
      const profile = team.require(name);
      const model = profile.model ?? parentModel ?? config().model.default;
      if (model === undefined) {
        throw new KowalskiError('KW_ERR_NO_MODEL', `the agent "${name}" names no model and config.toml has no [model] default: choose one in Setup, or set model = "provider:model" in ${profile.file}`);
      }
      return { name, model, tools: profile.tools ?? everyTool(), prompt: profile.prompt };
    },
    maxIterations: (name) => team.get(name)?.maxIterations,
    memory: (name) => {
      const profile = team.get(name);
      return { windowTokens: profile?.memoryWindowTokens ?? config().chat.windowTokens, memories: profile?.memories ?? DEFAULT_MEMORIES };
    },
    team: () => team.catalog().profiles.map((p) => ({ name: p.name, description: p.description })),
  };
}
