/**
 * The VEVENT calendar_create_event writes: checked arguments (a summary, start and end
 * both dates — an all-day event — or both date-times, in order, within a year), a fresh
 * UID, times in UTC (no VTIMEZONE needed), text escaped by ical.js.
 */
import { randomUUID } from 'node:crypto';
import ICAL from 'ical.js';
import { KowalskiError } from '../../../core/index.js';
import { MAX_RANGE_DAYS, parseInstant } from './range.js';

export interface NewEvent {
  summary: string;
  start: string;
  end: string;
  description?: string;
  location?: string;
}

export interface BuiltEvent {
  uid: string;
  ics: string;
  allDay: boolean;
  startMs: number;
  endMs: number;
}

export const MAX_SUMMARY_CHARS = 500;
export const MAX_NEW_DESCRIPTION_CHARS = 10_000;

const PLAIN_DATE = /^\d{4}-\d{2}-\d{2}$/;

function args(message: string): KowalskiError {
  return new KowalskiError('KW_ERR_TOOL_ARGS', message);
}

function utcTime(ms: number): ICAL.Time {
  return ICAL.Time.fromJSDate(new Date(ms), true);
}

function dateOnly(text: string): ICAL.Time {
  return ICAL.Time.fromDateString(text);
}

/** Check `event` and write it as an iCalendar object; `now` is DTSTAMP, `tz` reads times without an offset. KW_ERR_TOOL_ARGS. */
export function buildEvent(event: NewEvent, tz: string, now: number): BuiltEvent {
  const summary = event.summary.trim();
  if (summary === '') throw args('summary must not be empty');
  if (summary.length > MAX_SUMMARY_CHARS) throw args(`summary is ${summary.length} characters; at most ${MAX_SUMMARY_CHARS}`);
  if ((event.description?.length ?? 0) > MAX_NEW_DESCRIPTION_CHARS) throw args(`description is longer than ${MAX_NEW_DESCRIPTION_CHARS} characters`);
  const allDay = PLAIN_DATE.test(event.start.trim());
  if (allDay !== PLAIN_DATE.test(event.end.trim())) throw args('start and end must both be dates (an all-day event: end is the day after the last, e.g. start "2026-12-24", end "2026-12-25") or both date-times');
  const startMs = parseInstant('start', event.start, tz);
  const endMs = parseInstant('end', event.end, tz);
  if (endMs <= startMs) throw args(`end (${event.end}) must be after start (${event.start})${allDay ? '; for an all-day event end is the day after the last day' : ''}`);
  if (endMs - startMs > MAX_RANGE_DAYS * 86_400_000) throw args(`an event may last at most ${MAX_RANGE_DAYS} days`);
  const uid = `${randomUUID()}@kowalski`;
  const calendar = new ICAL.Component(['vcalendar', [], []]);
  calendar.updatePropertyWithValue('version', '2.0');
  calendar.updatePropertyWithValue('prodid', '-//kowalski//calendar adapter//EN');
  const vevent = new ICAL.Component('vevent');
  vevent.updatePropertyWithValue('uid', uid);
  vevent.updatePropertyWithValue('dtstamp', utcTime(now));
  vevent.updatePropertyWithValue('dtstart', allDay ? dateOnly(event.start.trim()) : utcTime(startMs));
  vevent.updatePropertyWithValue('dtend', allDay ? dateOnly(event.end.trim()) : utcTime(endMs));
  vevent.updatePropertyWithValue('summary', summary);
  if (event.description !== undefined && event.description !== '') vevent.updatePropertyWithValue('description', event.description);
  if (event.location !== undefined && event.location !== '') vevent.updatePropertyWithValue('location', event.location);
  calendar.addSubcomponent(vevent);
  return { uid, ics: `${calendar.toString()}\r\n`, allDay, startMs, endMs };
}
