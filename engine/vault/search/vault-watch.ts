/**
 * The watch on the vault folder that keeps the index current for edits made outside
 * kowalski (an editor, a sync tool): chokidar reports each `.md` file added, changed or
 * removed (no symlink followed, no dot-folder entered); the paths are gathered and handed
 * over once the folder has been quiet for the debounce (or the longest wait has passed
 * under a steady stream of writes), through the engine's Timers. A folder added or
 * removed asks for a rescan (a move of a whole folder is one event, not one per file).
 */
import path from 'node:path';
import type { FSWatcher } from 'chokidar';
import type { Clock } from '../../base/clock.js';
import type { Timers } from '../../base/timers.js';
import { isNoteName } from './note-path.js';

export interface VaultWatchOptions {
  root: string;
  clock: Clock;
  timers: Timers;
  /** Quiet time before the gathered changes are handed over, ms. */
  debounceMs: number;
  /** The longest a change waits while writes keep coming, ms. */
  maxWaitMs: number;
  /** The notes that changed (relative paths), and whether a folder came or went (rescan). */
  onChanges(paths: string[], rescan: boolean): void;
  onError(err: Error): void;
}

export interface VaultWatch {
  close(): Promise<void>;
}

/** Folders below the vault the watch enters at most. */
const MAX_DEPTH = 32;

/** Start watching; resolves once chokidar has read the folder (changes from then on are reported). */
export async function watchVault(options: VaultWatchOptions): Promise<VaultWatch> {
  const { root, clock, timers } = options;
  const { watch } = await import('chokidar');
  const pending = new Set<string>();
  let rescan = false;
  let firstAt: number | null = null;
  let cancel: (() => void) | undefined;
  let closed = false;

  const flush = (): void => {
    cancel = undefined;
    firstAt = null;
    if (closed) return;
    const paths = [...pending];
    const again = rescan;
    pending.clear();
    rescan = false;
    options.onChanges(paths, again);
  };
  const schedule = (): void => {
    const now = clock.now();
    firstAt ??= now;
    cancel?.();
    cancel = timers.at(Math.min(now + options.debounceMs, firstAt + options.maxWaitMs), flush);
  };
  const relOf = (abs: string): string => path.relative(root, abs).split(path.sep).join('/');

  const watcher: FSWatcher = watch(root, {
    ignoreInitial: true,
    followSymlinks: false,
    depth: MAX_DEPTH,
    ignored: (p) => p !== root && path.basename(p).startsWith('.'),
  });
  watcher.on('all', (event, abs) => {
    const rel = relOf(abs);
    if (event === 'addDir' || event === 'unlinkDir') {
      if (rel === '') return;
      rescan = true;
    } else if (isNoteName(rel)) {
      pending.add(rel);
    } else {
      return;
    }
    schedule();
  });
  watcher.on('error', (err) => options.onError(err instanceof Error ? err : new Error(String(err))));
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    async close() {
      closed = true;
      cancel?.();
      await watcher.close();
    },
  };
}
