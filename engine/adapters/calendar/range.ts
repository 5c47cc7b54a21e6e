/**
 * The time range a calendar tool is asked about: `from` and `to` as ISO dates
 * (`2026-12-01`: that whole day, read in the calendar's time zone) or date-times
 * (`2026-12-01T09:00`, in the calendar's zone; or with `Z` / `+01:00`). Bounded, so one
 * call cannot expand a daily event over a century.
 */
import { KowalskiError } from '../../../core/index.js';
import { wallToInstant } from './zoned-time.js';

/** The longest range one call may ask about, days. */
export const MAX_RANGE_DAYS = 366;

export interface TimeRange {
  /** Inclusive, ms since the epoch. */
  fromMs: number;
  /** Exclusive. */
  toMs: number;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

function invalid(key: string, value: string): KowalskiError {
  return new KowalskiError('KW_ERR_TOOL_ARGS', `${key} ${JSON.stringify(value)} is not an ISO date or date-time: write e.g. "2026-12-01" or "2026-12-01T09:00" (the calendar's time zone) or "2026-12-01T09:00:00Z"`);
}

/** The instant `value` names; a plain date is the start of that day, or with `endOfDay` the start of the next. */
export function parseInstant(key: string, value: string, tz: string, endOfDay = false): number {
  const text = value.trim();
  const date = DATE.exec(text);
  const m = date ?? DATE_TIME.exec(text);
  if (m === null) throw invalid(key, value);
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((s) => (s === undefined ? 0 : Number(s)));
  const utc = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (utc.getUTCMonth() !== month - 1 || utc.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) throw invalid(key, value);
  const zone = date === null ? m[7] : undefined;
  if (zone === undefined) {
    // Date.UTC carries day 32 into the next month: the day after, as a wall date.
    const at = date !== null && endOfDay ? new Date(Date.UTC(year, month - 1, day + 1)) : utc;
    return wallToInstant({ year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate(), hour, minute, second }, tz);
  }
  if (zone.toUpperCase() === 'Z') return utc.getTime();
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return utc.getTime() - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
}

/** `from` … `to` checked: KW_ERR_TOOL_ARGS for a bad date, `to` not after `from`, or more than MAX_RANGE_DAYS. */
export function parseRange(from: string, to: string, tz: string): TimeRange {
  const fromMs = parseInstant('from', from, tz);
  const toMs = parseInstant('to', to, tz, true);
  if (toMs <= fromMs) throw new KowalskiError('KW_ERR_TOOL_ARGS', `to (${to}) must be after from (${from})`);
  if (toMs - fromMs > MAX_RANGE_DAYS * 86_400_000) {
    throw new KowalskiError('KW_ERR_TOOL_ARGS', `from ${from} to ${to} is longer than ${MAX_RANGE_DAYS} days: ask for a shorter range`);
  }
  return { fromMs, toMs };
}
