/**
 * The calendar's tools for agents: `calendar_list_events` (every ICS source and the CalDAV
 * calendars, recurring events expanded, sorted, bounded; it only reads, so a call cut by a
 * crash is made again) and `calendar_create_event` (a CalDAV write, only where the operator
 * set `write = true` — read from the settings config.toml holds now, at every call).
 */
import { KowalskiError, messageOf } from '../../../core/index.js';
import type { Tool } from '../../../agents/index.js';
import { CALENDAR_TOOL_NAMES } from './tool-names.js';
import type { CalDav } from './caldav.js';
import type { CalendarEvent } from './events.js';
import { expandIcs } from './ics-expand.js';
import type { Expanded } from './ics-expand.js';
import { readIcs } from './ics-source.js';
import type { IcsReadOptions } from './ics-source.js';
import { buildEvent } from './new-event.js';
import { MAX_RANGE_DAYS, parseRange } from './range.js';
import type { TimeRange } from './range.js';
import type { CalDavSettings, CalendarSettings } from './settings.js';
import { isoDate, isoInZone, wallAt } from './zoned-time.js';

/** Events one list answers; past it the answer says to ask for a shorter range. */
export const MAX_LISTED_EVENTS = 500;

export interface CalendarToolDeps {
  /** The settings config.toml holds now (KW_ERR_ADAPTER_CONFIG when they became bad). */
  current(): CalendarSettings;
  /** The CalDAV account of these settings (connected again when they changed). */
  caldav(settings: CalDavSettings, signal: AbortSignal): Promise<CalDav>;
  ics: IcsReadOptions;
  now(): number;
  /** A call was made (`last_activity_at`). */
  activity(): void;
  /** A source failed (counted and shown on the adapter, the call goes on with the others). */
  failed(err: unknown): void;
}


async function gather(deps: CalendarToolDeps, settings: CalendarSettings, range: TimeRange, signal: AbortSignal): Promise<Expanded & { failures: number; sources: number }> {
  const out = { events: [] as CalendarEvent[], notes: [] as string[], failures: 0, sources: settings.ics.length + (settings.caldav === null ? 0 : 1) };
  const take = (found: Expanded): void => {
    out.events.push(...found.events);
    out.notes.push(...found.notes);
  };
  const fail = (what: string, err: unknown): void => {
    if (signal.aborted) throw signal.reason;
    out.failures++;
    out.notes.push(messageOf(err).startsWith(what) ? messageOf(err) : `${what}: ${messageOf(err)}`);
    deps.failed(err);
  };
  await Promise.all(settings.ics.map(async (source) => {
    try {
      take(expandIcs(await readIcs(source, deps.ics, signal), range, { tz: settings.timeZone, source: source.shown }));
    } catch (err) {
      fail(source.shown, err);
    }
  }));
  if (settings.caldav !== null) {
    try {
      take(await (await deps.caldav(settings.caldav, signal)).events(range, settings.timeZone, signal));
    } catch (err) {
      fail(`CalDAV ${settings.caldav.url}`, err);
    }
  }
  return out;
}

function listTool(deps: CalendarToolDeps): Tool {
  return {
    idempotent: true,
    spec: {
      name: CALENDAR_TOOL_NAMES[0],
      description: 'List the events of the calendar between two dates: recurring events as their occurrences, all-day events with dates, ' +
        `times in the calendar's time zone with their offset. Give ISO dates ("2026-12-01": the whole day) or date-times ("2026-12-01T09:00"); at most ${MAX_RANGE_DAYS} days.`,
      inputSchema: {
        type: 'object',
        properties: {
          from: { type: 'string', description: 'The first day or instant, e.g. "2026-12-01"' },
          to: { type: 'string', description: 'The last day (included) or the instant the range ends, e.g. "2026-12-07"' },
        },
        required: ['from', 'to'],
        additionalProperties: false,
      },
    },
    async call(args, ctx) {
      deps.activity();
      const settings = deps.current();
      const range = parseRange(String(args.from), String(args.to), settings.timeZone);
      const found = await gather(deps, settings, range, ctx.signal);
      if (found.failures > 0 && found.failures === found.sources) {
        throw new KowalskiError('KW_ERR_CALENDAR_SOURCE', `no calendar source could be read: ${found.notes.join('; ')}`);
      }
      const sorted = found.events.sort((a, b) => a.startMs - b.startMs || a.summary.localeCompare(b.summary));
      const events = sorted.slice(0, MAX_LISTED_EVENTS).map(({ startMs: _startMs, ...event }) => event);
      const answer: Record<string, unknown> = {
        from: isoInZone(range.fromMs, settings.timeZone),
        to: isoInZone(range.toMs, settings.timeZone),
        timeZone: settings.timeZone,
        count: sorted.length,
        events,
      };
      if (sorted.length > MAX_LISTED_EVENTS) answer.truncated = `only the first ${MAX_LISTED_EVENTS} of ${sorted.length} events are listed; ask for a shorter range`;
      if (found.notes.length > 0) answer.notes = found.notes;
      return { content: JSON.stringify(answer, null, 1), meta: { count: sorted.length, failures: found.failures } };
    },
  };
}

/** KW_ERR_CALENDAR_WRITE_OFF unless these settings allow writing. */
function writable(settings: CalendarSettings): CalDavSettings {
  if (!settings.write) {
    throw new KowalskiError('KW_ERR_CALENDAR_WRITE_OFF', `the operator has not allowed writing to the calendar "${settings.name}" ([adapters.${settings.name}] write = true); tell the user the event was not created`);
  }
  if (settings.caldav === null) {
    throw new KowalskiError('KW_ERR_CALENDAR_WRITE_OFF', `the calendar "${settings.name}" has no CalDAV calendar to write to ([adapters.${settings.name}.caldav]); ICS sources are read only`);
  }
  return settings.caldav;
}

function createTool(deps: CalendarToolDeps): Tool {
  return {
    spec: {
      name: CALENDAR_TOOL_NAMES[1],
      description: 'Create an event in the calendar (only where the operator allowed writing; otherwise the call is refused). ' +
        'start and end are both date-times ("2026-12-01T09:00", the calendar\'s time zone, or with Z/+01:00) or both dates for an all-day event (end: the day after the last). Returns the new event\'s uid.',
      inputSchema: {
        type: 'object',
        properties: {
          summary: { type: 'string', description: 'The title' },
          start: { type: 'string' },
          end: { type: 'string' },
          description: { type: 'string' },
          location: { type: 'string' },
        },
        required: ['summary', 'start', 'end'],
        additionalProperties: false,
      },
    },
    async call(args, ctx) {
      deps.activity();
      const settings = deps.current();
      const caldav = writable(settings);
      const built = buildEvent({
        summary: String(args.summary), start: String(args.start), end: String(args.end),
        ...(typeof args.description === 'string' ? { description: args.description } : {}),
        ...(typeof args.location === 'string' ? { location: args.location } : {}),
      }, settings.timeZone, deps.now());
      const written = await (await deps.caldav(caldav, ctx.signal)).create(built.uid, built.ics, ctx.signal);
      const tz = settings.timeZone;
      const when = built.allDay
        ? `${isoDate(wallAt(built.startMs, tz))} to ${isoDate(wallAt(built.endMs, tz))} (all day)`
        : `${isoInZone(built.startMs, tz)} to ${isoInZone(built.endMs, tz)}`;
      return {
        content: `Created "${String(args.summary).trim()}" in the calendar ${written.calendar}: ${when}. uid: ${built.uid}`,
        meta: { uid: built.uid, url: written.url, calendar: written.calendar },
        structured: { uid: built.uid },
      };
    },
  };
}

export function createCalendarTools(deps: CalendarToolDeps): Tool[] {
  return [listTool(deps), createTool(deps)];
}
