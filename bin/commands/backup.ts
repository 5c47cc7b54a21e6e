/**
 * `kowalski backup <file>` and `kowalski restore <file> --to <dir>` (docs/backup.md).
 * Backup reads the data folder directly (the databases through a read-only connection and
 * SQLite's online backup API), so it works the same whether a server runs or not; restore
 * writes only to a new or empty folder and checks everything first.
 */
// The backup folder's face, not the engine's: backup and restore start without loading the engine (a third of the modules).
import { createBackup, restoreBackup } from '../../engine/backup/index.js';
import type { BackupManifest } from '../../engine/backup/index.js';
import { EXIT, dataDir } from './common.js';
import { progressLine } from './progress-line.js';

const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

function summary(m: BackupManifest): Record<string, unknown> {
  return { createdAt: new Date(m.createdAt).toISOString(), source: m.source, runs: m.runs, files: m.files.length, withSecrets: m.withSecrets, redacted: m.redacted, skipped: m.skipped };
}

export async function backupCommand(file: string, opts: { withSecrets?: boolean; json?: boolean }): Promise<number> {
  const line = progressLine('backup', { json: opts.json === true });
  let result;
  try {
    result = await createBackup(dataDir(), file, { withSecrets: opts.withSecrets === true, onProgress: line.report });
  } finally {
    line.end();
  }
  const m = result.manifest;
  if (opts.json === true) {
    process.stdout.write(`${JSON.stringify({ file: result.file, bytes: result.bytes, ...summary(m) })}\n`);
    return EXIT.ok;
  }
  const lines = [`backed up ${m.source} to ${result.file} (${mib(result.bytes)}): ${m.runs} runs, ${m.files.length} files, taken ${new Date(m.createdAt).toISOString()}`];
  if (m.redacted.length > 0) lines.push(`  left out (secrets; add --with-secrets to keep them): ${m.redacted.join(', ')}`);
  for (const s of m.skipped) lines.push(`  skipped ${s.path}: ${s.why}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}

export function restoreCommand(file: string, opts: { to: string; json?: boolean }): number {
  const line = progressLine('restore', { json: opts.json === true });
  let result;
  try {
    result = restoreBackup(file, opts.to, line.report);
  } finally {
    line.end();
  }
  const m = result.manifest;
  if (opts.json === true) {
    process.stdout.write(`${JSON.stringify({ to: result.to, ...summary(m) })}\n`);
    return EXIT.ok;
  }
  const lines = [`restored ${file} to ${result.to}: ${m.runs} runs, ${m.files.length} files, every checksum and the database's integrity_check ok`];
  if (m.redacted.length > 0) lines.push(`  the backup left out secrets (${m.redacted.join(', ')}): set them again (Setup, or config.toml)${m.redacted.includes('secrets/') ? '; sign in to MCP servers again with `kowalski mcp login <server>`' : ''}`);
  const modules = m.skipped.filter((s) => s.path.startsWith('plugins/'));
  if (modules.length > 0) lines.push(`  the backup left out the plugins' packages (${modules.map((s) => s.path).join(', ')}): install them again (npm install in ${result.to}/plugins, or the plugin's folder)`);
  lines.push(`  use it: KOWALSKI_HOME=${result.to} kowalski serve`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
