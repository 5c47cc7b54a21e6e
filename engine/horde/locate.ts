/**
 * Find the line of a key such as `edges[2].max_loops` in TOML text, for error messages.
 * A best effort over the common shapes (top-level keys, `[[array]]` tables, `[table]`
 * sub-tables, inline tables): when the exact key is not written, the line of the nearest
 * enclosing table is returned; when nothing fits, undefined.
 *
 * The text is read once into an index (headers, the keys each stretch of lines assigns,
 * where each table ends), so a file with many problems costs one pass, not one per
 * problem; lines are scanned by hand, never by a regular expression that can backtrack.
 */

interface Segment {
  name: string;
  index?: number;
}

interface Header {
  line: number;
  path: string;
  array: boolean;
  /** The line (0-based) where this table's block ends: the next header outside it. */
  end: number;
}

/** A header line `[a.b]` or `[[a.b]]` (with an optional comment after it). */
function parseHeader(text: string): { path: string; array: boolean } | undefined {
  let i = 0;
  while (i < text.length && isSpace(text[i]!)) i += 1;
  if (text[i] !== '[') return undefined;
  const close = text.indexOf(']', i + 1);
  if (close < 0 || !tailIsEmpty(text, close + 1)) return undefined;
  // `[[name]` and `[[name]]` are arrays when anything is left between; `[[]` is a table named `[`.
  const array = text[i + 1] === '[' && close > i + 2;
  const raw = text.slice(i + (array ? 2 : 1), close);
  if (raw === '') return undefined;
  const trimmed = raw.trim();
  const path = trimmed === '' ? raw.slice(-1) : trimmed;
  const dotted = path.includes('.') ? path.split('.').map((s) => s.trim()).join('.') : path;
  return { path: dotted.replaceAll('"', ''), array };
}

/** After a header's first `]`: at most one more `]`, blanks, and an optional `# comment`. */
function tailIsEmpty(text: string, from: number): boolean {
  let i = from;
  if (text[i] === ']') i += 1;
  while (i < text.length && isSpace(text[i]!)) i += 1;
  if (i === text.length) return true;
  return text[i] === '#' && !/[\r\n\u2028\u2029]/.test(text.slice(i));
}

function isSpace(c: string): boolean {
  return c.trim() === '';
}

/** The names a line assigns (`name = …`, `"name" = …`), as the loader's keys spell them. */
function assignedNames(text: string): string[] {
  const s = text.trimStart();
  const out: string[] = [];
  const q = s[0];
  if (q === '"' || q === "'") {
    const close = s.indexOf(q, 1);
    if (close > 0 && s.slice(close + 1).trimStart().startsWith('=')) out.push(s.slice(1, close));
  }
  const eq = s.indexOf('=');
  if (eq <= 0) return out;
  const core = s.slice(0, eq).trimEnd();
  const quoted = (c: string | undefined): boolean => c === '"' || c === "'";
  const front = quoted(core[0]) ? 1 : 0;
  const back = core.length > front && quoted(core[core.length - 1]) ? 1 : 0;
  for (const [a, b] of [[0, 0], [front, 0], [0, back], [front, back]] as const) {
    const name = core.slice(a, core.length - b);
    if (name !== '') out.push(name);
  }
  return out;
}

function parseKey(key: string): Segment[] {
  const out: Segment[] = [];
  for (const m of key.matchAll(/([^.[\]]+)(?:\[(\d+)\])?/g)) {
    const name = m[1];
    if (name === undefined) continue;
    out.push(m[2] === undefined ? { name } : { name, index: Number(m[2]) });
  }
  return out;
}

/** The index of one TOML text: build it once, then ask for as many keys as needed. */
export class KeyLocator {
  private readonly lineCount: number;
  private readonly headers: Header[] = [];
  /** The first `[path]` of each path. */
  private readonly tables = new Map<string, Header>();
  /** `[[path]]` entries, by `path` and their index. */
  private readonly arrays = new Map<string, Header>();
  /** Every header of a path, in line order. */
  private readonly byPath = new Map<string, Header[]>();
  /** For each stretch of lines after a header (or the root stretch at 0): the first line assigning each name. */
  private readonly regions = new Map<number, Map<string, number>>();

  constructor(toml: string) {
    const lines = toml.split('\n');
    this.lineCount = lines.length;
    const counts = new Map<string, number>();
    let region = new Map<string, number>();
    this.regions.set(0, region);
    lines.forEach((text, line) => {
      const h = parseHeader(text);
      if (h === undefined) {
        for (const name of assignedNames(text)) if (!region.has(name)) region.set(name, line);
        return;
      }
      const header: Header = { line, path: h.path, array: h.array, end: Number.MAX_SAFE_INTEGER };
      this.headers.push(header);
      if (h.array) {
        const index = counts.get(h.path) ?? 0;
        counts.set(h.path, index + 1);
        this.arrays.set(`${h.path}[${index}]`, header);
      } else if (!this.tables.has(h.path)) {
        this.tables.set(h.path, header);
      }
      const same = this.byPath.get(h.path);
      if (same === undefined) this.byPath.set(h.path, [header]);
      else same.push(header);
      region = new Map();
      this.regions.set(line + 1, region);
    });
    this.closeBlocks();
  }

  /** 1-based line of `key`, or undefined. */
  lineOf(key: string): number | undefined {
    const segments = parseKey(key);
    const first = segments[0];
    if (first === undefined) return undefined;
    // `[[first]]` entries, or a `[first]` table: search inside that block.
    const block = first.index === undefined ? this.tables.get(first.name) : this.arrays.get(`${first.name}[${first.index}]`);
    if (block !== undefined) return this.findIn(block.line + 1, block.end, first.name, segments, 1) ?? block.line + 1;
    // Otherwise the key is written in the root table (before any header), perhaps inline.
    return this.findIn(0, this.headers[0]?.line ?? this.lineCount, '', segments, 0);
  }

  /**
   * A header's block ends at the first later header that is not one of its sub-tables.
   * One pass with a stack of open blocks, each a sub-table of the one below it.
   */
  private closeBlocks(): void {
    const open: Header[] = [];
    for (const h of this.headers) {
      while (open.length > 0 && !h.path.startsWith(`${open[open.length - 1]!.path}.`)) open.pop()!.end = h.line;
      open.push(h);
    }
  }

  /** Look for `segments[at]` in the lines [from, to) (its first stretch, then its sub-tables); `prefix` is their table path. */
  private findIn(from: number, to: number, prefix: string, segments: Segment[], at: number): number | undefined {
    const seg = segments[at];
    if (seg === undefined) return undefined;
    const end = Math.min(to, this.lineCount);
    const hit = this.regions.get(from)?.get(seg.name);
    if (hit !== undefined && hit < end) return hit + 1;
    // A sub-table header such as `[triggers.input]` inside the range.
    const path = prefix === '' ? seg.name : `${prefix}.${seg.name}`;
    const sub = this.firstHeader(path, from, end);
    if (sub !== undefined) return this.findIn(sub.line + 1, end, path, segments, at + 1) ?? sub.line + 1;
    return undefined;
  }

  /** The first header of `path` on a line in [from, to). */
  private firstHeader(path: string, from: number, to: number): Header | undefined {
    const list = this.byPath.get(path);
    if (list === undefined) return undefined;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid]!.line < from) lo = mid + 1;
      else hi = mid;
    }
    const found = list[lo];
    return found !== undefined && found.line < to ? found : undefined;
  }
}

/** 1-based line within `toml` of `key`, or undefined (one look-up; use a KeyLocator for many). */
export function lineOfKey(toml: string, key: string): number | undefined {
  return new KeyLocator(toml).lineOf(key);
}
