/** The catalog thread (catalog-thread.ts): reads the horde folders off the engine's event loop. */
import type { Catalog } from './horde/index.js';
import { listHordes } from './horde/index.js';
import { serveJobs } from './threads/index.js';
import type { CatalogJob } from './catalog-thread.js';

serveJobs<CatalogJob, Catalog>(async (job) => listHordes({
  ...(job.builtinDir === undefined ? {} : { builtinDir: job.builtinDir }),
  ...(job.userDir === undefined ? {} : { userDir: job.userDir }),
  knownKinds: new Set(job.knownKinds),
}));
