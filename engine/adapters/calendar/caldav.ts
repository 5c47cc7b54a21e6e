/**
 * A CalDAV account through tsdav (loaded at connect): discovery from the configured URL
 * (well-known, principal, calendar home), the calendars to read (the one named by
 * `calendar`, else every calendar of events), their events in a range (a calendar-query
 * with a time-range, then expanded here like an ICS file), and writing one event (a PUT
 * that never replaces an existing object: `If-None-Match: *`).
 */
import type { DAVCalendar, createDAVClient } from 'tsdav';
import { KowalskiError, messageOf } from '../../../core/index.js';
import { davFetch } from './dav-fetch.js';
import { expandIcs } from './ics-expand.js';
import type { Expanded } from './ics-expand.js';
import type { TimeRange } from './range.js';
import type { CalDavSettings } from './settings.js';

type Client = Awaited<ReturnType<typeof createDAVClient>>;

function nameOf(calendar: DAVCalendar): string {
  return typeof calendar.displayName === 'string' && calendar.displayName !== '' ? calendar.displayName : calendar.url;
}

function sourceError(settings: CalDavSettings, err: unknown): KowalskiError {
  if (err instanceof KowalskiError) return err;
  return new KowalskiError('KW_ERR_CALENDAR_SOURCE', `CalDAV ${settings.url}: ${messageOf(err)}`, { cause: err });
}

export class CalDav {
  private constructor(private readonly settings: CalDavSettings, private readonly adapter: string, private readonly client: Client) {}

  /** Log in and find the calendars (so a wrong URL or password fails the adapter's start). KW_ERR_CALENDAR_SOURCE. */
  static async connect(settings: CalDavSettings, adapter: string, signal?: AbortSignal): Promise<CalDav> {
    const { createDAVClient } = await import('tsdav');
    try {
      const client = await createDAVClient({
        serverUrl: settings.url,
        credentials: { username: settings.username, password: settings.password },
        authMethod: 'Basic',
        defaultAccountType: 'caldav',
        fetch: davFetch(signal === undefined ? {} : { signal }),
      });
      const dav = new CalDav(settings, adapter, client);
      await dav.calendars(signal);
      return dav;
    } catch (err) {
      throw sourceError(settings, err);
    }
  }

  /** Whether this client was made from these settings (else the tools connect anew). */
  sameAs(settings: CalDavSettings): boolean {
    const s = this.settings;
    return s.url === settings.url && s.username === settings.username && s.password === settings.password && s.calendar === settings.calendar;
  }

  /** The calendars to read: the one `calendar` names (display name or URL), else all. */
  async calendars(signal?: AbortSignal): Promise<DAVCalendar[]> {
    const chosen = this.settings.calendar;
    const all = await this.client.fetchCalendars({ fetch: davFetch(signal === undefined ? {} : { signal }) });
    if (chosen === null) return all;
    const wanted = chosen.toLowerCase();
    const found = all.filter((c) => nameOf(c).toLowerCase() === wanted || c.url === chosen || new URL(c.url).pathname === chosen);
    if (found.length === 0) {
      throw new KowalskiError('KW_ERR_CALENDAR_SOURCE', `CalDAV ${this.settings.url}: no calendar named ${JSON.stringify(chosen)} (the account has ${all.map((c) => JSON.stringify(nameOf(c))).join(', ') || 'none'})`);
    }
    return found.slice(0, 1);
  }

  /** The events of the calendars within `range`, expanded. */
  async events(range: TimeRange, tz: string, signal?: AbortSignal): Promise<Expanded> {
    const fetch = davFetch(signal === undefined ? {} : { signal });
    const out: Expanded = { events: [], notes: [] };
    try {
      for (const calendar of await this.calendars(signal)) {
        const objects = await this.client.fetchCalendarObjects({
          calendar, fetch,
          timeRange: { start: new Date(range.fromMs).toISOString(), end: new Date(range.toMs).toISOString() },
        });
        const source = `caldav:${nameOf(calendar)}`;
        for (const object of objects) {
          if (typeof object.data !== 'string' || object.data === '') continue;
          try {
            const found = expandIcs(object.data, range, { tz, source });
            out.events.push(...found.events);
            out.notes.push(...found.notes);
          } catch (err) {
            out.notes.push(messageOf(err));
          }
        }
      }
    } catch (err) {
      throw sourceError(this.settings, err);
    }
    return out;
  }

  /**
   * PUT `ics` as `<uid>.ics` into the one calendar to write to: the one `calendar` names,
   * else the account's only calendar. Returns the object's URL and the calendar's name.
   */
  async create(uid: string, ics: string, signal?: AbortSignal): Promise<{ url: string; calendar: string }> {
    try {
      const calendars = await this.calendars(signal);
      if (calendars.length !== 1) {
        throw new KowalskiError('KW_ERR_CALENDAR_WRITE_OFF', `CalDAV ${this.settings.url} has ${calendars.length} calendars (${calendars.map((c) => JSON.stringify(nameOf(c))).join(', ')}): the operator must name the one to write to (calendar = "…" in [adapters.${this.adapter}.caldav])`);
      }
      const calendar = calendars[0]!;
      const filename = `${encodeURIComponent(uid)}.ics`;
      const res = await this.client.createCalendarObject({ calendar, filename, iCalString: ics, fetch: davFetch(signal === undefined ? {} : { signal }) });
      if (!res.ok) throw new KowalskiError('KW_ERR_CALENDAR_SOURCE', `CalDAV ${calendar.url}: writing the event was refused: HTTP ${res.status}${res.statusText === '' ? '' : ` ${res.statusText}`}`);
      return { url: new URL(filename, calendar.url.endsWith('/') ? calendar.url : `${calendar.url}/`).href, calendar: nameOf(calendar) };
    } catch (err) {
      throw sourceError(this.settings, err);
    }
  }
}
