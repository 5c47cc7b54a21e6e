/** Watching files in tests: hashes kept in a Map, a recorder of what a watcher reported with bounded waits on it. */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { systemClock } from '../../engine/base/clock.js';
import { startWatch } from '../../engine/triggers/watch.js';
import type { WatchChange, WatchHashes, WatchOptions, WatchOverflow, Watcher } from '../../engine/triggers/watch.js';
import { systemTimers } from '../../engine/base/timers.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';

export const DEBOUNCE = 200;
/** The wall clock and real timers, as the engine gives them by default. */
export const REAL_TIME = { clock: systemClock, timers: systemTimers(systemClock) };

/** What the caller would persist in SQLite, kept in a Map. */
export class MapHashes implements WatchHashes {
  readonly map = new Map<string, string>();
  get(p: string): string | undefined { return this.map.get(p); }
  set(p: string, hash: string): void { this.map.set(p, hash); }
  remove(p: string): void { this.map.delete(p); }
  paths(): string[] { return [...this.map.keys()]; }
}

/** Everything a watcher reported, and bounded waits on it. */
export class Recorder {
  readonly changes: (WatchChange & { at: number })[] = [];
  readonly overflows: WatchOverflow[] = [];
  readonly errors: Error[] = [];
  private readonly events = new EventEmitter();

  note(): void { this.events.emit('update'); }
  names(): string[] { return this.changes.map((c) => path.basename(c.path)); }
  dropped(): number { return this.overflows.reduce((n, o) => n + o.dropped, 0); }

  /** Resolve when `ready()` holds (checked after each callback); fail after `ms`. */
  async until(ready: () => boolean, what: string, ms = 10_000): Promise<void> {
    if (ready()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.events.off('update', check);
        reject(new Error(`timed out after ${ms} ms waiting for ${what}; got changes [${this.names().join(', ')}], dropped ${this.dropped()}, errors [${this.errors.map((e) => e.message).join('; ')}]`));
      }, ms);
      const check = (): void => {
        if (!ready()) return;
        clearTimeout(timer);
        this.events.off('update', check);
        resolve();
      };
      this.events.on('update', check);
    });
  }

  /** Wait until a change of this file name has arrived (the count-th one). */
  async changeOf(name: string, count = 1): Promise<WatchChange> {
    await this.until(() => this.names().filter((n) => n === name).length >= count, `change #${count} of ${name}`);
    return this.changes.filter((c) => path.basename(c.path) === name)[count - 1] as WatchChange;
  }
}

export interface Started {
  watcher: Watcher;
  rec: Recorder;
  hashes: MapHashes;
}

/** Start a watcher that records into a fresh Recorder; closed after the test. */
export async function watchWith(t: TestContext, options: Partial<WatchOptions> & { path: string }, hashes = new MapHashes()): Promise<Started> {
  const rec = new Recorder();
  const watcher = startWatch({
    ...REAL_TIME,
    debounceMs: DEBOUNCE,
    hashes,
    onChange: (change) => {
      rec.changes.push({ ...change, at: performance.now() });
      rec.note();
    },
    onOverflow: (info) => {
      rec.overflows.push(info);
      rec.note();
    },
    onError: (error) => {
      rec.errors.push(error);
      rec.note();
    },
    ...options,
  });
  cleanups(t)(() => watcher.close());
  await watcher.ready;
  return { watcher, rec, hashes };
}

export function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

export function dir(t: TestContext): string {
  return fs.realpathSync(tempDir(t, 'kw-watch-'));
}
