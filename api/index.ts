export { buildApi, DEFAULT_PORT } from './app.js';
export type { Api, ApiOptions } from './app.js';
export { loadOrCreateToken, readToken, TOKEN_FILE } from './token.js';
export { isLoopback } from './hosts.js';
export { WS_MAX_FRAME } from './ws-hub.js';
export type { ServerFrame } from './ws-hub.js';
export type { Health } from './routes/health.js';
export type { HordeSummary, HordeDetail } from './horde-view.js';
export type { AgentList } from './routes/agents.js';
