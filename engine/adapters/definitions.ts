/**
 * Every adapter type this build has: one import and one entry per type. A definition's
 * module stays light: it imports its heavy libraries inside `start`.
 */
import { emailAdapter } from './email/index.js';
import type { AdapterDefinition } from './types.js';
import { calendarAdapter } from './calendar/calendar-adapter.js';
import { CALENDAR_TOOL_NAMES } from './calendar/tool-names.js';
import { webhookAdapter } from './webhook/webhook-adapter.js';
import { slackAdapter } from './slack/slack-adapter.js';
import { discordAdapter } from './discord/discord-adapter.js';
import { pluginAdapter } from './plugin/plugin-adapter.js';

export const ADAPTER_DEFINITIONS: readonly AdapterDefinition<unknown>[] = [
  webhookAdapter,
  slackAdapter,
  discordAdapter,
  emailAdapter,
  calendarAdapter,
  pluginAdapter,
];

/** The tools adapters give agents while they run: an agent's profile may name them although the adapter is off (its turn then fails with KW_ERR_TOOL_UNKNOWN). */
export const ADAPTER_TOOL_NAMES: readonly string[] = [...CALENDAR_TOOL_NAMES];
