/**
 * Cron schedules as pure functions of time: when a cron trigger fires next, and what to
 * fire after an outage. No timers, no clock reads, no I/O: instants (ms since the epoch)
 * in, instants out; the trigger service owns the clock.
 *
 * cron-parser 5 parses the schedule and says which local dates match (it runs in UTC,
 * where no time is skipped or repeated); times of day, the zone's offsets (from Intl) and
 * counting are done here. cron-parser's own zone handling is not used: it fires a daily
 * schedule twice when started inside a repeated hour (`30 2 * * *` in Europe/Warsaw from
 * 02:10 CET on 2026-10-25 gives 02:30 CET, after 02:30 CEST already fired), and walking
 * its iterator through a long outage is unbounded work (a month of a once-a-second
 * schedule is 2.6 million steps; here it is counted per day).
 *
 * Daylight-saving rules. No instant is ever returned twice.
 * - **Periodic** schedules, whose hour field covers all 24 hours (`0 * * * *`,
 *   `*\/15 * * * *`), follow real time: a local time that does not exist (spring forward)
 *   is skipped, one that happens twice (fall back) fires at both instants, an hour apart.
 * - **Wall-clock** schedules, all others (`30 2 * * *`, `0 6 * * MON-FRI`), fire once per
 *   matching local time: a local time that does not exist is shifted forward by the gap
 *   (02:30 on 2026-03-29 in Europe/Warsaw fires at 03:30 CEST, as cron-parser and
 *   Temporal's `compatible` disambiguation do); a repeated one fires at its first
 *   occurrence only.
 *
 * Assumes at most one offset change per zone within any two days (true of every IANA zone).
 */
import { CronExpressionParser } from 'cron-parser';
import type { CronExpression } from 'cron-parser';
import type { CatchUp } from '../../core/index.js';
import { KowalskiError, messageOf } from '../../core/index.js';
import { cronProblem, timezoneProblem } from '../horde/index.js';

/** Default cap of `catch_up = "all"`: at most this many missed instants fire at start. */
export const CRON_MAX_ALL = 100;
/** At most this many missed instants are listed in a plan; `missedCount` is the true number. */
export const CRON_MAX_MISSED = 1000;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A cron trigger's schedule, as in `TriggerDef`. */
export interface CronSpec {
  /** 5 fields (minute first), or 6 with seconds first. */
  schedule?: string | undefined;
  /** An IANA zone; absent = the process's zone (`Intl.DateTimeFormat().resolvedOptions().timeZone`). */
  timezone?: string | undefined;
}

export interface CatchUpSpec extends CronSpec {
  /** What to do with instants missed while stopped; default `once`. */
  catchUp?: CatchUp | undefined;
}

/** What to do at start for one cron trigger. All instants are ms since the epoch, ascending. */
export interface CatchUpPlan {
  /** Missed instants to fire now, in order. */
  fire: number[];
  /** Missed instants not fired, ascending: the latest `maxMissed` (default CRON_MAX_MISSED) of them. */
  missed: number[];
  /** How many instants were missed and not fired, exactly. */
  missedCount: number;
  /** The first scheduled instant after now (and after the last scheduled one). */
  next: number;
}

/** A checked schedule, ready to answer many questions. */
export interface CompiledCron {
  readonly schedule: string;
  /** The zone in use: the one written, or the process's. */
  readonly timezone: string;
  /** True when the hour field covers all 24 hours: it follows real time across DST changes. */
  readonly periodic: boolean;
  /** The first scheduled instant strictly after `afterMs`. */
  nextAfter(afterMs: number): number;
  /** How many scheduled instants lie in `(fromMs, toMs]`, without walking them one by one. */
  countBetween(fromMs: number, toMs: number): number;
}

/**
 * The first scheduled instant strictly after `afterMs`, in the schedule's zone, by the
 * daylight-saving rules above. Throws KW_ERR_TRIGGER_INVALID for a bad schedule or zone.
 */
export function nextFireAfter(def: CronSpec, afterMs: number): number {
  return compileCron(def).nextAfter(afterMs);
}

/**
 * What to fire at start after an outage: the instants in `(lastScheduledMs, nowMs]` were
 * missed. `skip` fires none; `once` fires the latest; `all` fires the latest `maxAll` in
 * order (the earlier ones are missed). A trigger seen for the first time
 * (`lastScheduledMs` null) missed nothing. `next` is never at or before `lastScheduledMs`,
 * so a clock that went back does not fire an instant twice.
 * @param maxAll cap for `all` (default CRON_MAX_ALL)
 * @param maxMissed how many missed instants to list (default CRON_MAX_MISSED)
 */
export function catchUpPlan(
  def: CatchUpSpec, lastScheduledMs: number | null, nowMs: number, maxAll = CRON_MAX_ALL, maxMissed = CRON_MAX_MISSED,
): CatchUpPlan {
  const c = compile(def);
  checkInstant('nowMs', nowMs);
  if (lastScheduledMs !== null) checkInstant('lastScheduledMs', lastScheduledMs);
  const from = lastScheduledMs ?? nowMs;
  const next = walkFrom(c, Math.max(from, nowMs))();
  const total = countInstants(c, from, nowMs);
  if (total === 0) return { fire: [], missed: [], missedCount: 0, next };
  const policy = def.catchUp ?? 'once';
  const fireCount = policy === 'skip' ? 0 : policy === 'once' ? 1 : Math.min(Math.max(0, maxAll), total);
  const listed = Math.min(Math.max(0, maxMissed), total - fireCount);
  const tail = lastInstants(c, from, nowMs, total, fireCount + listed);
  return { fire: tail.slice(listed), missed: tail.slice(0, listed), missedCount: total - fireCount, next };
}

/** Check a schedule and its zone once; throws KW_ERR_TRIGGER_INVALID naming what is wrong. */
export function compileCron(def: CronSpec): CompiledCron {
  const c = compile(def);
  return {
    schedule: c.schedule, timezone: c.timezone, periodic: c.periodic,
    nextAfter: (afterMs) => walkFrom(c, checkInstant('afterMs', afterMs))(),
    countBetween: (fromMs, toMs) => countInstants(c, checkInstant('fromMs', fromMs), checkInstant('toMs', toMs)),
  };
}

/** Instants are finite ms since the epoch; anything else is a caller's bug. */
function checkInstant(name: string, ms: number): number {
  if (!Number.isFinite(ms)) throw new KowalskiError('KW_ERR_INTERNAL', `cron: ${name} must be a finite number of ms since the epoch, not ${String(ms)}`);
  return ms;
}

function compile(def: CronSpec): Compiled {
  const schedule = (def.schedule ?? '').trim();
  const bad = schedule === '' ? 'a cron trigger needs a schedule' : cronProblem(schedule);
  if (bad !== undefined) throw new KowalskiError('KW_ERR_TRIGGER_INVALID', bad);
  const timezone = def.timezone ?? new Intl.DateTimeFormat().resolvedOptions().timeZone;
  let zone: Zone;
  try {
    zone = zoneOf(timezone);
  } catch (err) {
    throw new KowalskiError('KW_ERR_TRIGGER_INVALID', timezoneProblem(timezone) ?? `timezone "${timezone}": ${String(err)}`, { cause: err });
  }
  const invalid = (err: unknown): KowalskiError => new KowalskiError(
    'KW_ERR_TRIGGER_INVALID', `schedule "${schedule}": ${messageOf(err)}`, { cause: err });
  const parse = (expr: string, afterWall?: number): CronExpression => {
    try {
      return CronExpressionParser.parse(expr, afterWall === undefined ? { tz: 'UTC' } : { tz: 'UTC', currentDate: new Date(afterWall) });
    } catch (err) {
      throw invalid(err);
    }
  };
  const matcher = parse(schedule);
  const nums = (values: readonly (number | string)[]): number[] =>
    [...new Set(values.filter((v): v is number => typeof v === 'number'))].sort((x, y) => x - y);
  const hours = nums(matcher.fields.hour.values);
  const minutes = nums(matcher.fields.minute.values);
  const seconds = nums(matcher.fields.second.values);
  const firstTime = (hours[0] ?? 0) * HOUR + (minutes[0] ?? 0) * MINUTE + (seconds[0] ?? 0) * SECOND;
  const dayExpr = `0 0 0 ${schedule.split(/\s+/).slice(-3).join(' ')}`;
  const known = new Map<number, boolean>();
  const dayMatches = (day: number): boolean => {
    let hit = known.get(day);
    if (hit === undefined) {
      hit = matcher.includesDate(new Date(day + firstTime));
      if (known.size >= 50_000) known.clear();
      known.set(day, hit);
    }
    return hit;
  };
  const nextDay = (day: number): number => {
    for (let d = day + DAY; d <= day + SCAN_DAYS * DAY; d += DAY) if (dayMatches(d)) return d;
    // A sparse schedule (say the 29th of February): let cron-parser jump; it gives up on one that never fires.
    try {
      return parse(dayExpr, day + SCAN_DAYS * DAY).next().getTime();
    } catch (err) {
      throw invalid(err);
    }
  };
  const cal: Calendar = { hours, minutes, seconds, dayMatches, nextDay };
  return { schedule, timezone, periodic: hours.length === 24, zone, cal };
}

/** Days scanned one by one (cached) before asking cron-parser to jump to the next matching day. */
const SCAN_DAYS = 400;

/** The schedule as a calendar of local times: days are UTC-midnight ms of the local date. */
interface Calendar {
  /** Sorted values of the time fields (`seconds` is [0] for a 5-field schedule). */
  hours: number[];
  minutes: number[];
  seconds: number[];
  /** Whether the schedule fires on that local date (its day-of-month, month and weekday fields). */
  dayMatches(day: number): boolean;
  /** The first matching day after `day`. */
  nextDay(day: number): number;
}

interface Compiled {
  schedule: string;
  timezone: string;
  periodic: boolean;
  zone: Zone;
  cal: Calendar;
}

/** A zone's offset (local wall clock minus instant, ms) at an instant. */
interface Zone {
  offset(atMs: number): number;
}

/**
 * Offsets from Intl, remembered per UTC day: each day's offset before and after its change
 * (if any, found by bisection), so walking a year of instants asks Intl a few times a day.
 */
function zoneOf(timeZone: string): Zone {
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
  });
  const exact = (atMs: number): number => {
    const whole = Math.floor(atMs / SECOND) * SECOND;
    const p: Partial<Record<Intl.DateTimeFormatPartTypes, number>> = {};
    for (const part of fmt.formatToParts(whole)) if (part.type !== 'literal') p[part.type] = Number(part.value);
    const wall = new Date(0);
    wall.setUTCFullYear(p.year ?? 1970, (p.month ?? 1) - 1, p.day ?? 1);
    wall.setUTCHours(p.hour ?? 0, p.minute ?? 0, p.second ?? 0, 0);
    return wall.getTime() - whole;
  };
  /** UTC day number → its offset before `at` and from `at` on (`at` is Infinity on most days). Bounded. */
  const days = new Map<number, { at: number; before: number; after: number }>();
  const dayOf = (day: number): { at: number; before: number; after: number } => {
    const start = day * DAY;
    const before = exact(start);
    const after = exact(start + DAY - SECOND);
    if (before === after) return { at: Infinity, before, after };
    let lo = start; // has `before`
    let hi = start + DAY - SECOND; // has `after`
    while (hi - lo > SECOND) {
      const mid = Math.floor((lo + hi) / 2 / SECOND) * SECOND;
      if (exact(mid) === before) lo = mid;
      else hi = mid;
    }
    return { at: hi, before, after };
  };
  return {
    offset(atMs) {
      const day = Math.floor(atMs / DAY);
      let known = days.get(day);
      if (known === undefined) {
        known = dayOf(day);
        if (days.size >= 50_000) days.clear();
        days.set(day, known);
      }
      return Math.floor(atMs / SECOND) * SECOND < known.at ? known.before : known.after;
    },
  };
}

/** The local times the schedule matches after `afterWall` (a local time as UTC ms), ascending. */
function wallsAfter(cal: Calendar, afterWall: number): () => number {
  const { hours, minutes, seconds } = cal;
  let day = Math.floor(afterWall / DAY) * DAY;
  let [hi, mi, si] = cal.dayMatches(day) ? firstTimeAfter(cal, afterWall - day) ?? [-1, 0, 0] : [-1, 0, 0];
  if (hi === -1) {
    day = cal.nextDay(day);
    hi = 0;
  }
  return () => {
    const wall = day + (hours[hi] ?? 0) * HOUR + (minutes[mi] ?? 0) * MINUTE + (seconds[si] ?? 0) * SECOND;
    si += 1;
    if (si === seconds.length) [si, mi] = [0, mi + 1];
    if (mi === minutes.length) [mi, hi] = [0, hi + 1];
    if (hi === hours.length) [hi, day] = [0, cal.nextDay(day)];
    return wall;
  };
}

/** Indexes (hour, minute, second) of the first time of day strictly after `ms` into the day, or undefined. */
function firstTimeAfter(cal: Calendar, ms: number): [number, number, number] | undefined {
  const { hours, minutes, seconds } = cal;
  const h = Math.floor(ms / HOUR);
  const m = Math.floor((ms % HOUR) / MINUTE);
  const rest = ms % MINUTE;
  const hi = hours.findIndex((v) => v >= h);
  if (hi === -1) return undefined;
  const later = (i: number): [number, number, number] | undefined => (i < hours.length ? [i, 0, 0] : undefined);
  if (hours[hi] !== h) return [hi, 0, 0];
  const mi = minutes.findIndex((v) => v >= m);
  if (mi === -1) return later(hi + 1);
  if (minutes[mi] !== m) return [hi, mi, 0];
  const si = seconds.findIndex((v) => v * SECOND > rest);
  if (si !== -1) return [hi, mi, si];
  return mi + 1 < minutes.length ? [hi, mi + 1, 0] : later(hi + 1);
}

/** The instants a local time becomes, by the daylight-saving rules of the file comment. */
function instantsOf(c: Compiled, wall: number): number[] {
  const before = c.zone.offset(wall - DAY);
  const after = c.zone.offset(wall + DAY);
  if (before === after) return [wall - before];
  const real = [wall - before, wall - after].filter((t) => c.zone.offset(t) === wall - t).sort((a, b) => a - b);
  const [first, second] = real;
  if (first === undefined) return c.periodic ? [] : [wall - before]; // skipped: shifted forward by the gap
  if (second === undefined || second === first || !c.periodic) return [first];
  return [first, second];
}

/** A generator of the scheduled instants after `afterMs`, strictly increasing. */
function walkFrom(c: Compiled, afterMs: number): () => number {
  const { zone } = c;
  // Any instant after afterMs has a local time after afterMs + the lowest offset near it.
  const lowest = Math.min(zone.offset(afterMs - 2 * DAY), zone.offset(afterMs), zone.offset(afterMs + 2 * DAY));
  const walls = wallsAfter(c.cal, afterMs + lowest);
  let wall = walls();
  let last = afterMs;
  /** Candidates, ascending; `reach` is the highest offset near t. */
  const pending: { t: number; reach: number }[] = [];
  return () => {
    for (;;) {
      const head = pending[0];
      // Local times from `wall` on map to instants at or after wall - reach: none can come before head.
      if (head !== undefined && wall - head.reach >= head.t) {
        pending.shift();
        if (head.t > last) {
          last = head.t;
          return head.t;
        }
        continue;
      }
      for (const t of instantsOf(c, wall)) {
        if (t <= last || pending.some((p) => p.t === t)) continue;
        const reach = Math.max(zone.offset(t - 3 * DAY), zone.offset(t - DAY), zone.offset(t), zone.offset(t + DAY));
        const at = pending.findIndex((p) => p.t > t);
        pending.splice(at === -1 ? pending.length : at, 0, { t, reach });
      }
      wall = walls();
    }
  };
}

/** Offset changes in `(fromMs, toMs]`: the first instant of each new offset, and the change. */
function transitions(zone: Zone, fromMs: number, toMs: number): { at: number; delta: number }[] {
  const out: { at: number; delta: number }[] = [];
  let a = fromMs;
  let offA = zone.offset(a);
  while (a < toMs) {
    const b = Math.min(a + DAY, toMs);
    const offB = zone.offset(b);
    if (offB !== offA) {
      let lo = a; // offset offA
      let hi = b; // offset offB
      while (hi - lo > SECOND) {
        const mid = Math.floor((lo + hi) / 2 / SECOND) * SECOND;
        if (mid <= lo) break;
        if (zone.offset(mid) === offA) lo = mid;
        else hi = mid;
      }
      out.push({ at: hi, delta: offB - offA });
    }
    a = b;
    offA = offB;
  }
  return out;
}

/**
 * How many instants in `(fromMs, toMs]`. Away from offset changes, local time is the
 * instant plus a constant, so local times are counted per day by arithmetic; around each
 * change (its size plus a minute on each side) the instants are walked one by one.
 */
function countInstants(c: Compiled, fromMs: number, toMs: number): number {
  if (!(toMs > fromMs)) return 0;
  const danger = transitions(c.zone, fromMs - 2 * DAY, toMs + 2 * DAY)
    .map(({ at, delta }) => ({ start: at - Math.abs(delta) - MINUTE, end: at + Math.abs(delta) + MINUTE }));
  let n = 0;
  let a = fromMs;
  for (const d of danger) {
    if (d.end <= a) continue;
    if (d.start >= toMs) break;
    if (d.start > a) n += countWalls(c, a, d.start);
    const end = Math.min(d.end, toMs);
    const walk = walkFrom(c, Math.max(a, d.start));
    while (walk() <= end) n += 1;
    a = end;
  }
  if (a < toMs) n += countWalls(c, a, toMs);
  return n;
}

/** Instants in `(fromMs, toMs]` when the offset is the same throughout (and no change is near). */
function countWalls(c: Compiled, fromMs: number, toMs: number): number {
  const off = c.zone.offset(toMs);
  const x = fromMs + off;
  const y = toMs + off;
  const firstDay = Math.floor(x / DAY) * DAY;
  const lastDay = Math.floor(y / DAY) * DAY;
  let n = 0;
  for (let d = firstDay; d <= lastDay; d += DAY) {
    if (!c.cal.dayMatches(d)) continue;
    n += timesUpTo(c.cal, d === lastDay ? y - d : DAY - 1) - timesUpTo(c.cal, d === firstDay ? x - d : -1);
  }
  return n;
}

/** How many of the schedule's times of day are at or before `ms` into the day (0 when negative). */
function timesUpTo(cal: Calendar, ms: number): number {
  if (ms < 0) return 0;
  const s = Math.floor(ms / SECOND);
  const h = Math.floor(s / 3600);
  const m = Math.floor(s / 60) % 60;
  const below = (values: number[], v: number): number => values.filter((x) => x < v).length;
  let n = below(cal.hours, h) * cal.minutes.length * cal.seconds.length;
  if (cal.hours.includes(h)) {
    n += below(cal.minutes, m) * cal.seconds.length;
    if (cal.minutes.includes(m)) n += below(cal.seconds, (s % 60) + 1);
  }
  return n;
}

/** The last `keep` of the `total` instants in `(fromMs, toMs]`, walking only near the end. */
function lastInstants(c: Compiled, fromMs: number, toMs: number, total: number, keep: number): number[] {
  if (keep <= 0) return [];
  let start = fromMs;
  if (total > keep) {
    // Widen a window back from toMs until it holds enough, so the walk stays short.
    for (let span = HOUR; ; span *= 2) {
      const s = toMs - span;
      if (s <= fromMs) break;
      if (countInstants(c, s, toMs) >= keep) {
        start = s;
        break;
      }
    }
  }
  const out: number[] = [];
  const walk = walkFrom(c, start);
  for (let t = walk(); t <= toMs; t = walk()) {
    out.push(t);
    if (out.length > keep) out.shift();
  }
  return out;
}
