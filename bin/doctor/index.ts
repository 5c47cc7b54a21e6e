/** `kowalski doctor`'s checks, in the order they are printed (docs/doctor.md). */
import fs from 'node:fs';
import { dataPaths, loadConfig, unknownConfigKeys } from '../../engine/index.js';
import type { EngineConfig } from '../../engine/index.js';
import { fail, ok, reason, warn } from './check.js';
import type { Check } from './check.js';
import { checkDataDir, checkDatabase, checkDisk, checkNode, checkPort } from './local.js';
import { checkModel } from './model.js';
import { checkPluginSandbox } from './sandbox.js';
import { checkMcp, checkWebSearch } from './services.js';
import { checkAdapters } from './adapters.js';

export type { Check, CheckStatus } from './check.js';
export { checkDisk, checkNode } from './local.js';
export { checkPluginSandbox } from './sandbox.js';

/** A warning for each key of config.toml kowalski does not read (a misspelt key silently means its default). */
function checkConfigKeys(file: string): Check[] {
  return unknownConfigKeys(fs.readFileSync(file, 'utf8'), file).map((u) => warn(
    'config keys',
    `${u.file}${u.line === undefined ? '' : `:${u.line}`}: ${u.key} is not a key kowalski reads, so it is ignored${u.suggestion === undefined ? '' : `; did you mean ${u.suggestion}?`}`,
    u.suggestion === undefined ? `remove it, or correct it (config.example.toml lists every key: \`kowalski init\` in an empty folder writes it)` : `rename it to ${u.suggestion} (or remove it)`,
  ));
}

/** The keys the app's Setup screen edits: only a bad one of these can be fixed there. */
const SETUP_KEYS = /^(model|providers|tools\.root|tools\.web_search|vault\.semantic)(\.|$)/;

function configFix(err: unknown, file: string): string {
  const key = (err as { where?: { key?: unknown } }).where?.key;
  const inSetup = typeof key === 'string' && SETUP_KEYS.test(key);
  return `correct ${file} (the message names the key)${inSetup ? ", or fix it in the app's Setup screen" : ''}`;
}

export async function runChecks(dir: string, opts: { host: string; port: number }): Promise<Check[]> {
  const checks: Check[] = [checkNode(), ...checkDataDir(dir), checkDatabase(dir), checkDisk(dir)];
  const file = dataPaths(dir).config;
  let config: EngineConfig | undefined;
  try {
    config = loadConfig(file);
    checks.push(ok('config', fs.existsSync(file) ? `${file} is valid` : `no ${file}: the defaults`));
    if (fs.existsSync(file)) checks.push(...checkConfigKeys(file));
  } catch (err) {
    checks.push(fail('config', reason(err), configFix(err, file)));
  }
  if (config !== undefined) checks.push(await checkModel(config), ...await checkMcp(config, dir), await checkWebSearch(config));
  if (config !== undefined) checks.push(...await checkAdapters(config, dir));
  checks.push(await checkPluginSandbox(), await checkPort(opts.host, opts.port, dir));
  return checks;
}
