/**
 * The calendar adapter through the engine's adapter host: ICS files and URLs (a server on
 * 127.0.0.1, reached through the test-only allowance of the SSRF-safe fetch), a scripted
 * CalDAV server (login, listing, creating), writing refused unless config.toml allows it —
 * also when it stops allowing it after the start — and a chat agent listing events through
 * the scripted fake model.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import type { ErrorCode } from '../../core/index.js';
import { createEngine } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import { createCalendarAdapter } from '../../engine/adapters/calendar/calendar-adapter.js';
import { chatSetup, profile } from '../../testkit/chat.js';
import { cleanups } from '../../testkit/cleanup.js';
import { startFakeCalDav } from '../support/fake-caldav.js';
import { serveHttp } from '../support/http.js';
import { tempDir } from '../../testkit/tmp.js';
import { testOwnCode } from '../../testkit/dist.js';

const FIXTURE = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/calendar/team.ics'), 'utf8');

const DENTIST = [
  'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN',
  'BEGIN:VEVENT', 'UID:dentist@kowalski.test', 'DTSTAMP:20261101T000000Z', 'DTSTART:20261105T150000Z', 'DTEND:20261105T160000Z',
  'SUMMARY:Dentist', 'DESCRIPTION:Bring the card', 'END:VEVENT',
  'END:VCALENDAR', '',
].join('\r\n');

async function calendarEngine(t: TestContext, section: string, allow: readonly string[] = []): Promise<{ engine: Engine; home: string }> {
  const home = tempDir(t, 'kw-cal-');
  fs.writeFileSync(path.join(home, 'config.toml'), `[adapters.calendar]\nenabled = true\ntime_zone = "Europe/Berlin"\n${section}\n`);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home, adapterDefinitions: [createCalendarAdapter({ testOnlyFetchAllow: allow })] });
  cleanups(t)(() => engine.close());
  await engine.adapters.start();
  return { engine, home };
}

async function call(engine: Engine, name: string, args: Record<string, unknown>): Promise<{ content: string; meta?: Record<string, unknown> }> {
  const tool = engine.adapters.tools().find((tl) => tl.spec.name === name);
  assert.ok(tool !== undefined, `${name} is offered (${engine.adapters.tools().map((tl) => tl.spec.name).join(', ')})`);
  return tool.call(args, { signal: AbortSignal.timeout(20_000) });
}

async function list(engine: Engine, from: string, to: string): Promise<{ events: Array<Record<string, unknown>>; notes?: string[]; count: number; timeZone: string }> {
  return JSON.parse((await call(engine, 'calendar_list_events', { from, to })).content);
}

async function refused(promise: Promise<unknown>, code: ErrorCode, message: RegExp): Promise<void> {
  const err = await promise.then(() => assert.fail('the call was not refused'), (e: unknown) => e);
  assert.ok(err instanceof KowalskiError, String(err));
  assert.equal(err.code, code, err.message);
  assert.match(err.message, message);
}

test('an ICS file and an ICS URL: every occurrence in the range from both, sorted, in the calendar zone, each naming its source', async (t) => {
  const home = tempDir(t, 'kw-cal-files-');
  const file = path.join(home, 'team.ics');
  fs.writeFileSync(file, FIXTURE);
  const served = await serveHttp(t, (req, res) => {
    res.writeHead(req.url === '/dentist.ics' ? 200 : 404, { 'content-type': 'text/calendar; charset=utf-8' });
    res.end(req.url === '/dentist.ics' ? DENTIST : '');
  });
  const url = `${served.origin}/dentist.ics`;
  const { engine } = await calendarEngine(t, `ics = ["${file}", "${url}"]`, [served.allow]);
  assert.equal(engine.adapters.status('calendar').state, 'running');
  assert.deepEqual(engine.adapters.tools().map((tl) => tl.spec.name), ['calendar_list_events', 'calendar_create_event']);

  const week = await list(engine, '2026-11-02', '2026-11-08');
  assert.equal(week.timeZone, 'Europe/Berlin');
  assert.deepEqual(week.events.map((e) => [e.start, e.summary, e.source]), [
    ['2026-11-02T10:00:00+01:00', 'Weekly stand-up', file],
    ['2026-11-03T16:00:00+01:00', 'Call with the New York office', file],
    ['2026-11-04T10:00:00+01:00', 'Berlin review', file],
    ['2026-11-05T16:00:00+01:00', 'Dentist', url],
  ]);
  assert.equal(week.events[3]!.description, 'Bring the card');
  assert.equal(week.notes, undefined);
  assert.ok(engine.adapters.status('calendar').lastActivityAt !== null);

  // The EXDATE (16th) is absent and the moved occurrence (23rd) is at its new time.
  const later = await list(engine, '2026-11-16', '2026-11-23');
  assert.deepEqual(later.events.map((e) => [e.start, e.summary, e.location]), [['2026-11-23T12:00:00+01:00', 'Weekly stand-up (moved)', 'Room 7']]);
  await refused(call(engine, 'calendar_list_events', { from: '2026-01-01', to: '2027-06-01' }), 'KW_ERR_TOOL_ARGS', /longer than 366 days/);
  assert.equal(await call(engine, 'calendar_create_event', { summary: 'x', start: '2026-12-01', end: '2026-12-02' }).catch((e: KowalskiError) => e.code), 'KW_ERR_CALENDAR_WRITE_OFF');
});

test('an ICS URL on a private address without the allowance is refused by the fetch policy; the other sources still answer, the failure is counted', async (t) => {
  const home = tempDir(t, 'kw-cal-files-');
  const file = path.join(home, 'team.ics');
  fs.writeFileSync(file, FIXTURE);
  const served = await serveHttp(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/calendar' });
    res.end(DENTIST);
  });
  const { engine } = await calendarEngine(t, `ics = ["${file}", "${served.origin}/dentist.ics"]`);
  const week = await list(engine, '2026-11-05', '2026-11-05');
  assert.deepEqual(week.events, []);
  assert.equal(week.notes?.length, 1);
  assert.match(week.notes![0]!, /127\.0\.0\.1 is loopback; only public addresses are fetched/);
  assert.equal(served.connections(), 0);
  assert.equal(engine.adapters.status('calendar').errorCount, 1);
});

test('a missing ICS file makes the calendar error at start (never running), and it offers no tools', async (t) => {
  const { engine } = await calendarEngine(t, 'ics = ["/nonexistent/kowalski/team.ics"]');
  const status = engine.adapters.status('calendar');
  assert.equal(status.state, 'error');
  assert.match(status.lastError ?? '', /\/nonexistent\/kowalski\/team\.ics: cannot be read: no such file/);
  assert.deepEqual(engine.adapters.tools(), []);
});

test('CalDAV: the events of the range listed, an event created with write = true lands on the server and is listed; the password never shows', async (t) => {
  const dav = await startFakeCalDav(t, { username: 'alice', password: 's3cret-pw', calendars: { work: { 'dentist.ics': DENTIST } } });
  const { engine } = await calendarEngine(t, `write = true\n[adapters.calendar.caldav]\nurl = "${dav.url}"\nusername = "alice"\npassword = "s3cret-pw"`);
  const status = engine.adapters.status('calendar');
  assert.equal(status.state, 'running', status.lastError ?? '');
  assert.doesNotMatch(JSON.stringify(engine.adapters.list()), /s3cret-pw/);
  assert.deepEqual(status.settings.caldav, { url: dav.url, username: 'alice', password: '(set)' });

  const week = await list(engine, '2026-11-02', '2026-11-08');
  assert.deepEqual(week.events.map((e) => [e.start, e.summary, e.source]), [['2026-11-05T16:00:00+01:00', 'Dentist', 'caldav:work']]);
  // The server was asked for the range only (a calendar-query with a time-range).
  assert.ok(dav.requests.some((r) => r.method === 'REPORT' && /time-range[^>]*start="20261101T230000Z"[^>]*end="20261108T230000Z"/.test(r.body)));

  const created = await call(engine, 'calendar_create_event', { summary: 'Planning, round 2', start: '2026-11-06T14:00', end: '2026-11-06T15:30', location: 'Room 4' });
  const uid = String(created.meta?.uid);
  assert.match(created.content, /^Created "Planning, round 2" in the calendar work: 2026-11-06T14:00:00\+01:00 to 2026-11-06T15:30:00\+01:00\. uid: /);
  const puts = dav.requests.filter((r) => r.method === 'PUT');
  assert.equal(puts.length, 1);
  assert.equal(puts[0]!.path, `/dav/calendars/alice/work/${uid}.ics`);
  const stored = dav.calendars.get('work')!.get(`${uid}.ics`)!;
  assert.match(stored, /DTSTART:20261106T130000Z\r\nDTEND:20261106T143000Z/);
  assert.match(stored, /SUMMARY:Planning\\, round 2/);

  const after = await list(engine, '2026-11-06', '2026-11-06');
  assert.deepEqual(after.events.map((e) => [e.uid, e.start, e.end, e.location]), [[uid, '2026-11-06T14:00:00+01:00', '2026-11-06T15:30:00+01:00', 'Room 4']]);
});

test('a wrong CalDAV password: the calendar is error at start, and the message names the server, not the password', async (t) => {
  const dav = await startFakeCalDav(t, { username: 'alice', password: 'right-pw', calendars: { work: {} } });
  const { engine } = await calendarEngine(t, `[adapters.calendar.caldav]\nurl = "${dav.url}"\nusername = "alice"\npassword = "wrong-pw"`);
  const status = engine.adapters.status('calendar');
  assert.equal(status.state, 'error');
  assert.match(status.lastError ?? '', /CalDAV http:\/\/127\.0\.0\.1:\d+\/dav\/: .*401/);
  assert.doesNotMatch(JSON.stringify(engine.adapters.list()), /wrong-pw/);
});

test('writing is refused while write is off, and at the next call once config.toml is edited to turn it off (or breaks) after the start: nothing reaches the server', async (t) => {
  const dav = await startFakeCalDav(t, { username: 'alice', password: 'pw', calendars: { work: {} } });
  process.env.KW_TEST_CALDAV_PW = 'pw';
  cleanups(t)(() => delete process.env.KW_TEST_CALDAV_PW);
  const caldav = `[adapters.calendar.caldav]\nurl = "${dav.url}"\nusername = "alice"\npassword_env = "KW_TEST_CALDAV_PW"`;
  const event = { summary: 'Review', start: '2026-11-06T14:00', end: '2026-11-06T15:00' };

  const off = await calendarEngine(t, caldav);
  assert.equal((off.engine.adapters.status('calendar').settings.caldav as Record<string, unknown>).password, '(from $KW_TEST_CALDAV_PW)');
  await refused(call(off.engine, 'calendar_create_event', event), 'KW_ERR_CALENDAR_WRITE_OFF', /has not allowed writing to the calendar "calendar" \(\[adapters\.calendar\] write = true\)/);
  assert.equal(dav.requests.filter((r) => r.method === 'PUT').length, 0);
  await off.engine.close();

  const on = await calendarEngine(t, `write = true\n${caldav}`);
  await call(on.engine, 'calendar_create_event', event);
  assert.equal(dav.requests.filter((r) => r.method === 'PUT').length, 1);
  const config = path.join(on.home, 'config.toml');
  const text = fs.readFileSync(config, 'utf8');
  // A hand edit, no reload: the next call reads the file.
  fs.writeFileSync(config, text.replace('write = true', 'write = false'));
  await refused(call(on.engine, 'calendar_create_event', event), 'KW_ERR_CALENDAR_WRITE_OFF', /has not allowed writing/);
  // A file that no longer parses allows nothing.
  fs.writeFileSync(config, `${text}\n[adapters.calendar\n`);
  await refused(call(on.engine, 'calendar_create_event', event), 'KW_ERR_CONFIG_INVALID', /config\.toml/);
  assert.equal(dav.requests.filter((r) => r.method === 'PUT').length, 1);
  // Allowed again: written again.
  fs.writeFileSync(config, text);
  await call(on.engine, 'calendar_create_event', event);
  assert.equal(dav.requests.filter((r) => r.method === 'PUT').length, 2);
});

test('write = true with only ICS sources: refused, there is no CalDAV calendar to write to', async (t) => {
  const home = tempDir(t, 'kw-cal-files-');
  fs.writeFileSync(path.join(home, 'team.ics'), FIXTURE);
  const { engine } = await calendarEngine(t, `write = true\nics = ["${path.join(home, 'team.ics')}"]`);
  await refused(call(engine, 'calendar_create_event', { summary: 'x', start: '2026-12-01', end: '2026-12-02' }), 'KW_ERR_CALENDAR_WRITE_OFF', /no CalDAV calendar to write to/);
});

test('a chat agent whose profile names calendar_list_events answers from it: the call goes through the engine registry and the model is given the events', async (t) => {
  const files = tempDir(t, 'kw-cal-files-');
  fs.writeFileSync(path.join(files, 'team.ics'), FIXTURE);
  const s = await chatSetup(t, [
    { toolCalls: [{ name: 'calendar_list_events', arguments: { from: '2026-11-23', to: '2026-11-29' } }] },
    { text: 'On Monday the stand-up moved to 12:00 in Room 7, and Wednesday and Thursday are the offsite.' },
  ], { planner: profile('planner', 'tools = ["calendar_list_events"]') },
  `[adapters.calendar]\nenabled = true\ntime_zone = "Europe/Berlin"\nics = ["${path.join(files, 'team.ics')}"]\n`);
  await s.engine.adapters.start();
  assert.equal(s.engine.adapters.status('calendar').state, 'running');
  const session = s.engine.chat.create({ agent: 'planner' });
  const out = await s.engine.chat.send(session.id, 'what is on my calendar next week?').done;
  assert.equal(out.stop, 'done');
  assert.match(out.text, /moved to 12:00 in Room 7/);
  assert.deepEqual(out.toolCalls.map((c) => c.name), ['calendar_list_events']);
  const first = s.server.requests[0]!.body;
  // The profile was read before the calendar started (its tools are known to the team all the same).
  assert.equal(s.engine.team.get('planner')?.tools?.join(), 'calendar_list_events');
  assert.deepEqual(first.tools.map((tl: any) => tl.function.name), ['calendar_list_events']);
  const toolMessage = s.server.requests[1]!.body.messages.find((m: any) => m.role === 'tool');
  const answer = JSON.parse(toolMessage.content);
  assert.deepEqual(answer.events.map((e: any) => [e.start, e.summary]), [
    ['2026-11-23T12:00:00+01:00', 'Weekly stand-up (moved)'],
    ['2026-11-25', 'Team offsite'],
  ]);
});
