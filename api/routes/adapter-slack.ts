/**
 * `POST /adapters/slack/events`: Slack's Events API requests (the URL challenge, message
 * and app_mention events), answered by the running Slack adapter
 * (engine/adapters/slack/slack-adapter.ts) within the request: 200 at once, the agent's
 * answer later in the message's thread. A bad or stale signature: 401.
 */
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/index.js';
import { adapterRequestRoute } from '../adapter-request.js';

const SLACK_EVENTS_PATH = '/adapters/slack/events';

export function slackRoutes(app: FastifyInstance, engine: Engine): Promise<void> {
  return adapterRequestRoute(app, engine, 'slack', SLACK_EVENTS_PATH);
}
