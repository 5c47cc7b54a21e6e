/**
 * The values of the secrets config.toml holds now (the list in secret-list.ts), for
 * replacing them in what the server says: error answers and log lines. The file is read
 * again only when it changed (its mtime, size or inode), so an error costs one `stat`.
 */
import fs from 'node:fs';
import { parse } from 'smol-toml';
import { fileStamp } from '../config/file-stamp.js';
import { configSecrets, urlPassword } from './secret-list.js';

/** Every string leaf of a secret (a table of webhook secrets, an MCP server's env table…). */
function leaves(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) leaves(v, out);
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) leaves(v, out);
}

/** The secret values of a parsed config (a PostgreSQL URL gives its password). */
export function secretValuesOf(raw: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const found of configSecrets(raw)) {
    const value = found.table[found.key];
    if (found.name === 'store.url') {
      const password = urlPassword(value);
      if (password !== undefined) out.push(password);
    } else {
      leaves(value, out);
    }
  }
  return out;
}

/** A reader of `configFile`'s secret values, cached until the file changes; none when it is missing or does not parse. */
export function configSecretValues(configFile: string): () => string[] {
  let seen = '';
  let values: string[] = [];
  return () => {
    const key = fileStamp(configFile);
    if (key === seen) return values;
    seen = key;
    try {
      values = key === 'none' ? [] : secretValuesOf(parse(fs.readFileSync(configFile, 'utf8')) as Record<string, unknown>);
    } catch {
      values = []; // a config that does not parse stopped the start already; one written since is Setup's to report
    }
    return values;
  };
}
