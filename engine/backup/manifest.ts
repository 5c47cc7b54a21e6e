/**
 * The manifest of a backup archive, `kowalski-backup.json`: what the archive holds, with
 * the size and SHA-256 of every file. A restore trusts nothing else: every entry must be
 * listed here, and every listed file must be there with this checksum.
 */
import { KowalskiError, messageOf } from '../../core/index.js';

export const MANIFEST_ENTRY = 'kowalski-backup.json';
export const BACKUP_FORMAT = 'kowalski-backup';
export const BACKUP_VERSION = 1;

export interface BackupFile {
  /** `/`-separated, relative to the data folder. */
  path: string;
  size: number;
  /** Hex SHA-256 of the file's bytes. */
  sha256: string;
}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  /** When the database snapshot was taken (ms since the epoch). */
  createdAt: number;
  /** The data folder it was taken from. */
  source: string;
  withSecrets: boolean;
  /** Runs in the database snapshot. */
  runs: number;
  files: BackupFile[];
  /** Every folder under the copied folders, empty ones included (`/`-separated). */
  dirs: string[];
  /** Config keys left out because they are secrets (without --with-secrets). */
  redacted: string[];
  /** What was not copied, and why (symbolic links, special files, an unreadable config). */
  skipped: { path: string; why: string }[];
}

export function invalidBackup(file: string, message: string, cause?: unknown): KowalskiError {
  return new KowalskiError('KW_ERR_BACKUP_INVALID', `${file} cannot be restored: ${message}. Nothing was written to the target.`, { where: { file }, ...(cause === undefined ? {} : { cause }) });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The manifest's JSON, checked for shape (its entries' names are checked by the reader). */
export function parseManifest(archive: string, text: string): BackupManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw invalidBackup(archive, `its ${MANIFEST_ENTRY} is not JSON (${messageOf(err)})`, err);
  }
  if (!isRecord(raw) || raw.format !== BACKUP_FORMAT) throw invalidBackup(archive, `its ${MANIFEST_ENTRY} is not a kowalski backup manifest`);
  if (raw.version !== BACKUP_VERSION) throw invalidBackup(archive, `it is a backup of format version ${JSON.stringify(raw.version)}; this kowalski reads version ${BACKUP_VERSION}`);
  const files = raw.files;
  if (!Array.isArray(files)) throw invalidBackup(archive, `its ${MANIFEST_ENTRY} has no files list`);
  for (const [i, f] of files.entries()) {
    if (!isRecord(f) || typeof f.path !== 'string' || typeof f.size !== 'number' || !Number.isSafeInteger(f.size) || f.size < 0 || typeof f.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(f.sha256)) {
      throw invalidBackup(archive, `${MANIFEST_ENTRY}: files[${i}] is not {path, size, sha256}`);
    }
  }
  if (!Array.isArray(raw.dirs) || raw.dirs.some((d) => typeof d !== 'string')) throw invalidBackup(archive, `its ${MANIFEST_ENTRY} has no dirs list`);
  return raw as unknown as BackupManifest;
}
