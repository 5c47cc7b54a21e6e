/** Backup and restore of a data folder (docs/backup.md). */
export { createBackup } from './create.js';
export type { BackupOptions, BackupResult } from './create.js';
export { restoreBackup } from './restore.js';
export type { RestoreResult } from './restore.js';
export { MANIFEST_ENTRY } from './manifest.js';
export type { BackupFile, BackupManifest } from './manifest.js';
