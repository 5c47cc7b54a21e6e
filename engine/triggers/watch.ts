/**
 * The watcher of `kind = "watch"` triggers (chokidar 5 underneath): it reports each settled
 * change of a file once, however many writes made it, and stays bounded under floods.
 *
 * A file's way through: an event → wait until `debounceMs` pass with no event and the same
 * size/mtime/inode → sha256 of the content (streamed; at most {@link HASH_CONCURRENCY} files
 * at a time; re-checked after hashing) → compared with the last hash fired for it → if
 * different, into the pending queue → `onChange`. At start, chokidar's initial scan feeds
 * the same path: files untouched for `debounceMs` are hashed at once, and files modified
 * while stopped (or never fired) fire once; hashes of files no longer there are forgotten.
 *
 * Floods: every file is its own change (no folder-level coalescing: the caller's overlap
 * policy decides how changes become runs). The queue holds `maxPending` settled changes the
 * caller has not taken yet; beyond it, changes are dropped and reported through
 * `onOverflow` (a count and examples; one report per burst, at most a second late). A
 * change is taken when `onChange` returns, or when the promise it returns settles: return
 * a promise (e.g. that of committing the run) to slow the watcher down to your pace.
 *
 * Hashes: a delivered change's hash is recorded after `onChange` returns or fulfils (so a
 * crash before that fires it again on the next start); a dropped change's hash is recorded
 * when it is dropped (it was reported, and must not come back on every restart); a file
 * deleted for longer than `debounceMs` is forgotten. Changes still queued at `close()` are
 * not recorded, so they fire after the next start.
 *
 * Never fired: scratch files ({@link isScratchName}), names the globs exclude, hidden files
 * and folders (unless a glob names them: see glob.ts), anything under `ignore`, and files
 * that live shorter than `debounceMs` (an atomic save's temporary file is gone when its
 * timer runs out). When `path` is a file or does not exist yet, its parent folder is watched,
 * so an atomic save over the file, or the folder appearing later, is seen.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import { KowalskiError } from '../../core/index.js';
import type { Clock } from '../base/clock.js';
import { compileGlobs, type GlobSet } from './glob.js';
import type { Timers } from '../base/timers.js';

/** Default {@link WatchOptions.maxPending}: settled changes the caller has not taken yet. */
export const DEFAULT_MAX_PENDING = 1000;
/** At most this many example paths in one overflow report. */
export const MAX_OVERFLOW_EXAMPLES = 10;
/** Files hashed at the same time. */
export const HASH_CONCURRENCY = 4;
/** An overflow is reported when the burst has settled, or at most this long after its first drop (ms). */
export const OVERFLOW_REPORT_MS = 1000;

/** The last fired hash per absolute path, one store per trigger; persisted by the caller (SQLite). */
export interface WatchHashes {
  get(path: string): string | undefined;
  set(path: string, hash: string): void;
  remove(path: string): void;
  paths(): string[];
}

/** A settled change of one file. */
export interface WatchChange {
  /** Absolute path of the file. */
  path: string;
  /** sha256 of its content, hex. */
  hash: string;
  /** Its size in bytes. */
  size: number;
  /** `added`: no hash was recorded for this path; `changed`: a different one was. */
  kind: 'added' | 'changed';
}

export interface WatchOverflow {
  /** Changes dropped (their hashes are recorded as seen). */
  dropped: number;
  /** Up to {@link MAX_OVERFLOW_EXAMPLES} of their paths. */
  examples: string[];
}

export interface WatchOptions {
  /** The file or folder to watch, absolute (the caller expands `~`). */
  path: string;
  /** Which files count, relative to `path` when it is a folder (see glob.ts). Default: every file that is not hidden. Not used when `path` is a file. */
  globs?: string[];
  /** How long a file must stay unchanged before it counts as settled (ms), on `clock`. */
  debounceMs: number;
  /** The engine's clock: a file's age at start is `clock.now()` minus its mtime. */
  clock: Clock;
  /** The engine's timers, on that clock: the debounce, forgetting a deleted file, the overflow report. */
  timers: Timers;
  hashes: WatchHashes;
  /** A settled change: the file exists, stopped changing for debounceMs, and its content hash differs from the last one fired. A returned promise is waited for before the next change (backpressure). */
  onChange(change: WatchChange): void | Promise<void>;
  /** More changes than the queue holds: reported, never silently dropped. */
  onOverflow(info: WatchOverflow): void;
  /** A file that cannot be read, a watch the system refused (e.g. the inotify limit), or a callback that threw. Default: a process warning. */
  onError?(error: Error, path: string): void;
  /** Paths to ignore, absolute (the engine's data dir: its own runs' output must never fire a trigger). */
  ignore?: string[];
  /** Settled changes held until the caller takes them; beyond it they are dropped and reported. Default {@link DEFAULT_MAX_PENDING}. */
  maxPending?: number;
  /** Match globs case-insensitively. Default: true on macOS and Windows, false elsewhere. */
  nocase?: boolean;
}

export interface Watcher {
  /** Resolves when watching, with every file changed while stopped queued (or reported as dropped) and removed ones forgotten (a file still being written at start is queued once it settles). */
  ready: Promise<void>;
  /** Stop watching; pending overflow is reported first; queued changes are not delivered. */
  close(): Promise<void>;
}

const SCRATCH_NAMES = [
  /\.te?mp$/i, // editors' and downloaders' temporary files
  /~$/, // backups (vim, emacs, gedit)
  /\.sw[a-p]$/i, // vim swap files
  /^\.#/, // emacs lock files
  /^#.*#$/, // emacs auto-saves
  /^~\$/, // Microsoft Office owner files
  /^\.~lock\..*#$/, // LibreOffice lock files
  /\.(crdownload|part|partial)$/i, // unfinished browser downloads
  /^4913$/, // vim's probe of whether a folder is writable
];

/** Is this file name an editor's or a downloader's scratch file, never a change worth a run? */
export function isScratchName(name: string): boolean {
  return SCRATCH_NAMES.some((re) => re.test(name));
}

/** Start watching. Errors after start go to `onError`; `ready` rejects only on an unexpected failure. */
export function startWatch(options: WatchOptions): Watcher {
  const session = new WatchSession(options);
  const ready = session.start();
  ready.catch((err: unknown) => session.report(err, options.path));
  return { ready, close: () => session.close() };
}

/** One file on its way to settling. */
interface Entry {
  /** size:mtime:inode at the latest event or stat; settled when a stat a debounce later still shows it. */
  sig: string | undefined;
  /** Cancels the settle timer. */
  timer: (() => void) | undefined;
  hashing: boolean;
  /** An event came while it was being hashed. */
  dirty: boolean;
  /** Found by the start scan and not yet settled: ready waits for these. */
  initial: boolean;
}

class WatchSession {
  private readonly root: string;
  private readonly rootPrefix: string;
  private readonly globs: GlobSet;
  private readonly ignore: string[];
  private readonly maxPending: number;
  private readonly abort = new AbortController();
  private fsw: FSWatcher | undefined;
  private watchDir = '';
  private closed = false;
  private closing: Promise<void> | undefined;

  private readonly entries = new Map<string, Entry>();
  private readonly hashQueue = new Set<string>();
  private readonly jobs = new Set<Promise<void>>();
  /** Per deleted path, the cancel of the timer that forgets it. */
  private readonly goneTimers = new Map<string, () => void>();
  /** Settled changes not yet taken, in order; one per path. */
  private readonly queue = new Map<string, WatchChange>();
  private inFlight: WatchChange | undefined;
  private draining = false;
  private dropped = 0;
  private examples: string[] = [];
  private overflowTimer: (() => void) | undefined;

  /** Start scan: paths present, and how many are still settling. */
  private seen: Set<string> | undefined = new Set();
  private initialLeft = 0;
  private scanDone = false;
  private rootExisted = false;
  private startDone: () => void = () => undefined;

  constructor(private readonly options: WatchOptions) {
    this.root = path.resolve(options.path);
    this.rootPrefix = this.root.endsWith(path.sep) ? this.root : this.root + path.sep;
    const nocase = options.nocase ?? (process.platform === 'darwin' || process.platform === 'win32');
    this.globs = compileGlobs(options.globs && options.globs.length > 0 ? options.globs : ['**'], { nocase });
    this.ignore = (options.ignore ?? []).map((p) => path.resolve(p));
    this.maxPending = Math.max(1, options.maxPending ?? DEFAULT_MAX_PENDING);
  }

  async start(): Promise<void> {
    const started = new Promise<void>((resolve) => (this.startDone = resolve));
    const stat = await fsp.stat(this.root).catch(() => undefined);
    this.rootExisted = stat !== undefined;
    this.watchDir = stat?.isDirectory() === true ? this.root : path.dirname(this.root);
    if (this.closed) return;
    if (this.watchDir !== this.root && !(await isDirectory(this.watchDir))) {
      this.report(new KowalskiError('KW_ERR_TRIGGER_INVALID', `watch path ${this.root} does not exist, and neither does its folder ${this.watchDir}: nothing is watched until the trigger is restarted`), this.root);
      this.markScanDone();
      return started;
    }
    if (this.closed) return;
    const fsw = chokidarWatch(this.watchDir, {
      ignoreInitial: false,
      alwaysStat: true,
      ignored: (p, stats) => !this.admits(p, stats === undefined ? undefined : stats.isDirectory()),
    });
    this.fsw = fsw;
    fsw.on('add', (p, stats) => this.onFileEvent(p, stats));
    fsw.on('change', (p, stats) => this.onFileEvent(p, stats));
    fsw.on('unlink', (p) => this.onUnlink(p));
    fsw.on('error', (err) => this.report(err, this.root));
    fsw.once('ready', () => this.markScanDone());
    return started;
  }

  async close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closed = true;
    this.abort.abort();
    for (const entry of this.entries.values()) entry.timer?.();
    for (const cancel of this.goneTimers.values()) cancel();
    this.entries.clear();
    this.hashQueue.clear();
    this.goneTimers.clear();
    this.flushOverflow();
    this.startDone();
    const fsw = this.fsw;
    this.closing = (async () => {
      await fsw?.close();
      await Promise.allSettled([...this.jobs]);
    })();
    return this.closing;
  }

  /** Does this path belong to the watch? `isDir` undefined: not known yet. */
  private admits(abs: string, isDir: boolean | undefined): boolean {
    const p = path.resolve(abs);
    if (this.ignore.some((ig) => p === ig || p.startsWith(ig.endsWith(path.sep) ? ig : ig + path.sep))) return false;
    if (p === this.root || p === this.watchDir) return true;
    if (!p.startsWith(this.rootPrefix)) return false;
    const rel = p.slice(this.rootPrefix.length).split(path.sep).join('/');
    if (isDir === true) return this.globs.mayContain(rel);
    const fileOk = !isScratchName(path.basename(p)) && this.globs.matches(rel);
    return isDir === false ? fileOk : fileOk || this.globs.mayContain(rel);
  }

  private onFileEvent(abs: string, stats: fs.Stats | undefined): void {
    if (this.closed) return;
    const p = path.resolve(abs);
    if (p === this.watchDir && p !== this.root) return;
    if (!this.admits(p, false)) return;
    const gone = this.goneTimers.get(p);
    if (gone !== undefined) {
      gone();
      this.goneTimers.delete(p);
    }
    const sig = signature(stats);
    const entry = this.entries.get(p);
    if (entry !== undefined) {
      entry.sig = sig;
      if (entry.hashing) entry.dirty = true;
      else this.arm(p, entry);
      return;
    }
    const fresh: Entry = { sig, timer: undefined, hashing: false, dirty: false, initial: !this.scanDone };
    this.entries.set(p, fresh);
    this.seen?.add(p);
    if (!fresh.initial) return this.arm(p, fresh);
    // Found by the start scan: unchanged for a debounce already, it is compared right away;
    // written just now, it waits like any change (and leaves the scan if it keeps changing).
    this.initialLeft++;
    if (stats !== undefined && this.options.clock.now() - stats.mtimeMs >= this.options.debounceMs) this.enqueueHash(p);
    else this.arm(p, fresh, true);
  }

  private onUnlink(abs: string): void {
    if (this.closed) return;
    const p = path.resolve(abs);
    const entry = this.entries.get(p);
    if (entry !== undefined) this.finish(p, entry);
    this.goneTimers.get(p)?.();
    // Forget it only if it stays gone: an editor's save may delete and re-create it.
    this.goneTimers.set(p, this.after(this.options.debounceMs, () => {
      this.goneTimers.delete(p);
      this.queue.delete(p);
      this.guard(() => this.options.hashes.remove(p), p);
    }));
  }

  /** (Re)start the settle timer; a file still changing leaves the start scan. */
  private arm(p: string, entry: Entry, keepInitial = false): void {
    if (!keepInitial) this.leaveInitial(entry);
    this.hashQueue.delete(p);
    entry.timer?.();
    entry.hashing = false;
    entry.dirty = false;
    entry.timer = this.after(this.options.debounceMs, () => {
      entry.timer = undefined;
      this.enqueueHash(p);
    });
  }

  /** Call `fn` once `ms` have passed on the engine's clock; returns its cancel. */
  private after(ms: number, fn: () => void): () => void {
    return this.options.timers.at(this.options.clock.now() + ms, fn);
  }

  private enqueueHash(p: string): void {
    this.hashQueue.add(p);
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.jobs.size < HASH_CONCURRENCY && this.hashQueue.size > 0) {
      const p = this.hashQueue.values().next().value as string;
      this.hashQueue.delete(p);
      const entry = this.entries.get(p);
      if (entry === undefined) continue;
      entry.hashing = true;
      const job: Promise<void> = this.settle(p, entry).finally(() => {
        this.jobs.delete(job);
        this.pump();
        this.checkIdle();
      });
      this.jobs.add(job);
    }
  }

  /** Stat, hash, stat again: a change only if nothing moved in between. */
  private async settle(p: string, entry: Entry): Promise<void> {
    const current = (): boolean => !this.closed && this.entries.get(p) === entry;
    try {
      const before = await fsp.stat(p);
      if (!current()) return;
      if (!before.isFile()) return this.finish(p, entry);
      if (signature(before) !== entry.sig) {
        entry.sig = signature(before);
        return this.arm(p, entry);
      }
      const hash = await hashFile(p, this.abort.signal);
      const after = await fsp.stat(p);
      if (!current()) return;
      if (entry.dirty || signature(after) !== signature(before)) {
        entry.sig = signature(after);
        return this.arm(p, entry);
      }
      this.settled({ path: p, hash, size: after.size, kind: 'changed' });
      this.finish(p, entry);
    } catch (err) {
      if (!current()) return;
      this.finish(p, entry);
      // Gone before it settled (a temporary file, a quick delete): its unlink event follows.
      if (!isMissing(err)) this.report(err, p);
    }
  }

  private finish(p: string, entry: Entry): void {
    entry.timer?.();
    entry.timer = undefined;
    this.hashQueue.delete(p);
    this.leaveInitial(entry);
    if (this.entries.get(p) === entry) this.entries.delete(p);
  }

  private leaveInitial(entry: Entry): void {
    if (!entry.initial) return;
    entry.initial = false;
    this.initialLeft--;
    this.checkIdle();
  }

  /** A settled file: queue it if its content differs from what was last fired (or is about to be). */
  private settled(change: WatchChange): void {
    const p = change.path;
    const taken = this.inFlight?.path === p ? this.inFlight.hash : this.guard(() => this.options.hashes.get(p), p);
    const queued = this.queue.get(p);
    if (queued !== undefined) {
      if (change.hash === taken) this.queue.delete(p);
      else this.queue.set(p, { ...queued, hash: change.hash, size: change.size });
      return;
    }
    if (change.hash === taken) return;
    const out: WatchChange = { ...change, kind: taken === undefined ? 'added' : 'changed' };
    if (this.queue.size >= this.maxPending) return this.drop(out);
    this.queue.set(p, out);
    void this.drain();
  }

  private drop(change: WatchChange): void {
    this.guard(() => this.options.hashes.set(change.path, change.hash), change.path);
    this.dropped++;
    if (this.examples.length < MAX_OVERFLOW_EXAMPLES) this.examples.push(change.path);
    this.overflowTimer ??= this.after(OVERFLOW_REPORT_MS, () => this.flushOverflow());
  }

  private flushOverflow(): void {
    this.overflowTimer?.();
    this.overflowTimer = undefined;
    if (this.dropped === 0) return;
    const info: WatchOverflow = { dropped: this.dropped, examples: this.examples };
    this.dropped = 0;
    this.examples = [];
    this.guard(() => this.options.onOverflow(info), this.root);
  }

  /** Deliver queued changes one at a time, each after the previous one was taken. */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (!this.closed && this.queue.size > 0) {
        const change = this.queue.values().next().value as WatchChange;
        this.queue.delete(change.path);
        this.inFlight = change;
        try {
          await this.options.onChange(change);
          this.options.hashes.set(change.path, change.hash);
        } catch (err) {
          this.report(err, change.path);
        } finally {
          this.inFlight = undefined;
        }
        // Let file events and hashing run between deliveries.
        await nextTurn();
      }
    } finally {
      this.draining = false;
    }
  }

  private markScanDone(): void {
    this.scanDone = true;
    this.checkIdle();
  }

  private checkIdle(): void {
    if (this.entries.size === 0 && this.dropped > 0) this.flushOverflow();
    if (!this.scanDone || this.initialLeft > 0 || this.seen === undefined || this.closed) return;
    const seen = this.seen;
    this.seen = undefined;
    // A missing root may be an unmounted drive, not every file deleted: forget nothing then.
    if (this.rootExisted) {
      const known = this.guard(() => this.options.hashes.paths(), this.root) ?? [];
      for (const p of known) if (!seen.has(p)) this.guard(() => this.options.hashes.remove(p), p);
    }
    this.startDone();
  }

  /** Run a caller's function; a throw goes to onError instead of into the watcher. */
  private guard<T>(fn: () => T, where: string): T | undefined {
    try {
      return fn();
    } catch (err) {
      this.report(err, where);
      return undefined;
    }
  }

  report(err: unknown, where: string): void {
    const error = err instanceof Error ? err : new Error(String(err));
    const onError = this.options.onError;
    if (onError === undefined) {
      process.emitWarning(`watch trigger on ${this.root}: ${where}: ${error.message}`);
      return;
    }
    try {
      onError(error, where);
    } catch {
      // A failing error listener must not stop the watcher.
    }
  }
}

function signature(stats: fs.Stats | undefined): string | undefined {
  return stats === undefined ? undefined : `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
}

async function hashFile(p: string, signal: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(p, { signal })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function isDirectory(p: string): Promise<boolean> {
  return (await fsp.stat(p).catch(() => undefined))?.isDirectory() === true;
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
