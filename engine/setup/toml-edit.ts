/**
 * A small line-based editor for the keys Setup writes to config.toml: `key = value` lines
 * under `[table]` headers, and whole entries of an array of tables (`[[mcp.servers]]`)
 * added, replaced or removed. Every other line (comments, blank lines, order, other keys)
 * stays as it was; a changed value keeps the comment trailing it. It knows only simple
 * values (strings, booleans, numbers, arrays of strings) on one line: anything else (a multi-line string
 * on a key it edits, a table written as dotted keys or inline) makes it return null, and
 * the caller checks what it returns by parsing it anyway.
 */

/** One change: the key's table path and name; `null` removes the key. */
export interface TomlEdit {
  table: string[];
  key: string;
  value: string | number | boolean | null;
}

/** A value an entry of an array of tables may hold: a string table is written inline (`env = { A = "x" }`). */
export type TomlEntryValue = string | number | string[] | Record<string, string>;

/**
 * A change to a whole block: a new last entry of an array of tables with these keys, the
 * `index`-th entry (from 0) removed with its keys or replaced by one with these keys (in its
 * place), or a `[table]` dropped with its keys and its sub-tables (`[adapters.mail]` with
 * `[adapters.mail.imap]`), when they are written together.
 */
export type TomlArrayEdit =
  | { kind: 'append'; table: string[]; entry: Record<string, TomlEntryValue> }
  | { kind: 'replace'; table: string[]; index: number; entry: Record<string, TomlEntryValue> }
  | { kind: 'remove'; table: string[]; index: number }
  | { kind: 'drop'; table: string[] };

const HEADER = /^\s*\[\s*([A-Za-z0-9_.\s-]+?)\s*\]\s*(#.*)?$/;
const ARRAY_HEADER = /^\s*\[\[\s*([A-Za-z0-9_.\s-]+?)\s*\]\]\s*(#.*)?$/;
/** Any line that opens an array table, even one this editor cannot name. */
const ANY_ARRAY_HEADER = /^\s*\[\[/;

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

function tomlValue(v: string | number | boolean | string[] | Record<string, string>): string {
  // A JSON string is a valid TOML basic string (the same escapes, \uXXXX for the rest).
  if (Array.isArray(v)) return `[${v.map((x) => JSON.stringify(x)).join(', ')}]`;
  if (typeof v === 'object') {
    const pairs = Object.entries(v).map(([k, x]) => `${BARE_KEY.test(k) ? k : JSON.stringify(k)} = ${JSON.stringify(x)}`);
    return pairs.length === 0 ? '{}' : `{ ${pairs.join(', ')} }`;
  }
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

function entryLines(name: string, entry: Record<string, TomlEntryValue>): string[] {
  return [`[[${name}]]`, ...Object.entries(entry).map(([k, v]) => `${k} = ${tomlValue(v)}`)];
}

interface Header {
  /** The dotted table name; '' for an array table this editor cannot name. */
  name: string;
  array: boolean;
}

const dotted = (raw: string): string => raw.split('.').map((p) => p.trim()).join('.');

/** The section headers: line index → its table. */
function headers(lines: string[]): Map<number, Header> {
  const found = new Map<number, Header>();
  lines.forEach((line, i) => {
    const a = ARRAY_HEADER.exec(line);
    if (a !== null) found.set(i, { name: dotted(a[1]!), array: true });
    else if (ANY_ARRAY_HEADER.test(line)) found.set(i, { name: '', array: true });
    else {
      const m = HEADER.exec(line);
      if (m !== null) found.set(i, { name: dotted(m[1]!), array: false });
    }
  });
  return found;
}

/** The last line of `[from, to)` that holds a key (neither blank nor a comment), or `from`. */
function lastKeyLine(lines: string[], from: number, to: number): number {
  let last = from;
  for (let i = from + 1; i < to; i++) {
    const trimmed = lines[i]!.trim();
    if (trimmed !== '' && !trimmed.startsWith('#')) last = i;
  }
  return last;
}

/** Where the entry of the array table starting at `start` ends: the next header that is not one of its own sub-tables. */
function entryEnd(lines: string[], heads: Map<number, Header>, start: number, name: string): number {
  for (const [i, h] of [...heads].sort(([a], [b]) => a - b)) {
    if (i > start && (h.array || !h.name.startsWith(`${name}.`))) return i;
  }
  return lines.length;
}

/** Removes `[name]` and the sub-tables written right after it; false when one of them is elsewhere (or it is there twice). */
function dropTable(lines: string[], heads: Map<number, Header>, name: string): boolean {
  const sorted = [...heads].sort(([a], [b]) => a - b);
  const mine = (h: Header): boolean => h.name === name || h.name.startsWith(`${name}.`);
  const starts = sorted.filter(([, h]) => !h.array && h.name === name).map(([i]) => i);
  if (starts.length !== 1) return false;
  const start = starts[0]!;
  const next = sorted.find(([i, h]) => i > start && !mine(h));
  const end = next === undefined ? lines.length : next[0];
  if (sorted.some(([i, h]) => (i < start || i >= end) && mine(h))) return false;
  const stop = lastKeyLine(lines, start, end) + 1;
  lines.splice(start, stop - start);
  if (start > 0 && lines[start - 1]!.trim() === '') lines.splice(start - 1, 1);
  else if (start === 0 && lines.length > 0 && lines[0]!.trim() === '') lines.splice(0, 1);
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  return true;
}

/** Applies one array edit to `lines` in place; false when it cannot be done safely. */
function applyArrayEdit(lines: string[], edit: TomlArrayEdit): boolean {
  const name = edit.table.join('.');
  const heads = headers(lines);
  if ([...heads.values()].some((h) => h.array && h.name === '')) return false;
  if (edit.kind === 'drop') return dropTable(lines, heads, name);
  const starts = [...heads].filter(([, h]) => h.array && h.name === name).map(([i]) => i).sort((a, b) => a - b);
  if (edit.kind === 'append') {
    const entry = entryLines(name, edit.entry);
    const last = starts[starts.length - 1];
    if (last !== undefined) {
      // after the last entry's last key, so the entries stay together
      lines.splice(lastKeyLine(lines, last, entryEnd(lines, heads, last, name)) + 1, 0, '', ...entry);
      return true;
    }
    while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
    if (lines.length > 0) lines.push('');
    lines.push(...entry);
    return true;
  }
  const start = starts[edit.index];
  if (start === undefined) return false;
  // Its header and keys go (for a replace, its new ones come there); the comments after its last key stay (they are usually about what follows).
  const stop = lastKeyLine(lines, start, entryEnd(lines, heads, start, name)) + 1;
  if (edit.kind === 'replace') {
    lines.splice(start, stop - start, ...entryLines(name, edit.entry));
    return true;
  }
  lines.splice(start, stop - start);
  // The blank line that set it apart goes with it (the one an append puts before it).
  if (start > 0 && lines[start - 1]!.trim() === '') lines.splice(start - 1, 1);
  else if (start === 0 && lines.length > 0 && lines[0]!.trim() === '') lines.splice(0, 1);
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  return true;
}

/** Where the value of a `key = value` line ends, or null when it is not one simple line's value. */
function valueEnd(line: string, start: number): number | null {
  const first = line[start];
  if (line.startsWith('"""', start) || line.startsWith("'''", start) || first === '[' || first === '{') return null;
  if (first === '"') {
    for (let i = start + 1; i < line.length; i++) {
      if (line[i] === '\\') i++;
      else if (line[i] === '"') return i + 1;
    }
    return null;
  }
  if (first === "'") {
    const close = line.indexOf("'", start + 1);
    return close < 0 ? null : close + 1;
  }
  const hash = line.indexOf('#', start);
  return start + line.slice(start, hash < 0 ? line.length : hash).trimEnd().length;
}

function keyLine(key: string): RegExp {
  const k = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^(\\s*(?:${k}|"${k}"|'${k}')\\s*=\\s*)`);
}

/** Applies one edit to `lines` in place; false when it cannot be done safely. */
function applyEdit(lines: string[], edit: TomlEdit): boolean {
  const name = edit.table.join('.');
  const heads = headers(lines);
  const starts = [...heads].filter(([, h]) => !h.array && h.name === name).map(([i]) => i);
  if (starts.length > 1) return false;
  const start = starts[0];
  if (start === undefined) {
    if (edit.value === null) return true; // nothing to remove (the parse check confirms it)
    while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
    if (lines.length > 0) lines.push('');
    lines.push(`[${name}]`, `${edit.key} = ${tomlValue(edit.value)}`);
    return true;
  }
  let end = lines.length;
  for (const i of heads.keys()) if (i > start && i < end) end = i;
  const re = keyLine(edit.key);
  let lastKey = start;
  for (let i = start + 1; i < end; i++) {
    const line = lines[i]!;
    const trimmed = line.trim();
    if (trimmed !== '' && !trimmed.startsWith('#')) lastKey = i;
    const m = re.exec(line);
    if (m === null) continue;
    if (edit.value === null) {
      lines.splice(i, 1);
      return true;
    }
    const at = m[1]!.length;
    const stop = valueEnd(line, at);
    if (stop === null) return false;
    lines[i] = line.slice(0, at) + tomlValue(edit.value) + line.slice(stop);
    return true;
  }
  if (edit.value === null) return true;
  lines.splice(lastKey + 1, 0, `${edit.key} = ${tomlValue(edit.value)}`);
  return true;
}

/** `text` with the edits made (the key edits first), or null when one of them cannot be made on its lines. */
export function editToml(text: string, edits: TomlEdit[], arrayEdits: readonly TomlArrayEdit[] = []): string | null {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const endsWithEol = lines.length > 1 && lines[lines.length - 1] === '';
  if (endsWithEol) lines.pop();
  for (const edit of edits) if (!applyEdit(lines, edit)) return null;
  for (const edit of arrayEdits) if (!applyArrayEdit(lines, edit)) return null;
  return lines.join(eol) + (lines.length > 0 ? eol : '');
}
