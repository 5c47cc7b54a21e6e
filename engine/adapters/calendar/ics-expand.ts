/**
 * The events of one iCalendar text within a time range, with ical.js: recurring events
 * expanded (RRULE, RDATE, EXDATE, and the occurrences a RECURRENCE-ID moved or cancelled),
 * all-day events kept as dates, times read in the zone they were written in — Node's own
 * time-zone data for an IANA TZID, the file's VTIMEZONE for any other, the calendar's
 * zone for floating times.
 */
import ICAL from 'ical.js';
import { KowalskiError, messageOf } from '../../../core/index.js';
import { MAX_OCCURRENCE_STEPS, boundedDescription } from './events.js';
import type { CalendarEvent } from './events.js';
import type { TimeRange } from './range.js';
import { isTimeZone, isoDate, isoInZone, wallToInstant } from './zoned-time.js';

export interface Expanded {
  events: CalendarEvent[];
  /** What could not be read or expanded whole, for the model and the operator. */
  notes: string[];
}

interface Where {
  /** The calendar's time zone: floating times and all-day dates are read in it, answers written in it. */
  tz: string;
  source: string;
}

/** ms of an ICAL.Time: `tzid` is the TZID its property named (ical.js forgets one it has no VTIMEZONE for). */
function instantOf(time: ICAL.Time, tzid: string | null, where: Where): number {
  const wall = { year: time.year, month: time.month, day: time.day, hour: time.isDate ? 0 : time.hour, minute: time.isDate ? 0 : time.minute, second: time.isDate ? 0 : time.second };
  if (time.isDate) return wallToInstant(wall, where.tz);
  if (time.zone === ICAL.Timezone.utcTimezone) return time.toUnixTime() * 1000;
  if (tzid !== null && isTimeZone(tzid)) return wallToInstant(wall, tzid);
  if (tzid !== null && time.zone?.component !== undefined && time.zone.component !== null) return time.toUnixTime() * 1000;
  return wallToInstant(wall, where.tz);
}

function tzidOf(component: ICAL.Component, name: 'dtstart' | 'dtend'): string | null {
  const tzid = component.getFirstProperty(name)?.getParameter('tzid');
  return typeof tzid === 'string' ? tzid : null;
}

function cancelled(component: ICAL.Component): boolean {
  return String(component.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED';
}

/** One occurrence (or a single event) as answered, if it overlaps the range. */
function occurrence(item: ICAL.Event, start: ICAL.Time, end: ICAL.Time, endTzid: string | null, recurring: boolean, range: TimeRange, where: Where): CalendarEvent | undefined {
  const startTzid = tzidOf(item.component, 'dtstart');
  const startMs = instantOf(start, startTzid, where);
  let endMs = instantOf(end, endTzid, where);
  if (endMs < startMs) endMs = startMs;
  // A zero-length event is in the range when it starts in it.
  const overlaps = endMs === startMs ? startMs >= range.fromMs && startMs < range.toMs : startMs < range.toMs && endMs > range.fromMs;
  if (!overlaps) return undefined;
  return {
    uid: item.uid ?? '',
    summary: item.summary ?? '',
    start: start.isDate ? isoDate(start) : isoInZone(startMs, where.tz),
    end: start.isDate ? isoDate(end) : isoInZone(endMs, where.tz),
    allDay: start.isDate,
    timeZone: startTzid,
    location: item.location ?? '',
    description: boundedDescription(item.description ?? ''),
    source: where.source,
    recurring,
    startMs,
  };
}

/** The end's zone: DTEND's own, except where ical.js computes the end from the start (recurring, DURATION). */
function endTzidOf(item: ICAL.Event, fromStart: boolean): string | null {
  const start = tzidOf(item.component, 'dtstart');
  return fromStart ? start : (tzidOf(item.component, 'dtend') ?? start);
}

function expandRecurring(master: ICAL.Event, range: TimeRange, where: Where, out: Expanded): void {
  const it = master.iterator();
  const startTzid = tzidOf(master.component, 'dtstart');
  for (let steps = 0; ; steps++) {
    if (steps >= MAX_OCCURRENCE_STEPS) {
      out.notes.push(`${where.source}: "${master.summary}" repeats more than ${MAX_OCCURRENCE_STEPS} times before the range ends; later occurrences are left out`);
      return;
    }
    const next = it.next();
    if (next === undefined || next === null) return;
    if (instantOf(next, startTzid, where) >= range.toMs) return;
    const details = master.getOccurrenceDetails(next);
    // An occurrence a RECURRENCE-ID moved is answered from the exception itself (below), wherever it moved to.
    if (details.item !== master) continue;
    const found = occurrence(master, details.startDate, details.endDate, startTzid, true, range, where);
    if (found !== undefined) out.events.push(found);
  }
}

/** The events of `text` (an iCalendar object) within `range`. Throws KW_ERR_CALENDAR_SOURCE when it is not iCalendar. */
export function expandIcs(text: string, range: TimeRange, where: Where): Expanded {
  let root: ICAL.Component;
  try {
    root = new ICAL.Component(ICAL.parse(text) as unknown[]);
  } catch (err) {
    throw new KowalskiError('KW_ERR_CALENDAR_SOURCE', `${where.source}: not an iCalendar file: ${messageOf(err)}`, { cause: err });
  }
  const out: Expanded = { events: [], notes: [] };
  const vevents = root.name === 'vevent' ? [root] : root.getAllSubcomponents('vevent');
  const masters = new Map<string, ICAL.Event>();
  const exceptions: ICAL.Event[] = [];
  for (const component of vevents) {
    const event = new ICAL.Event(component);
    if (event.isRecurrenceException()) exceptions.push(event);
    else masters.set(event.uid, event);
  }
  for (const exception of exceptions) masters.get(exception.uid)?.relateException(exception);
  for (const master of masters.values()) {
    try {
      if (cancelled(master.component)) continue;
      if (master.isRecurring()) {
        expandRecurring(master, range, where, out);
      } else {
        const found = occurrence(master, master.startDate, master.endDate, endTzidOf(master, !master.component.hasProperty('dtend')), false, range, where);
        if (found !== undefined) out.events.push(found);
      }
    } catch (err) {
      out.notes.push(`${where.source}: the event "${master.summary}" (${master.uid}) cannot be read: ${messageOf(err)}`);
    }
  }
  for (const exception of exceptions) {
    if (cancelled(exception.component)) continue;
    const found = occurrence(exception, exception.startDate, exception.endDate, endTzidOf(exception, !exception.component.hasProperty('dtend')), true, range, where);
    if (found !== undefined) out.events.push(found);
  }
  return out;
}
