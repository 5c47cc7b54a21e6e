/**
 * The calendar adapter's definition: no inbound messages; while it runs, agents have its
 * tools (`calendar_list_events`, `calendar_create_event`). Light to load: ical.js and
 * tsdav come with the instance, imported at start (calendar-instance.ts).
 */
import type { IcsReadOptions } from './ics-source.js';
import { calendarSettings } from './settings.js';
import type { CalendarSettings } from './settings.js';
import type { AdapterDefinition } from '../types.js';

export interface CalendarAdapterOptions {
  /** Test only: `ip:port` pairs ICS URLs may reach although loopback (tests serve calendars on 127.0.0.1). */
  testOnlyFetchAllow?: readonly string[];
}

/** The calendar's definition; tests make one whose ICS URLs may be on 127.0.0.1. */
export function createCalendarAdapter(options: CalendarAdapterOptions = {}): AdapterDefinition<CalendarSettings> {
  const ics: IcsReadOptions = options.testOnlyFetchAllow === undefined ? {} : { testOnlyFetchAllow: options.testOnlyFetchAllow };
  return {
    type: 'calendar',
    settings: calendarSettings,
    secretKeys: ['caldav.password'],
    async start(settings, host) {
      const { startCalendar } = await import('./calendar-instance.js');
      return startCalendar(settings, host, ics);
    },
  };
}

export const calendarAdapter = createCalendarAdapter();
