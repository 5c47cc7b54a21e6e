/**
 * Find the line of a key such as `edges[2].max_loops` in TOML text, for error messages.
 * A best effort over the common shapes (top-level keys, `[[array]]` tables, `[table]`
 * sub-tables, inline tables): when the exact key is not written, the line of the nearest
 * enclosing table is returned; when nothing fits, undefined.
 */

interface Segment {
  name: string;
  index?: number;
}

interface Header {
  line: number;
  path: string;
  array: boolean;
  /** For `[[x]]` headers: which entry of `x` this is (0-based). */
  index: number;
}

const HEADER = /^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;

/** 1-based line within `toml` of `key`, or undefined. */
export function lineOfKey(toml: string, key: string): number | undefined {
  const segments = parseKey(key);
  const first = segments[0];
  if (first === undefined) return undefined;
  const lines = toml.split('\n');
  const headers = scanHeaders(lines);

  // `[[first]]` entries, or a `[first]` table: search inside that block.
  const block = first.index === undefined
    ? headers.find((h) => !h.array && h.path === first.name)
    : headers.find((h) => h.array && h.path === first.name && h.index === first.index);
  if (block !== undefined) {
    const end = blockEnd(headers, block, first.name);
    return findIn(lines, headers, block.line + 1, end, first.name, segments.slice(1)) ?? block.line + 1;
  }
  // Otherwise the key is written in the root table (before any header), perhaps inline.
  const rootEnd = headers[0]?.line ?? lines.length;
  return findIn(lines, headers, 0, rootEnd, '', segments);
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

function scanHeaders(lines: string[]): Header[] {
  const counts = new Map<string, number>();
  const out: Header[] = [];
  lines.forEach((text, line) => {
    const m = HEADER.exec(text);
    if (m === null || m[1] === undefined || m[2] === undefined) return;
    const path = m[2].replace(/\s*\.\s*/g, '.').replace(/"/g, '');
    const array = m[1] === '[[';
    const index = counts.get(path) ?? 0;
    if (array) counts.set(path, index + 1);
    out.push({ line, path, array, index });
  });
  return out;
}

/** The line index where the block opened by `header` ends (the next header outside it). */
function blockEnd(headers: Header[], header: Header, name: string): number {
  const next = headers.find((h) => h.line > header.line && !h.path.startsWith(`${name}.`));
  return next?.line ?? Number.MAX_SAFE_INTEGER;
}

/** Look for `segments` in lines [from, to); `prefix` is the table path of that range. */
function findIn(lines: string[], headers: Header[], from: number, to: number, prefix: string, segments: Segment[]): number | undefined {
  const seg = segments[0];
  if (seg === undefined) return undefined;
  const assign = new RegExp(`^\\s*["']?${escape(seg.name)}["']?\\s*=`);
  const end = Math.min(to, lines.length);
  for (let i = from; i < end; i += 1) {
    const h = headers.find((x) => x.line === i);
    if (h !== undefined) break;
    if (assign.test(lines[i] ?? '')) return i + 1;
  }
  // A sub-table header such as `[triggers.input]` inside the range.
  const path = prefix === '' ? seg.name : `${prefix}.${seg.name}`;
  const sub = headers.find((h) => h.line >= from && h.line < end && h.path === path);
  if (sub !== undefined) return findIn(lines, headers, sub.line + 1, end, path, segments.slice(1)) ?? sub.line + 1;
  return undefined;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
