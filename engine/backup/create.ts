/**
 * `kowalski backup`: the data folder into one archive while kowalski may be running.
 * The databases go through SQLite's online backup API from a read-only connection (no
 * engine lock taken), copied in one step, so the copy is one consistent snapshot: every
 * run committed before the backup began is in it. The files (runs, hordes, team, vault,
 * config) are read after the snapshot, so every run in it finds its folder. The archive is
 * written beside its final name and renamed into place once complete and on the disk.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { KowalskiError, NO_PROGRESS, messageOf } from '../../core/index.js';
import { systemClock } from '../base/clock.js';
import type { Clock } from '../base/clock.js';
import type { Progress } from '../../contract/progress.js';
import { dataPaths } from '../base/data-dir.js';
import { BACKUP_FORMAT, BACKUP_VERSION, MANIFEST_ENTRY } from './manifest.js';
import type { BackupFile, BackupManifest } from './manifest.js';
import { SECRET_FILES, SECRET_FOLDERS } from '../secrets/secret-list.js';
import { describeTarget } from '../store/pg/sync-pg.js';
import { redactConfig, sharedStoreOf } from './secrets.js';
import { ZipOut } from './zip-out.js';

export interface BackupOptions {
  /** Include the API token, config.toml's secret keys and the `secrets/` folder (MCP sign-ins) (default false: see secrets.ts). */
  withSecrets?: boolean;
  clock?: Clock;
  /** Told of each file of the data folder's folders copied (phase `files`, total known once they are listed); default none. */
  onProgress?: Progress;
}

export interface BackupResult {
  file: string;
  bytes: number;
  manifest: BackupManifest;
}

/** The folders of the data folder copied whole (`plugins/` without the node_modules folders its plugins can fetch again). */
const FOLDERS = ['hordes', 'team', 'vault', 'runs', 'plugins'] as const;
/** Folder names left out wherever they are under `plugins/`, each listed in the manifest's `skipped`. */
const PLUGIN_SKIPS: ReadonlySet<string> = new Set(['node_modules']);
/** Pages copied per backup step: all of them, so the copy is one read transaction (a step interleaved with another connection's write would start over). */
const ALL_PAGES = 0x7fff_ffff;

/** A consistent copy of the SQLite database `from` at `to`; resolves with the runs it holds (when it has a runs table). */
async function snapshot(from: string, to: string): Promise<number> {
  const src = new Database(from, { readonly: true, fileMustExist: true });
  try {
    src.pragma('busy_timeout = 5000');
    await src.backup(to, { progress: () => ALL_PAGES });
  } finally {
    src.close();
  }
  const copy = new Database(to, { readonly: true, fileMustExist: true });
  try {
    const hasRuns = copy.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'").get() !== undefined;
    return hasRuns ? (copy.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n : 0;
  } finally {
    copy.close();
  }
}

interface Found {
  /** [name in the archive, absolute path] */
  files: [string, string][];
  dirs: string[];
  skipped: BackupManifest['skipped'];
}

/** Every folder and regular file under `dir`; links and special files are skipped (and listed). */
function walk(dir: string, rel: string, found: Found): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  found.dirs.push(rel);
  for (const name of names) {
    const abs = path.join(dir, name);
    const relPath = `${rel}/${name}`;
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(abs);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // removed meanwhile
      throw err;
    }
    if (stat.isDirectory() && relPath.startsWith('plugins/') && PLUGIN_SKIPS.has(name)) found.skipped.push({ path: relPath, why: `a plugin's ${name} (install its packages again after restoring)` });
    else if (stat.isDirectory()) walk(abs, relPath, found);
    else if (stat.isFile()) found.files.push([relPath, abs]);
    else found.skipped.push({ path: relPath, why: stat.isSymbolicLink() ? 'a symbolic link' : 'not a regular file' });
  }
}

export async function createBackup(dataDir: string, file: string, options: BackupOptions = {}): Promise<BackupResult> {
  const paths = dataPaths(path.resolve(dataDir));
  const out = path.resolve(file);
  if (!fs.existsSync(paths.database)) throw new KowalskiError('KW_ERR_BACKUP_SOURCE', `${paths.dataDir} holds no kowalski.sqlite: there is nothing to back up (is KOWALSKI_HOME right?)`, { where: { file: paths.database } });
  if (fs.existsSync(out)) throw new KowalskiError('KW_ERR_BACKUP_TARGET', `${out} exists already: choose a new file name (a backup never overwrites)`, { where: { file: out } });
  if (!fs.existsSync(path.dirname(out))) throw new KowalskiError('KW_ERR_BACKUP_TARGET', `the folder ${path.dirname(out)} does not exist`, { where: { file: out } });
  const withSecrets = options.withSecrets === true;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'kowalski-backup-'));
  const partial = `${out}.partial-${process.pid}`;
  let zip: ZipOut | undefined;
  try {
    const createdAt = (options.clock ?? systemClock).now();
    const runs = await snapshot(paths.database, path.join(scratch, 'kowalski.sqlite'));
    if (fs.existsSync(paths.vectors)) await snapshot(paths.vectors, path.join(scratch, 'vectors.sqlite'));

    const files: BackupFile[] = [];
    const skipped: BackupManifest['skipped'] = [];
    const found: Found = { files: [], dirs: [], skipped };
    let redacted: string[] = [];
    zip = new ZipOut(partial);
    const add = (entry: BackupFile | undefined): void => void (entry !== undefined && files.push(entry));
    add(zip.addFile('kowalski.sqlite', path.join(scratch, 'kowalski.sqlite')));
    add(zip.addFile('vectors.sqlite', path.join(scratch, 'vectors.sqlite')));
    if (fs.existsSync(paths.config)) {
      const text = fs.readFileSync(paths.config, 'utf8');
      const shared = sharedStoreOf(text);
      // A node of a Postgres store: what it shares is not in its data folder, so not in this archive; the operator is told where it is.
      if (shared !== undefined) {
        skipped.push({
          path: '[store]',
          why: `this data folder is a node of the Postgres store ${describeTarget(shared.url)}: its runs, chats, traces, vault audit and adapters' records are in that database${shared.files === undefined ? '' : `, its run folders and vault notes under ${shared.files}`}, none of which is in this archive. Back them up there (pg_dump, and a copy of that folder), or copy the store into a data folder first (kowalski store copy --from <url> --to sqlite) and back that up`,
        });
      }
      if (withSecrets) {
        add(zip.addBytes('config.toml', Buffer.from(text)));
      } else {
        try {
          const clean = redactConfig(text);
          redacted = clean.redacted;
          add(zip.addBytes('config.toml', Buffer.from(clean.text)));
        } catch (err) {
          skipped.push({ path: 'config.toml', why: `it does not parse as TOML (${messageOf(err).split('\n')[0]}), so its secrets cannot be left out: back up with --with-secrets to keep it` });
        }
      }
    }
    for (const name of SECRET_FILES) {
      if (withSecrets) add(zip.addFile(name, path.join(paths.dataDir, name)));
      else if (fs.existsSync(path.join(paths.dataDir, name))) redacted.push(name);
    }
    for (const folder of SECRET_FOLDERS) {
      if (withSecrets) walk(path.join(paths.dataDir, folder), folder, found);
      else if (fs.existsSync(path.join(paths.dataDir, folder))) redacted.push(`${folder}/`);
    }
    for (const folder of FOLDERS) walk(path.join(paths.dataDir, folder), folder, found);
    const onProgress = options.onProgress ?? NO_PROGRESS;
    for (const [i, [name, abs]] of found.files.entries()) {
      add(zip.addFile(name, abs));
      onProgress({ phase: 'files', done: i + 1, total: found.files.length, item: name });
    }

    const manifest: BackupManifest = { format: BACKUP_FORMAT, version: BACKUP_VERSION, createdAt, source: paths.dataDir, withSecrets, runs, files, dirs: found.dirs, redacted, skipped };
    zip.addBytes(MANIFEST_ENTRY, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
    zip.finish();
    zip = undefined;
    fs.renameSync(partial, out);
    const dirFd = fs.openSync(path.dirname(out), 'r');
    try {
      fs.fsyncSync(dirFd);
    } finally {
      fs.closeSync(dirFd);
    }
    return { file: out, bytes: fs.statSync(out).size, manifest };
  } catch (err) {
    zip?.abandon();
    fs.rmSync(partial, { force: true });
    throw err;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
