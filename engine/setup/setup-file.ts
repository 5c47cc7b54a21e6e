/**
 * How Setup writes config.toml: the changes are made to the parsed table and, as line
 * edits, to the file's text (engine/setup/toml-edit.ts), so comments, blank lines and order stay.
 * The edited text is parsed and compared with the intended values before it is written;
 * when the edit cannot be made safely the whole file is written afresh from its values
 * (without its comments), which the answer says. The file is rewritten owner-only (0600)
 * through a temp file and a rename, so a crash leaves the old or the new file, never half of one.
 */
import fs from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { stringify } from 'smol-toml';
import { writeFileAtomic } from '../../steps/index.js';
import { parseConfig } from '../config.js';
import { sub } from './setup-fields.js';
import type { Table } from './setup-fields.js';
import { editToml } from './toml-edit.js';
import type { TomlArrayEdit, TomlEdit, TomlEntryValue } from './toml-edit.js';
import type { SetupWritten } from '../../contract/setup.js';

/** The file's text; '' when there is none yet. */
export function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

/** Set or (with null) delete `t[section…][key]`, creating tables on the way and pruning empty ones. */
export function put(t: Table, keys: string[], value: unknown): void {
  const [head, ...rest] = keys as [string, ...string[]];
  if (rest.length === 0) {
    if (value === null) delete t[head];
    else t[head] = value;
    return;
  }
  const child = sub(t, head);
  put(child, rest, value);
  if (Object.keys(child).length === 0) delete t[head];
  else t[head] = child;
}

const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/**
 * `t` without its empty tables (an empty `[table]` left with only its comments means no
 * setting), rebuilt as plain objects: the parser's tables and ours then compare equal.
 */
function pruned(t: Table): Table {
  const out: Table = {};
  for (const [k, v] of Object.entries(t)) {
    if (Array.isArray(v)) out[k] = v.map((x: unknown) => (isTable(x) ? pruned(x) : x));
    else if (!isTable(v)) out[k] = v;
    else {
      const child = pruned(v);
      if (Object.keys(child).length > 0) out[k] = child;
    }
  }
  return out;
}

/** The raw table and the line edits that make the same change to the file's text. */
export class Changes {
  readonly edits: TomlEdit[] = [];
  readonly arrayEdits: TomlArrayEdit[] = [];
  constructor(readonly raw: Table) {}
  set(keys: string[], value: string | number | boolean | null): void {
    put(this.raw, keys, value);
    this.edits.push({ table: keys.slice(0, -1), key: keys[keys.length - 1]!, value });
  }
  /** Adds an entry at the end of the array of tables at `keys` (`[[mcp.servers]]`). */
  append(keys: string[], entry: Record<string, TomlEntryValue>): void {
    const list = this.arrayAt(keys);
    put(this.raw, keys, [...list, entry]);
    this.arrayEdits.push({ kind: 'append', table: keys, entry });
  }
  /** Puts `entry` in place of the `index`-th entry of the array of tables at `keys`. */
  replace(keys: string[], index: number, entry: Record<string, TomlEntryValue>): void {
    put(this.raw, keys, this.arrayAt(keys).map((e, i) => (i === index ? entry : e)));
    this.arrayEdits.push({ kind: 'replace', table: keys, index, entry });
  }
  /** Removes the `index`-th entry of the array of tables at `keys`; the array (and its empty tables) go with the last one. */
  remove(keys: string[], index: number): void {
    const list = this.arrayAt(keys).filter((_, i) => i !== index);
    put(this.raw, keys, list.length === 0 ? null : list);
    this.arrayEdits.push({ kind: 'remove', table: keys, index });
  }
  /** Drops the table at `keys` with its keys and sub-tables. */
  drop(keys: string[]): void {
    put(this.raw, keys, null);
    this.arrayEdits.push({ kind: 'drop', table: keys });
  }
  private arrayAt(keys: string[]): unknown[] {
    let t: unknown = this.raw;
    for (const k of keys) t = typeof t === 'object' && t !== null ? (t as Table)[k] : undefined;
    return Array.isArray(t) ? t : [];
  }
}

/** The new text of config.toml: the old one with its lines edited when that gives exactly `raw`, else written afresh. */
function newText(old: string, changes: Changes, file: string): { text: string; written: SetupWritten } {
  const unchanged = changes.edits.length === 0 && changes.arrayEdits.length === 0;
  const edited = unchanged ? old : editToml(old, changes.edits, changes.arrayEdits);
  if (edited !== null) {
    try {
      if (isDeepStrictEqual(pruned(parseConfig(edited, file).raw), pruned(changes.raw))) {
        return { text: edited, written: { comments: 'kept', message: `Saved to ${file}; only the changed keys were rewritten, its comments are kept.` } };
      }
    } catch {
      // fall through to a fresh write
    }
  }
  return {
    text: stringify(changes.raw).trimEnd() + '\n',
    written: { comments: 'dropped', message: `Saved to ${file}, written afresh from its values: its layout could not be edited line by line, so its comments were not kept.` },
  };
}

/** Writes the changes to `file` (whose text was `old`); throws, writing nothing, when the engine would refuse the result at its next start. */
export function saveChanges(file: string, old: string, changes: Changes): SetupWritten {
  const { text, written } = newText(old, changes, file);
  parseConfig(text, file); // never write a file the engine would refuse at its next start
  writeFileAtomic(file, text, { mode: 0o600, fsync: true });
  return written;
}
