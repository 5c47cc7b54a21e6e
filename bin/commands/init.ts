/**
 * `kowalski init`: a new config.toml in the data folder, owner-only (0600), with every key
 * and what it does (the text of config.example.toml, rendered here from the catalog of keys,
 * so an installed package needs no copy of the file). An existing config.toml is never
 * touched: KW_ERR_CONFIG_EXISTS, exit 2.
 */
import fs from 'node:fs';
import { KowalskiError } from '../../core/index.js';
import { dataPaths, renderConfigExample } from '../../engine/index.js';
import { EXIT, dataDir } from './common.js';

function exists(file: string): KowalskiError {
  return new KowalskiError('KW_ERR_CONFIG_EXISTS', `${file} already exists; init writes only a new one and left it unchanged: edit it (config.example.toml lists every key), or move it aside and run init again`, { where: { file } });
}

export function initCommand(opts: { json?: boolean }): number {
  const dir = dataDir();
  const file = dataPaths(dir).config;
  const madeDir = !fs.existsSync(dir);
  if (!madeDir && !fs.statSync(dir).isDirectory()) {
    throw new KowalskiError('KW_ERR_USAGE', `the data folder ${dir} is a file, not a folder: move it aside, or point KOWALSKI_HOME at a folder`, { where: { file: dir } });
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    // `wx`: refused if the file appeared meanwhile (or is a link), never written over
    fs.writeFileSync(file, renderConfigExample(), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw exists(file);
    throw err;
  }
  fs.chmodSync(file, 0o600); // whatever the umask
  const next = 'set [model] default (or choose a model in the app: kowalski serve), then check with kowalski doctor';
  if (opts.json === true) process.stdout.write(`${JSON.stringify({ file, createdDataFolder: madeDir, next })}\n`);
  else process.stdout.write(`${madeDir ? `made the data folder ${dir} (owner-only, 0700)\n` : ''}wrote ${file} (owner-only, 0600): every key with what it does, each commented out, so it means the defaults\nnext: ${next}\n`);
  return EXIT.ok;
}
