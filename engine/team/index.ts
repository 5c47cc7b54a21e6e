/** Agent profiles as files: the loader and validator, the catalog, and the Team that keeps it. The only public face of engine/team. */
export { Team, AgentInvalidError, agentNotFound } from './team.js';
export type { TeamDeps, AgentSource } from './team.js';
export type { TeamCatalog } from './catalog.js';
export { parseProfile, formatTeamProblems, badAgentName, AGENT_NAME, MAX_AGENT_NAME, MAX_PROFILE_BYTES, MAX_ITERATIONS_LIMIT, PROFILE_KEYS, DEFAULT_MEMORIES } from './profile.js';
export type { AgentProfile, TeamProblem, ParseResult, ParseContext, ProfileTools } from './profile.js';
