/** What Setup's sections share: reading a parsed config.toml's tables and strings, a key's hint, and the checks that name the field. */
import { KowalskiError, httpUrlOr } from '../../core/index.js';

export type Table = Record<string, unknown>;

export function sub(t: Table, key: string): Table {
  const v = t[key];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Table) : {};
}

export const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** "sk-a…wxyz": enough to recognise a key, never enough to use it. */
export function keyHint(key: string): string {
  return key.length <= 12 ? '…' + key.slice(-2) : `${key.slice(0, 4)}…${key.slice(-4)}`;
}

/** KW_ERR_BAD_REQUEST naming the Setup field (`providers.ollama.host`, `webSearch.url`…). */
export function bad(key: string, message: string): KowalskiError {
  return new KowalskiError('KW_ERR_BAD_REQUEST', `${key}: ${message}`, { where: { key } });
}

/** An http(s) URL without its trailing slashes; anything else is KW_ERR_BAD_REQUEST naming `key`. */
export function httpUrl(key: string, v: string): string {
  return httpUrlOr(v, (why) => bad(key, why));
}
