/**
 * A running calendar: its start checks what can be checked at once — the ICS files are
 * there and are iCalendar, the CalDAV server takes the login and has calendars — so a wrong
 * path or password shows as `error`, never as `running`; then it gives agents its tools.
 * Loaded by the definition at start (ical.js and tsdav come with it).
 */
import { createCalendarTools } from './tools.js';
import { CalDav } from './caldav.js';
import { expandIcs } from './ics-expand.js';
import { readIcs } from './ics-source.js';
import type { IcsReadOptions } from './ics-source.js';
import type { CalDavSettings, CalendarSettings } from './settings.js';
import type { AdapterHost, AdapterInstance } from '../types.js';

/** The longest the start's own checks take, ms (the host bounds the start too). */
const START_CHECK_MS = 20_000;

export async function startCalendar(settings: CalendarSettings, host: AdapterHost<CalendarSettings>, ics: IcsReadOptions): Promise<AdapterInstance> {
  const signal = AbortSignal.timeout(START_CHECK_MS);
  for (const source of settings.ics) {
    if (source.kind === 'file') expandIcs(await readIcs(source, ics, signal), { fromMs: 0, toMs: 0 }, { tz: settings.timeZone, source: source.shown });
  }
  let dav = settings.caldav === null ? null : await CalDav.connect(settings.caldav, settings.name, signal);
  // The tools read the settings config.toml holds now: a changed CalDAV account is logged in to anew.
  const caldav = async (current: CalDavSettings, callSignal: AbortSignal): Promise<CalDav> => {
    if (dav === null || !dav.sameAs(current)) dav = await CalDav.connect(current, settings.name, callSignal);
    return dav;
  };
  const tools = createCalendarTools({
    current: () => host.currentSettings(),
    caldav,
    ics,
    now: () => host.now(),
    activity: () => host.activity(),
    failed: (err) => host.failed(err),
  });
  return {
    tools: () => tools,
    async stop() {
      dav = null;
    },
  };
}
