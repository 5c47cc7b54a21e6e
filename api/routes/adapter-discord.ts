/**
 * `POST /adapters/discord/interactions`: Discord's interactions (PING, application
 * commands), answered by the running Discord adapter
 * (engine/adapters/discord/discord-adapter.ts): PONG, or "deferred" at once and the
 * agent's answer as an edit of that response. Any signature failure: 401.
 */
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/index.js';
import { adapterRequestRoute } from '../adapter-request.js';

const DISCORD_INTERACTIONS_PATH = '/adapters/discord/interactions';

export function discordRoutes(app: FastifyInstance, engine: Engine): Promise<void> {
  return adapterRequestRoute(app, engine, 'discord', DISCORD_INTERACTIONS_PATH);
}
