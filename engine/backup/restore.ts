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
import { KowalskiError } from '../../core/index.js';
import { entryTarget, unsafeEntryName } from './entry-path.js';
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

function checkTarget(to: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(to);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw new KowalskiError('KW_ERR_BACKUP_TARGET', `--to ${to} is a file: restore into a new or empty folder`, { where: { file: to } });
    throw err;
  }
  if (names.length > 0) throw new KowalskiError('KW_ERR_BACKUP_TARGET', `--to ${to} is not empty (it holds ${names.length} entries): restore into a new or empty folder, never over a data folder`, { where: { file: to } });
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

/** The manifest and the archive list the same files, of the same sizes. */
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
    verdict = (err as Error).message;
  }
  if (verdict !== 'ok') throw invalidBackup(file, `its ${path.basename(db)} fails PRAGMA integrity_check (${verdict})`);
}

function unpack(zip: ZipIn, manifest: BackupManifest, byName: ReadonlyMap<string, ArchiveEntry>, staging: string): void {
  for (const dir of manifest.dirs) {
    const target = entryTarget(staging, dir);
    if (target === undefined) throw invalidBackup(zip.file, `${MANIFEST_ENTRY} lists the folder ${JSON.stringify(dir)}, which would land outside the target (${unsafeEntryName(dir) ?? 'unsafe'})`);
    fs.mkdirSync(target, { recursive: true, mode: 0o700 });
  }
  for (const f of manifest.files) {
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
  }
}

export function restoreBackup(file: string, to: string): RestoreResult {
  const archive = path.resolve(file);
  const target = path.resolve(to);
  if (!fs.existsSync(archive)) throw new KowalskiError('KW_ERR_USAGE', `${archive} does not exist`, { where: { file: archive } });
  checkTarget(target);
  const zip = new ZipIn(archive);
  let staging: string | undefined;
  try {
    const { byName, manifest: manifestEntry } = checkEntries(archive, zip.entries);
    const chunks: Uint8Array[] = [];
    zip.extract(manifestEntry, (c) => void chunks.push(c));
    const manifest = parseManifest(archive, Buffer.concat(chunks).toString('utf8'));
    matchManifest(archive, manifest, byName);

    fs.mkdirSync(path.dirname(target), { recursive: true });
    staging = fs.mkdtempSync(path.join(path.dirname(target), `.${path.basename(target)}.restoring-`));
    unpack(zip, manifest, byName, staging);
    for (const name of DATABASES) if (byName.has(name)) integrityCheck(archive, path.join(staging, name));

    if (fs.existsSync(target)) fs.rmdirSync(target); // checked empty above
    fs.renameSync(staging, target);
    staging = undefined;
    return { to: target, manifest };
  } finally {
    zip.close();
    if (staging !== undefined) fs.rmSync(staging, { recursive: true, force: true });
  }
}
