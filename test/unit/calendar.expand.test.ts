import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import { expandIcs } from '../../engine/adapters/calendar/ics-expand.js';
import { parseRange } from '../../engine/adapters/calendar/range.js';
import { buildEvent } from '../../engine/adapters/calendar/new-event.js';
import { wallToInstant } from '../../engine/adapters/calendar/zoned-time.js';

const FIXTURE = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/calendar/team.ics'), 'utf8');

function listed(from: string, to: string, tz: string): string[] {
  const { events } = expandIcs(FIXTURE, parseRange(from, to, tz), { tz, source: 'team.ics' });
  return events.sort((a, b) => a.startMs - b.startMs).map((e) => `${e.start} ${e.end} ${e.summary}${e.allDay ? ' (all day)' : ''}`);
}

test('November in Berlin: the weekly stand-up without its EXDATE, the moved one at its new time, the all-day offsite as dates, the TZID events at their instants', () => {
  assert.deepEqual(listed('2026-11-01', '2026-11-30', 'Europe/Berlin'), [
    '2026-11-02T10:00:00+01:00 2026-11-02T10:30:00+01:00 Weekly stand-up',
    // 10:00 in New York (EST, VTIMEZONE in the file) is 16:00 in Berlin.
    '2026-11-03T16:00:00+01:00 2026-11-03T17:00:00+01:00 Call with the New York office',
    // TZID=Europe/Berlin with no VTIMEZONE in the file: Node's zone data, DURATION:PT45M.
    '2026-11-04T10:00:00+01:00 2026-11-04T10:45:00+01:00 Berlin review',
    '2026-11-09T10:00:00+01:00 2026-11-09T10:30:00+01:00 Weekly stand-up',
    // 16 November is an EXDATE; 23 November was moved to 11:00Z and to Room 7.
    '2026-11-23T12:00:00+01:00 2026-11-23T12:30:00+01:00 Weekly stand-up (moved)',
    '2026-11-25 2026-11-27 Team offsite (all day)',
    '2026-11-30T10:00:00+01:00 2026-11-30T10:30:00+01:00 Weekly stand-up',
  ]);
});

test('a range of date-times takes only what overlaps it; each event keeps its fields', () => {
  const tz = 'UTC';
  const { events } = expandIcs(FIXTURE, parseRange('2026-11-23T10:30:00Z', '2026-11-23T11:15Z', tz), { tz, source: 'team.ics' });
  assert.equal(events.length, 1);
  const { startMs: _startMs, ...moved } = events[0]!;
  assert.deepEqual(moved, {
    uid: 'standup-weekly@kowalski.test', summary: 'Weekly stand-up (moved)', start: '2026-11-23T11:00:00Z', end: '2026-11-23T11:30:00Z',
    allDay: false, timeZone: null, location: 'Room 7', description: '', source: 'team.ics', recurring: true,
  });
  assert.deepEqual(listed('2026-11-09', '2026-11-09', 'UTC').length, 1);
  assert.match(listed('2026-11-09', '2026-11-09', 'UTC')[0]!, /Weekly stand-up$/);
});

test('time zones: the New York event after the spring clock change is 14:00Z, before it 15:00Z; an all-day event spans its dates in the calendar zone', () => {
  assert.deepEqual(listed('2027-03-16', '2027-03-16', 'UTC'), ['2027-03-16T14:00:00Z 2027-03-16T15:00:00Z After the clocks change']);
  assert.deepEqual(listed('2026-11-03', '2026-11-03', 'America/New_York'), ['2026-11-03T10:00:00-05:00 2026-11-03T11:00:00-05:00 Call with the New York office']);
  // The offsite (25–26 November) seen from Tokyo: still the 25th and 26th, whatever the hour.
  assert.deepEqual(listed('2026-11-26', '2026-11-26', 'Asia/Tokyo'), ['2026-11-25 2026-11-27 Team offsite (all day)']);
  assert.deepEqual(listed('2026-11-27', '2026-11-28', 'Asia/Tokyo'), []);
});

test('ranges: plain dates are whole days in the zone; bad dates, backwards and over-long ranges are refused naming the argument', () => {
  const r = parseRange('2026-12-01', '2026-12-01', 'Europe/Berlin');
  assert.equal(r.fromMs, Date.UTC(2026, 10, 30, 23));
  assert.equal(r.toMs, Date.UTC(2026, 11, 1, 23));
  assert.equal(parseRange('2026-12-31', '2026-12-31', 'UTC').toMs, Date.UTC(2027, 0, 1));
  assert.equal(parseRange('2026-12-01T09:30+05:30', '2026-12-01T10:00Z', 'UTC').fromMs, Date.UTC(2026, 11, 1, 4));
  const refused = (from: string, to: string, what: RegExp): void => {
    assert.throws(() => parseRange(from, to, 'UTC'), (err: unknown) => err instanceof KowalskiError && err.code === 'KW_ERR_TOOL_ARGS' && what.test(err.message));
  };
  refused('2026-02-30', '2026-03-01', /^from "2026-02-30" is not an ISO date/);
  refused('2026-03-01', 'next week', /^to "next week" is not an ISO date/);
  refused('2026-03-02', '2026-03-01T00:00Z', /must be after from/);
  refused('2026-01-01', '2027-01-02', /longer than 366 days/);
});

test('a recurring event is expanded from its start, and an unbounded one stops at the range end', () => {
  const daily = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:d@x\r\nDTSTAMP:20200101T000000Z\r\nDTSTART:20000101T080000Z\r\nDURATION:PT1H\r\nRRULE:FREQ=DAILY\r\nSUMMARY:Daily\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n';
  const { events, notes } = expandIcs(daily, parseRange('2026-12-01', '2026-12-07', 'UTC'), { tz: 'UTC', source: 'daily.ics' });
  assert.equal(events.length, 7);
  assert.deepEqual(notes, []);
  assert.equal(events[0]!.start, '2026-12-01T08:00:00Z');
});

test('text that is not iCalendar is KW_ERR_CALENDAR_SOURCE naming the source', () => {
  assert.throws(() => expandIcs('<html>nope</html>', parseRange('2026-12-01', '2026-12-02', 'UTC'), { tz: 'UTC', source: 'https://example.com/cal' }),
    (err: unknown) => err instanceof KowalskiError && err.code === 'KW_ERR_CALENDAR_SOURCE' && err.message.startsWith('https://example.com/cal: not an iCalendar file'));
});

test('a new event: UTC times, an escaped summary, a fresh uid; all-day as dates; bad arguments refused', () => {
  const now = Date.UTC(2026, 11, 1, 8);
  const timed = buildEvent({ summary: 'Lunch, with Ann; ok', start: '2026-12-02T12:00', end: '2026-12-02T13:00', location: 'Café' }, 'Europe/Berlin', now);
  assert.match(timed.ics, /\r\nDTSTART:20261202T110000Z\r\nDTEND:20261202T120000Z\r\n/);
  assert.match(timed.ics, /\r\nSUMMARY:Lunch\\, with Ann\\; ok\r\n/);
  assert.match(timed.ics, /\r\nDTSTAMP:20261201T080000Z\r\n/);
  assert.match(timed.uid, /^[0-9a-f-]{36}@kowalski$/);
  assert.notEqual(buildEvent({ summary: 'x', start: '2026-12-02T12:00', end: '2026-12-02T13:00' }, 'UTC', now).uid, timed.uid);
  const allDay = buildEvent({ summary: 'Holiday', start: '2026-12-24', end: '2026-12-27' }, 'UTC', now);
  assert.match(allDay.ics, /DTSTART;VALUE=DATE:20261224\r\nDTEND;VALUE=DATE:20261227/);
  assert.throws(() => buildEvent({ summary: ' ', start: '2026-12-24', end: '2026-12-25' }, 'UTC', now), /summary must not be empty/);
  assert.throws(() => buildEvent({ summary: 'x', start: '2026-12-24', end: '2026-12-24T10:00' }, 'UTC', now), /both be dates/);
  assert.throws(() => buildEvent({ summary: 'x', start: '2026-12-24T10:00', end: '2026-12-24T09:00' }, 'UTC', now), /must be after start/);
});

test('a wall time skipped by the spring clock change lands an hour later; a repeated one is its first occurrence', () => {
  assert.equal(wallToInstant({ year: 2027, month: 3, day: 14, hour: 2, minute: 30, second: 0 }, 'America/New_York'), Date.UTC(2027, 2, 14, 7, 30));
  assert.equal(wallToInstant({ year: 2026, month: 11, day: 1, hour: 1, minute: 30, second: 0 }, 'America/New_York'), Date.UTC(2026, 10, 1, 5, 30));
});
