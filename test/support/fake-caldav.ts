/**
 * A scripted CalDAV server on 127.0.0.1 for the calendar's tests: enough of RFC 4791 (and
 * RFC 6764 discovery) for tsdav's login, fetchCalendars, fetchCalendarObjects and
 * createCalendarObject. Basic auth; PROPFIND for the principal, the calendar home and its
 * calendars; REPORT calendar-query (with the VEVENT time-range filter) and calendar-multiget;
 * PUT of a new object (If-None-Match: * refuses to replace). Every request is recorded.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import ICAL from 'ical.js';
import { cleanups } from '../../testkit/cleanup.js';

export interface FakeCalDav {
  /** The URL to configure (`caldav.url`). */
  url: string;
  /** Calendar name → object file name → iCalendar text; PUTs land here. */
  calendars: Map<string, Map<string, string>>;
  requests: { method: string; path: string; depth: string | undefined; body: string }[];
}

const HOME = '/dav/calendars/alice/';
const PRINCIPAL = '/dav/principals/alice/';

function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function multistatus(responses: string[]): string {
  return `<?xml version="1.0" encoding="utf-8"?>\n<d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/">${responses.join('')}</d:multistatus>`;
}

function response(href: string, props: string): string {
  return `<d:response><d:href>${xmlEscape(href)}</d:href><d:propstat><d:prop>${props}</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>`;
}

function calendarProps(name: string): string {
  return `<d:displayname>${xmlEscape(name)}</d:displayname><d:resourcetype><d:collection/><c:calendar/></d:resourcetype>` +
    '<c:supported-calendar-component-set><c:comp name="VEVENT"/></c:supported-calendar-component-set><cs:getctag>1</cs:getctag>';
}

/** Whether `ics` has an event touching [start, end) (the time-range filter of a calendar-query; recurring events always match). */
function inRange(ics: string, start: number, end: number): boolean {
  const root = new ICAL.Component(ICAL.parse(ics) as unknown[]);
  return root.getAllSubcomponents('vevent').some((v) => {
    const event = new ICAL.Event(v);
    if (event.isRecurring()) return true;
    return event.startDate.toJSDate().getTime() < end && event.endDate.toJSDate().getTime() > start;
  });
}

function icalUtc(text: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  return m === null ? NaN : Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

export async function startFakeCalDav(t: TestContext, options: { username: string; password: string; calendars: Record<string, Record<string, string>> }): Promise<FakeCalDav> {
  const calendars = new Map(Object.entries(options.calendars).map(([name, objects]) => [name, new Map(Object.entries(objects))]));
  const requests: FakeCalDav['requests'] = [];
  const expected = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
      const depth = req.headers.depth as string | undefined;
      requests.push({ method: req.method ?? '', path, depth, body });
      const send = (status: number, text = '', type = 'application/xml; charset=utf-8'): void => {
        res.writeHead(status, text === '' ? {} : { 'content-type': type });
        res.end(text);
      };
      if (path.startsWith('/.well-known/')) return send(404);
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="fake"' });
        return res.end();
      }
      const calendarName = [...calendars.keys()].find((name) => path.startsWith(`${HOME}${name}/`));
      const objects = calendarName === undefined ? undefined : calendars.get(calendarName)!;
      const calendarPath = `${HOME}${calendarName}/`;
      if (req.method === 'PROPFIND') {
        if (body.includes('current-user-principal')) return send(207, multistatus([response(path, `<d:current-user-principal><d:href>${PRINCIPAL}</d:href></d:current-user-principal>`)]));
        if (body.includes('calendar-home-set')) return send(207, multistatus([response(PRINCIPAL, `<c:calendar-home-set><d:href>${HOME}</d:href></c:calendar-home-set>`)]));
        if (body.includes('supported-report-set')) {
          return send(207, multistatus([response(path, '<d:supported-report-set><d:supported-report><d:report><c:calendar-query/></d:report></d:supported-report>' +
            '<d:supported-report><d:report><c:calendar-multiget/></d:report></d:supported-report></d:supported-report-set>')]));
        }
        if (path === HOME) {
          return send(207, multistatus([response(HOME, '<d:resourcetype><d:collection/></d:resourcetype>'),
            ...[...calendars.keys()].map((name) => response(`${HOME}${name}/`, calendarProps(name)))]));
        }
        return send(404);
      }
      if (req.method === 'REPORT' && objects !== undefined) {
        if (body.includes('calendar-multiget')) {
          const hrefs = [...body.matchAll(/<(?:\w+:)?href>([^<]+)<\/(?:\w+:)?href>/g)].map((m) => decodeURIComponent(m[1]!));
          return send(207, multistatus(hrefs.flatMap((href) => {
            const ics = objects.get(href.slice(calendarPath.length));
            return ics === undefined ? [] : [response(href, `<d:getetag>"1"</d:getetag><c:calendar-data>${xmlEscape(ics)}</c:calendar-data>`)];
          })));
        }
        if (body.includes('calendar-query')) {
          const range = /time-range[^>]*start="(\w+)"[^>]*end="(\w+)"/.exec(body);
          const start = range === null ? -Infinity : icalUtc(range[1]!);
          const end = range === null ? Infinity : icalUtc(range[2]!);
          return send(207, multistatus([...objects].filter(([, ics]) => inRange(ics, start, end)).map(([file]) => response(`${calendarPath}${file}`, '<d:getetag>"1"</d:getetag>'))));
        }
      }
      if (req.method === 'PUT' && objects !== undefined) {
        const file = path.slice(calendarPath.length);
        if (objects.has(file) && req.headers['if-none-match'] === '*') return send(412);
        objects.set(file, body);
        return send(201);
      }
      return send(405);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups(t)(() => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  }));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/dav/`, calendars, requests };
}
