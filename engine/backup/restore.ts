/**
 * `kowalski restore <file> --to <dir>`: everything is checked before anything is placed
 * at `<dir>`. Every entry name must stay inside the target (zip-slip) and be listed in the
 * manifest, every listed file must be there with its size, CRC-32 and SHA-256, and each
 * database must pass `PRAGMA integrity_check`. The files are unpacked into a fresh folder
 * beside `<dir>`, which is renamed to `<dir>` only once all of that holds; on any failure
 * it is removed and `<dir>` is left as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { KowalskiError, NO_PROGRESS, messageOf } from '../../core/index.js';
import type { Progress } from '../../contract/progress.js';
import { MIGRATIONS } from '../schema/index.js';
import { entryTarget, layoutProblem, unsafeEntryName } from './entry-path.js';
import { MANIFEST_ENTRY, invalidBackup, parseManifest } from './manifest.js';
import type { BackupManifest } from './manifest.js';
import { ZipIn } from './zip-in.js';
import type { ArchiveEntry } from './zip-in.js';

export interface RestoreResult {
  to: string;
  manifest: BackupManifest;
}

/** The manifest is read into memory: a bigger one is not ours. */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;
const DATABASES = ['kowalski.sqlite', 'vectors.sqlite'];

const targetError = (to: string, message: string, cause?: unknown): KowalskiError =>
  new KowalskiError('KW_ERR_BACKUP_TARGET', `--to ${to}: ${message}`, { where: { file: to }, ...(cause === undefined ? {} : { cause }) });

function lstatOf(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch (err) {
    if (['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw err;
  }
}

/**
 * The folder to restore into, its existing part resolved (a link on the way is followed,
 * so the final rename stays on one file system): refused when `--to` is itself a link, a
 * file, a folder that is not empty, or below a file or a link that leads nowhere.
 */
function resolveTarget(to: string): string {
  const own = lstatOf(to);
  if (own?.isSymbolicLink() === true) throw targetError(to, 'is a symbolic link: name the folder itself, not a link to it');
  if (own !== undefined && !own.isDirectory()) throw targetError(to, 'is a file: restore into a new or empty folder');
  if (own !== undefined) {
    const names = fs.readdirSync(to);
    if (names.length > 0) throw targetError(to, `is not empty (it holds ${names.length} entries): restore into a new or empty folder, never over a data folder`);
  }
  const rest = [path.basename(to)];
  let dir = path.dirname(to);
  while (lstatOf(dir) === undefined && path.dirname(dir) !== dir) {
    rest.unshift(path.basename(dir));
    dir = path.dirname(dir);
  }
  let real: string;
  try {
    real = fs.realpathSync(dir);
  } catch (err) {
    throw targetError(to, `${dir} is a link that leads nowhere (${(err as NodeJS.ErrnoException).code ?? 'error'})`, err);
  }
  if (!fs.statSync(real).isDirectory()) throw targetError(to, `${dir} is a file, not a folder`);
  return path.join(real, ...rest);
}

/** An error of the file system while placing the files, as a coded refusal: the archive's fault (a name too long, a file where a folder is needed) or the target's. */
function placingError(archive: string, to: string, err: unknown): unknown {
  if (err instanceof KowalskiError) return err;
  const e = err as NodeJS.ErrnoException;
  const at = e.path === undefined ? '' : ` at ${e.path}`;
  switch (e.code) {
    case 'ENAMETOOLONG':
      return invalidBackup(archive, `a name is too long for this file system${at}`, err);
    case 'ENOTDIR': case 'EEXIST': case 'EISDIR':
      return invalidBackup(archive, `a file stands where a folder is needed, or a folder where a file is${at}`, err);
    case undefined:
      return err;
    default:
      return targetError(to, `cannot be written${at} (${e.code}: ${e.message})`, err);
  }
}

/** The archive's entries by name, each checked for a safe name, with the manifest apart. */
function checkEntries(file: string, entries: readonly ArchiveEntry[]): { byName: Map<string, ArchiveEntry>; manifest: ArchiveEntry } {
  const byName = new Map<string, ArchiveEntry>();
  for (const entry of entries) {
    const unsafe = unsafeEntryName(entry.name);
    if (unsafe !== undefined) throw invalidBackup(file, `entry ${JSON.stringify(entry.name)} is unsafe: ${unsafe}`);
    if (byName.has(entry.name)) throw invalidBackup(file, `entry ${JSON.stringify(entry.name)} appears twice`);
    byName.set(entry.name, entry);
  }
  const manifest = byName.get(MANIFEST_ENTRY);
  if (manifest === undefined) throw invalidBackup(file, `it holds no ${MANIFEST_ENTRY}: not a kowalski backup`);
  if (manifest.size > MAX_MANIFEST_BYTES) throw invalidBackup(file, `its ${MANIFEST_ENTRY} declares ${manifest.size} bytes`);
  byName.delete(MANIFEST_ENTRY);
  return { byName, manifest };
}

/** The manifest and the archive list the same files, once each, of the same sizes, with names this file system can hold and no file where a folder is needed. */
function matchManifest(file: string, manifest: BackupManifest, byName: ReadonlyMap<string, ArchiveEntry>): void {
  const listed = new Set<string>();
  for (const f of manifest.files) {
    const unsafe = unsafeEntryName(f.path);
    if (unsafe !== undefined) throw invalidBackup(file, `${MANIFEST_ENTRY} lists ${JSON.stringify(f.path)}, which is unsafe: ${unsafe}`);
    const entry = byName.get(f.path);
    if (entry === undefined) throw invalidBackup(file, `${MANIFEST_ENTRY} lists ${JSON.stringify(f.path)}, which the archive does not hold`);
    if (entry.size !== f.size) throw invalidBackup(file, `entry ${JSON.stringify(f.path)} is ${entry.size} bytes, the manifest says ${f.size}`);
    listed.add(f.path);
  }
  for (const name of byName.keys()) if (!listed.has(name)) throw invalidBackup(file, `entry ${JSON.stringify(name)} is not listed in ${MANIFEST_ENTRY}`);
  if (!listed.has('kowalski.sqlite')) throw invalidBackup(file, 'it holds no kowalski.sqlite');
  const layout = layoutProblem(manifest.files.map((f) => f.path), manifest.dirs);
  if (layout !== undefined) throw invalidBackup(file, `${MANIFEST_ENTRY} ${layout}`);
}

function integrityCheck(file: string, db: string): void {
  let verdict: string;
  try {
    const conn = new Database(db, { fileMustExist: true });
    try {
      verdict = (conn.pragma('integrity_check', { simple: true }) as string | undefined) ?? 'no answer';
    } finally {
      conn.close();
    }
  } catch (err) {
    verdict = messageOf(err);
  }
  if (verdict !== 'ok') throw invalidBackup(file, `its ${path.basename(db)} fails PRAGMA integrity_check (${verdict})`);
}

/** The restored kowalski.sqlite holds kowalski's schema, of a version this build knows: not empty, not another program's database, not newer. */
function schemaCheck(file: string, db: string): void {
  const conn = new Database(db, { readonly: true, fileMustExist: true });
  let recorded: { version: number; name: string }[] = [];
  try {
    const has = conn.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined;
    if (has) recorded = conn.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as { version: number; name: string }[];
  } catch (err) {
    throw invalidBackup(file, `its kowalski.sqlite cannot be read (${messageOf(err)})`, err);
  } finally {
    conn.close();
  }
  if (recorded.length === 0) throw invalidBackup(file, "its kowalski.sqlite holds no kowalski schema (no migration recorded): an empty database, or another program's");
  const known = Math.max(...MIGRATIONS.map((m) => m.version));
  const newest = Math.max(...recorded.map((r) => r.version));
  if (newest > known) throw invalidBackup(file, `its kowalski.sqlite was written by a newer kowalski (schema ${newest}; this one knows ${known}): restore it with that kowalski or a newer one`);
  const ours = new Map(MIGRATIONS.map((m) => [m.version, m.name]));
  const foreign = recorded.find((r) => ours.get(r.version) !== r.name);
  if (foreign !== undefined || recorded[0]!.version !== 1) {
    const what = foreign === undefined ? 'does not record kowalski\'s first migration' : `records migration ${foreign.version} as "${foreign.name}", where kowalski's is "${ours.get(foreign.version) ?? '(none)'}"`;
    throw invalidBackup(file, `its kowalski.sqlite is not kowalski's schema: it ${what} (another program's database)`);
  }
}

function unpack(zip: ZipIn, manifest: BackupManifest, byName: ReadonlyMap<string, ArchiveEntry>, staging: string, onProgress: Progress): void {
  for (const dir of manifest.dirs) {
    const target = entryTarget(staging, dir);
    if (target === undefined) throw invalidBackup(zip.file, `${MANIFEST_ENTRY} lists the folder ${JSON.stringify(dir)}, which would land outside the target (${unsafeEntryName(dir) ?? 'unsafe'})`);
    fs.mkdirSync(target, { recursive: true, mode: 0o700 });
  }
  for (const [i, f] of manifest.files.entries()) {
    const target = entryTarget(staging, f.path);
    if (target === undefined) throw invalidBackup(zip.file, `entry ${JSON.stringify(f.path)} would land outside the target`);
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    const fd = fs.openSync(target, 'wx', 0o600);
    let sha: string;
    try {
      sha = zip.extract(byName.get(f.path)!, (chunk) => void fs.writeSync(fd, chunk));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (sha !== f.sha256) throw invalidBackup(zip.file, `${f.path}'s SHA-256 is ${sha}, the manifest says ${f.sha256} (damaged or altered)`);
    onProgress({ phase: 'files', done: i + 1, total: manifest.files.length, item: f.path });
  }
}

/** `onProgress` is told of each file unpacked and checked (phase `files`); default none. */
export function restoreBackup(file: string, to: string, onProgress: Progress = NO_PROGRESS): RestoreResult {
  const archive = path.resolve(file);
  if (!fs.existsSync(archive)) throw new KowalskiError('KW_ERR_USAGE', `${archive} does not exist`, { where: { file: archive } });
  const target = resolveTarget(path.resolve(to));
  const zip = new ZipIn(archive);
  let staging: string | undefined;
  try {
    const { byName, manifest: manifestEntry } = checkEntries(archive, zip.entries);
    const chunks: Uint8Array[] = [];
    zip.extract(manifestEntry, (c) => void chunks.push(c));
    const manifest = parseManifest(archive, Buffer.concat(chunks).toString('utf8'));
    matchManifest(archive, manifest, byName);

    try {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      staging = fs.mkdtempSync(path.join(path.dirname(target), `.${path.basename(target)}.restoring-`));
    } catch (err) {
      throw targetError(target, `its folder cannot be made (${(err as NodeJS.ErrnoException).code ?? 'error'}: ${messageOf(err)})`, err);
    }
    try {
      unpack(zip, manifest, byName, staging, onProgress);
    } catch (err) {
      throw placingError(archive, target, err);
    }
    for (const name of DATABASES) if (byName.has(name)) integrityCheck(archive, path.join(staging, name));
    schemaCheck(archive, path.join(staging, 'kowalski.sqlite'));

    try {
      if (fs.existsSync(target)) fs.rmdirSync(target); // checked empty above
      fs.renameSync(staging, target);
    } catch (err) {
      throw targetError(target, `the restored folder cannot be put in place (${(err as NodeJS.ErrnoException).code ?? 'error'}: ${messageOf(err)})`, err);
    }
    staging = undefined;
    return { to: target, manifest };
  } finally {
    zip.close();
    if (staging !== undefined) fs.rmSync(staging, { recursive: true, force: true });
  }
}
