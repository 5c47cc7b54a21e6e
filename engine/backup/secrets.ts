/**
 * What a backup leaves out unless asked for secrets (`--with-secrets`): every secret on the
 * data folder's list (engine/secrets/secret-list.ts), the files that are secrets as a whole
 * and config.toml's secret keys.
 */
import { parse, stringify } from 'smol-toml';
import { configSecrets, removeSecret } from '../secrets/secret-list.js';

/** config.toml's `[store]` when it names a Postgres store the nodes share (undefined: the data folder holds it all, or the text does not parse). */
export function sharedStoreOf(text: string): { url: string; files?: string } | undefined {
  let store: unknown;
  try {
    store = (parse(text) as Record<string, unknown>).store;
  } catch {
    return undefined; // told below, as the config's own skip
  }
  if (typeof store !== 'object' || store === null) return undefined;
  const { url, files } = store as Record<string, unknown>;
  if (typeof url !== 'string' || url === '') return undefined;
  return { url, ...(typeof files === 'string' && files !== '' ? { files } : {}) };
}

/** config.toml without its secret keys (re-written: comments are not kept), and the keys left out. */
export function redactConfig(text: string): { text: string; redacted: string[] } {
  const raw = parse(text) as Record<string, unknown>;
  const found = configSecrets(raw);
  for (const f of found) removeSecret(f);
  const redacted = found.map((f) => f.name);
  const note = redacted.length === 0 ? '' : `# kowalski backup: left out (secrets): ${redacted.join(', ')}\n`;
  return { text: redacted.length === 0 ? text : `${note}${stringify(raw)}\n`, redacted };
}
