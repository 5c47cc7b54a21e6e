/**
 * Every adapter type this build has: one import and one entry per type. A definition's
 * module stays light: it imports its heavy libraries inside `start`.
 */
import type { AdapterDefinition } from './types.js';
import { calendarAdapter } from './calendar/calendar-adapter.js';
import { webhookAdapter } from './webhook/webhook-adapter.js';

export const ADAPTER_DEFINITIONS: readonly AdapterDefinition<unknown>[] = [
  webhookAdapter,
  calendarAdapter,
];
