/**
 * config.toml edited by hand while the server runs is read again, as Setup's saves are: a
 * change (debounced, so an editor's write-then-rename is one) calls `reload`. A file that no
 * longer loads keeps the settings read before in effect and says why, naming the file and line.
 * The folder is watched, not the file, so a file replaced by a rename is still seen.
 */
import path from 'node:path';
import type { FSWatcher } from 'chokidar';
import { messageOf } from '../../core/errors.js';
import type { Clock } from '../base/clock.js';
import type { Timers } from '../base/timers.js';

export interface ConfigWatchDeps {
  /** Re-reads the file and applies it unless the settings in effect were read from it as it is now (a Setup save reloads at once): true when it read it; throws when it does not load. */
  reload(): boolean;
  reloaded(): void;
  warn(message: string): void;
  clock: Clock;
  timers: Timers;
  debounceMs: number;
}

export interface ConfigWatch {
  close(): Promise<void>;
}

/** Watches `file`; resolves once the watch is ready. */
export async function watchConfig(file: string, deps: ConfigWatchDeps): Promise<ConfigWatch> {
  const dir = path.dirname(path.resolve(file));
  const name = path.basename(file);
  const { watch } = await import('chokidar');
  const watcher: FSWatcher = watch(dir, { ignoreInitial: true, depth: 0, ignored: (p) => p !== dir && path.basename(p) !== name });
  let cancel: (() => void) | undefined;
  watcher.on('all', (_event, changed) => {
    if (path.basename(changed) !== name) return;
    cancel?.();
    cancel = deps.timers.at(deps.clock.now() + deps.debounceMs, () => {
      cancel = undefined;
      try {
        if (deps.reload()) deps.reloaded();
      } catch (err) {
        deps.warn(`${name} changed but does not load, so the settings read before stay in effect: ${messageOf(err)}`);
      }
    });
  });
  watcher.on('error', (err) => deps.warn(`watching ${file}: ${messageOf(err)}`));
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    async close() {
      cancel?.();
      await watcher.close();
    },
  };
}
