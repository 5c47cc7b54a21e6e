/**
 * `[adapters.<name>]` of type `calendar`: where events are read (`ics` files and URLs, a
 * `[adapters.<name>.caldav]` server), whether agents may write (`write`, default false),
 * and the time zone answers are given in. Every problem is KW_ERR_ADAPTER_CONFIG naming the key.
 */
import path from 'node:path';
import { expandHome } from '../../../agents/index.js';
import { adapterConfigError, secretSetting, stringSetting, urlSetting } from '../settings.js';
import { isTimeZone } from './zoned-time.js';

export interface CalDavSettings {
  /** The server (or its calendar home): calendars are found from it by CalDAV discovery. */
  url: string;
  username: string;
  /** From `password`, or the environment variable `password_env` names. Never shown. */
  password: string;
  /** `calendar`: the display name (or URL) of the calendar to read and write; null: read every calendar, write to the only one. */
  calendar: string | null;
}

export interface CalendarSettings {
  name: string;
  /** `ics`: iCalendar files (absolute, or `~/…`) and http(s) URLs, read at every call. */
  ics: readonly IcsSource[];
  caldav: CalDavSettings | null;
  /** `write` (default false): calendar_create_event may write to the CalDAV calendar. */
  write: boolean;
  /** `time_zone` (default: this machine's): IANA name; floating times and plain dates are read in it, and every answer is written in it. */
  timeZone: string;
}

export type IcsSource = { kind: 'file'; path: string; shown: string } | { kind: 'url'; url: string; shown: string };

/** Most `ics` sources one calendar reads. */
export const MAX_ICS_SOURCES = 20;

const KEYS = ['ics', 'caldav', 'write', 'time_zone'];
const CALDAV_KEYS = ['url', 'username', 'password', 'password_env', 'calendar'];

function unknownKeys(raw: Record<string, unknown>, known: readonly string[], name: string, prefix: string): void {
  for (const key of Object.keys(raw)) {
    if (!known.includes(key)) throw adapterConfigError(name, `${prefix}${key}`, `is not a calendar setting (the calendar has ${known.map((k) => prefix + k).join(', ')})`);
  }
}

function icsSources(v: unknown, name: string): IcsSource[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw adapterConfigError(name, 'ics', 'must be a list of files and URLs, e.g. ["~/calendars/team.ics", "https://example.com/cal.ics"]');
  if (v.length > MAX_ICS_SOURCES) throw adapterConfigError(name, 'ics', `lists ${v.length} sources; at most ${MAX_ICS_SOURCES}`);
  return v.map((entry, i) => {
    const key = `ics[${i}]`;
    if (typeof entry !== 'string' || entry.trim() === '') throw adapterConfigError(name, key, `must be a file path or an http(s) URL, not ${JSON.stringify(entry)}`);
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry)) {
      // webcal:// is how calendar links ask for a subscription: the same file over https.
      const url = entry.replace(/^webcal:\/\//i, 'https://');
      return { kind: 'url', url: urlSetting({ [key]: url }, name, key)!, shown: entry };
    }
    const file = expandHome(entry);
    if (!path.isAbsolute(file)) throw adapterConfigError(name, key, `${JSON.stringify(entry)} must be an absolute path or start with ~/`);
    return { kind: 'file', path: file, shown: entry };
  });
}

function caldavSettings(v: unknown, env: NodeJS.ProcessEnv, name: string): CalDavSettings | null {
  if (v === undefined) return null;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw adapterConfigError(name, 'caldav', 'must be a table: [adapters.<name>.caldav] with url, username, password (or password_env)');
  const raw = v as Record<string, unknown>;
  unknownKeys(raw, CALDAV_KEYS, name, 'caldav.');
  const prefixed = Object.fromEntries(Object.entries(raw).map(([k, value]) => [`caldav.${k}`, value]));
  const url = urlSetting(prefixed, name, 'caldav.url');
  if (url === undefined) throw adapterConfigError(name, 'caldav.url', 'is required');
  return {
    url,
    username: stringSetting(prefixed, name, 'caldav.username', { required: true }),
    password: secretSetting(prefixed, env, name, 'caldav.password', { required: true }),
    calendar: stringSetting(prefixed, name, 'caldav.calendar') ?? null,
  };
}

/** This machine's time zone (Intl's), the default of `time_zone`. */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** Check and read a calendar's section (without `type`, `enabled`, `agent`). */
export function calendarSettings(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, name: string): CalendarSettings {
  unknownKeys(raw, KEYS, name, '');
  const write = raw.write ?? false;
  if (typeof write !== 'boolean') throw adapterConfigError(name, 'write', `must be true or false, not ${JSON.stringify(write)}`);
  const timeZone = stringSetting(raw, name, 'time_zone') ?? localTimeZone();
  if (!isTimeZone(timeZone)) throw adapterConfigError(name, 'time_zone', `${JSON.stringify(timeZone)} is not a time zone: write an IANA name such as "Europe/Berlin" or "UTC"`);
  const settings: CalendarSettings = { name, ics: icsSources(raw.ics, name), caldav: caldavSettings(raw.caldav, env, name), write, timeZone };
  if (settings.ics.length === 0 && settings.caldav === null) throw adapterConfigError(name, 'ics', 'a calendar needs ics = ["<file or URL>", …] or a [adapters.<name>.caldav] server, or both');
  return settings;
}
