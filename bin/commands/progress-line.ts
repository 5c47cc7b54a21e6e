/**
 * The one updating line a long offline command (backup, restore, `store copy`, `vault
 * reindex`, `bundle import`) draws on stderr while it works: `backup: 120/400 files (30 %)`. Only on a
 * terminal and not with --json: piped or redirected output (logs, scripts, CI) gets none,
 * and stdout keeps only the result. Redrawn in place (`\r` and clear line), at most every
 * 100 ms; at the end the last count is drawn and the line ended with a newline, so what
 * follows starts on its own line.
 */
import type { Progress, ProgressReport } from '../../contract/index.js';
import { NO_PROGRESS, throttleProgress } from '../../core/index.js';

/** What the line is drawn on: process.stderr, or a fake in tests. */
export interface LineStream {
  write(text: string): unknown;
  isTTY?: boolean;
  /** The terminal's width; the line is cut to fit when it is known. */
  columns?: number;
}

export interface ProgressLine {
  /** Give this to the operation. */
  report: Progress;
  /** End the line (a newline, if anything was drawn); call it when the operation ends, failed or not. */
  end(): void;
}

export interface ProgressLineOptions {
  /** Where to draw (default process.stderr). */
  stream?: LineStream;
  /** --json was given: draw nothing. */
  json?: boolean;
  /** Clock in ms (default Date.now). */
  now?: () => number;
  /** Least time between redraws, ms (default 100). */
  intervalMs?: number;
}

const CLEAR = '\r\x1b[2K';

/** `label: 120/400 files (30 %) item`, or `label: 120 rows item` when the total is unknown. */
export function progressText(label: string, p: ProgressReport): string {
  const count = p.total === null
    ? `${p.done} ${p.phase}`
    : `${p.done}/${p.total} ${p.phase} (${p.total === 0 ? 100 : Math.floor((p.done / p.total) * 100)} %)`;
  return `${label}: ${count}${p.item === undefined ? '' : `  ${p.item}`}`;
}

export function progressLine(label: string, options: ProgressLineOptions = {}): ProgressLine {
  const stream = options.stream ?? process.stderr;
  if (options.json === true || stream.isTTY !== true) return { report: NO_PROGRESS, end: () => undefined };
  let drawn = false;
  let latest: ProgressReport | undefined;
  let shown: ProgressReport | undefined;
  const draw = (p: ProgressReport): void => {
    const text = progressText(label, p);
    const width = stream.columns;
    stream.write(`${CLEAR}${width !== undefined && width > 1 && text.length >= width ? text.slice(0, width - 1) : text}`);
    drawn = true;
    shown = p;
  };
  const throttled = throttleProgress(draw, options.now ?? Date.now, options.intervalMs);
  return {
    report(p) {
      latest = p;
      throttled(p);
    },
    end() {
      // The last count, when the throttle held it back (a total unknown has no forced last report).
      if (latest !== undefined && latest !== shown) draw(latest);
      if (drawn) stream.write('\n');
      drawn = false;
      latest = undefined;
    },
  };
}
