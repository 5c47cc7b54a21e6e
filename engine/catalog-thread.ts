/**
 * The catalog read in a worker thread: loading and validating every horde folder (a file
 * may hold 1 MiB of TOML with thousands of problems) never holds up the server's event
 * loop. What comes back is the same plain Catalog that `catalogOf` returns in-process.
 */
import type { Catalog } from './horde/index.js';
import { jobThread } from './threads/index.js';
import type { ModuleToRun } from './base/modules.js';

/** What the thread is asked: the folders to search and the step kinds a horde may use. */
export interface CatalogJob {
  builtinDir?: string;
  userDir?: string;
  knownKinds: string[];
}

export interface CatalogThread {
  read(job: CatalogJob): Promise<Catalog>;
  close(): Promise<void>;
  /** The thread's id while one runs. */
  threadId(): number | undefined;
}

/**
 * Started at the first read (the thread costs nothing until then), ended after `idleMs` without
 * one (default: jobThread's). `module`: catalog.worker as the engine's own code has it.
 */
export function catalogThread(idleMs?: number, module?: ModuleToRun): CatalogThread {
  const thread = jobThread<CatalogJob, Catalog>(import.meta.url, 'catalog.worker', idleMs, module);
  return { read: (job) => thread.run(job), close: () => thread.close(), threadId: () => thread.threadId() };
}
