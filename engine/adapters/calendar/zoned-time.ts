/**
 * Wall-clock times in IANA time zones, with Node's own time-zone data (Intl): a wall time
 * in a zone to an instant, an instant to ISO 8601 with the zone's offset. The calendar
 * reads events' times with them where ical.js has no VTIMEZONE to go by, and writes every
 * time it answers in the zone it was given in.
 */

/** A wall-clock time: month 1–12. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** Whether Intl knows `tz` as a time zone (`Europe/Berlin`, `UTC`). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock time at instant `ms` in `tz`. */
export function wallAt(ms: number, tz: string): WallTime {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
  }).formatToParts(new Date(ms));
  const get = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') };
}

function asUtc(w: WallTime): number {
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
}

/** `tz`'s offset from UTC at instant `ms`, in milliseconds (east positive). */
function offsetAt(ms: number, tz: string): number {
  return asUtc(wallAt(ms, tz)) - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant of wall time `w` in `tz`. A time skipped by a clock change (02:30 on the
 * spring-forward night) is read with the offset before the change, so it lands an hour
 * later, as calendars do; a repeated time (autumn) is its first occurrence.
 */
export function wallToInstant(w: WallTime, tz: string): number {
  const guess = asUtc(w);
  const before = guess - offsetAt(guess - 86_400_000, tz);
  const after = guess - offsetAt(guess + 86_400_000, tz);
  const candidates = [before, after].filter((ms) => asUtc(wallAt(ms, tz)) === guess).sort((a, b) => a - b);
  return candidates[0] ?? before;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** `2026-11-03T10:00:00-05:00`: instant `ms` as wall time in `tz` with its offset (`Z` for UTC). */
export function isoInZone(ms: number, tz: string): string {
  const w = wallAt(ms, tz);
  const offset = Math.round(offsetAt(ms, tz) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const zone = tz === 'UTC' ? 'Z' : `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}${zone}`;
}

/** `2026-11-25`: a date's ISO form. */
export function isoDate(w: Pick<WallTime, 'year' | 'month' | 'day'>): string {
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
}
