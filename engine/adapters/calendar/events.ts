/** What the calendar tools answer: one event, or one occurrence of a recurring event. */

export interface CalendarEvent {
  uid: string;
  summary: string;
  /** An all-day event: its first date (`2026-11-25`); else its start in the calendar's time zone (`2026-11-03T16:00:00+01:00`). */
  start: string;
  /** An all-day event: the day after its last (exclusive, as in iCalendar); else its end. */
  end: string;
  allDay: boolean;
  /** The time zone the event was written in (`America/New_York`), when it names one. */
  timeZone: string | null;
  location: string;
  /** Bounded to MAX_DESCRIPTION_CHARS, with `…` when cut. */
  description: string;
  /** Where it comes from: the ICS file or URL, or `caldav:<calendar name>`. */
  source: string;
  /** An occurrence of a recurring event. */
  recurring: boolean;
  /** For sorting: the start as ms since the epoch (not sent to the model). */
  startMs: number;
}

/** Characters of an event's description given. */
export const MAX_DESCRIPTION_CHARS = 2000;

/** Occurrences of one recurring event looked at before giving up on it (it is noted). */
export const MAX_OCCURRENCE_STEPS = 100_000;

export function boundedDescription(text: string): string {
  return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS)}…` : text;
}
