/**
 * The adapters' check: adapters run inside `kowalski serve`, so their state is asked of the
 * server that owns the data folder (GET /api/adapters, with the folder's token). One line per
 * adapter in error, with its last error and the fix; one line for all the others.
 */
import type { AdapterStatus, EngineConfig } from '../../engine/index.js';
import { findServer } from '../commands/remote.js';
import { fail, ok, reason, warn } from './check.js';
import type { Check } from './check.js';

export async function checkAdapters(config: EngineConfig, dir: string): Promise<Check[]> {
  if (config.adapters.length === 0) return [ok('adapters', 'none configured')];
  const on = config.adapters.filter((a) => a.enabled).length;
  const configured = `${config.adapters.length} configured, ${on} switched on in config.toml`;
  let adapters: AdapterStatus[];
  try {
    const lookup = await findServer(dir);
    if (lookup.kind === 'none') return [ok('adapters', `${configured}; they run in kowalski serve, which is not running for ${dir}`)];
    if (lookup.kind === 'silent') return [warn('adapters', `${configured}; the server of ${dir} (${lookup.url}, process ${lookup.pid}) does not answer: ${lookup.why}`, 'restart it: kowalski serve')];
    adapters = (await lookup.api.request<{ adapters: AdapterStatus[] }>('GET', 'api/adapters')).adapters;
  } catch (err) {
    return [warn('adapters', `${configured}; their state could not be asked of the server: ${reason(err)}`, 'kowalski adapters (as the same user, with the same data folder)')];
  }
  const broken = adapters.filter((a) => a.state === 'error');
  const lines = broken.map((a) => fail(`adapter ${a.name}`,
    `the ${a.type} adapter is in error${a.lastError === null ? '' : `: ${a.lastError}`}${a.lastErrorAt === null ? '' : ` (at ${new Date(a.lastErrorAt).toISOString()})`}; ${a.errorCount} error${a.errorCount === 1 ? '' : 's'} so far`,
    `correct [adapters.${a.name}] in config.toml (docs/adapters.md), then start it again: kowalski adapters enable ${a.name}`));
  const running = adapters.filter((a) => a.state === 'running').map((a) => a.name);
  if (broken.length < adapters.length) {
    lines.unshift(ok('adapters', `${running.length === 0 ? 'none running' : `running: ${running.join(', ')}`}${broken.length === 0 ? '' : `; ${broken.length} in error (below)`}`));
  }
  return lines;
}
