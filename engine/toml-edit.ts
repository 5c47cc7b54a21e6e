/**
 * A small line-based editor for the keys Setup writes to config.toml: `key = value` lines
 * under `[table]` headers. Every other line (comments, blank lines, order, other keys)
 * stays as it was; a changed value keeps the comment trailing it. It knows only simple
 * values (strings, booleans, numbers) on one line: anything else (a multi-line string
 * on a key it edits, a table written as dotted keys or inline) makes it return null, and
 * the caller checks what it returns by parsing it anyway.
 */

/** One change: the key's table path and name; `null` removes the key. */
export interface TomlEdit {
  table: string[];
  key: string;
  value: string | boolean | null;
}

const HEADER = /^\s*\[\s*([A-Za-z0-9_.\s-]+?)\s*\]\s*(#.*)?$/;
const ARRAY_HEADER = /^\s*\[\[/;

function tomlValue(v: string | boolean): string {
  // A JSON string is a valid TOML basic string (the same escapes, \uXXXX for the rest).
  return typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** The section headers: line index → dotted table name (`null` for an array table, never edited). */
function headers(lines: string[]): Map<number, string | null> {
  const found = new Map<number, string | null>();
  lines.forEach((line, i) => {
    if (ARRAY_HEADER.test(line)) found.set(i, null);
    else {
      const m = HEADER.exec(line);
      if (m !== null) found.set(i, m[1]!.split('.').map((p) => p.trim()).join('.'));
    }
  });
  return found;
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
  const starts = [...heads].filter(([, t]) => t === name).map(([i]) => i);
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

/** `text` with the edits made, or null when one of them cannot be made on its lines. */
export function editToml(text: string, edits: TomlEdit[]): string | null {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const endsWithEol = lines.length > 1 && lines[lines.length - 1] === '';
  if (endsWithEol) lines.pop();
  for (const edit of edits) if (!applyEdit(lines, edit)) return null;
  return lines.join(eol) + (lines.length > 0 ? eol : '');
}
