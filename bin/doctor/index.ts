/** `kowalski doctor`'s checks, in the order they are printed (docs/doctor.md). */
import fs from 'node:fs';
import { dataPaths, loadConfig } from '../../engine/index.js';
import type { EngineConfig } from '../../engine/index.js';
import { fail, ok, reason } from './check.js';
import type { Check } from './check.js';
import { checkDataDir, checkDatabase, checkDisk, checkNode, checkPort } from './local.js';
import { checkModel } from './model.js';
import { checkPluginSandbox } from './sandbox.js';
import { checkMcp, checkWebSearch } from './services.js';

export type { Check, CheckStatus } from './check.js';
export { checkDisk, checkNode } from './local.js';
export { checkPluginSandbox } from './sandbox.js';

export async function runChecks(dir: string, opts: { host: string; port: number }): Promise<Check[]> {
  const checks: Check[] = [checkNode(), ...checkDataDir(dir), checkDatabase(dir), checkDisk(dir)];
  const file = dataPaths(dir).config;
  let config: EngineConfig | undefined;
  try {
    config = loadConfig(file);
    checks.push(ok('config', fs.existsSync(file) ? `${file} is valid` : `no ${file}: the defaults`));
  } catch (err) {
    checks.push(fail('config', reason(err), `correct ${file} (the message names the key), or fix it in the app's Setup screen`));
  }
  if (config !== undefined) checks.push(await checkModel(config), ...await checkMcp(config, dir), await checkWebSearch(config));
  checks.push(await checkPluginSandbox(), await checkPort(opts.host, opts.port));
  return checks;
}
