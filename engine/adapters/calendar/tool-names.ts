/** The tools a running calendar gives agents (an agent's profile may name them whether or not it runs). */
export const CALENDAR_TOOL_NAMES = ['calendar_list_events', 'calendar_create_event'] as const;
