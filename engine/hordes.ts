/** The hordes a data directory sees (built-in and the user's), and finding one by id or folder — with or without an engine. */
import path from 'node:path';
import type { HordeDef } from '../core/index.js';
import { builtinStepKinds } from '../steps/index.js';
import { dataPaths } from './base/data-dir.js';
import { listHordes, requireHorde, resolveHordeRef } from './horde/index.js';
import type { Catalog, CatalogEntry } from './horde/index.js';
import { packageRoot } from './base/modules.js';

export interface HordeSources {
  dataDir: string;
  /** Default: the package's `hordes/`. */
  builtinDir?: string;
  /** Step kinds a horde may use (default: the built-in ones). */
  knownKinds?: ReadonlySet<string>;
}

/** The step kinds a horde may use when nothing else is registered. */
export function builtinKindNames(): ReadonlySet<string> {
  return new Set(builtinStepKinds().keys());
}

function kindsOf(sources: HordeSources): ReadonlySet<string> {
  return sources.knownKinds ?? builtinKindNames();
}

export function catalogOf(sources: HordeSources): Promise<Catalog> {
  return listHordes({
    builtinDir: sources.builtinDir ?? path.join(packageRoot(import.meta.url), 'hordes'),
    userDir: dataPaths(sources.dataDir).hordes,
    knownKinds: kindsOf(sources),
  });
}

/** A horde by id or folder; throws KW_ERR_HORDE_NOT_FOUND / KW_ERR_HORDE_INVALID. */
export async function findHorde(ref: string, sources: HordeSources): Promise<{ horde: HordeDef; entry: CatalogEntry }> {
  const entry = await resolveHordeRef(ref, await catalogOf(sources), { knownKinds: kindsOf(sources) });
  return { horde: requireHorde(entry), entry };
}
