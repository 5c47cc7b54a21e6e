/**
 * Keys of a config.toml that the catalog (keys.ts) does not list: the reader keeps them and
 * ignores them, so a misspelt key silently means its default. Each is found with its line
 * and the nearest listed key. The user's own names are not checked: a map's entries
 * (`[model.tool_calling_by_model]`, `[webhook_secrets]`), a free-form key's table (an MCP
 * server's `env`), the settings of each adapter type beyond the common ones.
 */
import { parse } from 'smol-toml';
import { closestIds } from '../horde/index.js';
import { CONFIG_SECTIONS, configKeyNames } from './keys.js';

export interface UnknownKey {
  file: string;
  /** As written, dotted, an array entry by its index: `model.tool_calls`, `mcp.servers[1].nmae`. */
  key: string;
  /** 1-based; absent when the line cannot be told (a key inside an inline table). */
  line?: number;
  /** The nearest listed key (`model.tool_calling`), when one is close. */
  suggestion?: string;
}

/** What a dotted name (segments; `servers[]` for an array's entries) is to the catalog. */
export type KeyStatus = 'key' | 'free' | 'path' | 'unknown';

interface Pattern {
  segments: string[];
  /** A key (else a section). */
  key: boolean;
  /** Below it, every name is the user's. */
  free: boolean;
}

function patterns(): Pattern[] {
  const out: Pattern[] = [];
  for (const s of CONFIG_SECTIONS) {
    const base = s.name.split('.');
    if (s.kind === 'array') base[base.length - 1] += '[]';
    out.push({ segments: base, key: false, free: s.kind === 'map' || s.openEnded !== undefined });
    for (const k of s.keys) out.push({ segments: [...base, k.key], key: true, free: k.freeForm === true });
  }
  return out;
}

const matches = (pattern: string, segment: string): boolean => pattern === segment || (pattern === '<name>' && !segment.endsWith('[]'));
const RANK: Record<KeyStatus, number> = { unknown: 0, path: 1, free: 2, key: 3 };

/**
 * `key`: a listed key; `free`: the user's own name (below a map, a free-form key, an
 * open-ended section); `path`: a section, or a table on the way to one (`tools`,
 * `adapters.slack`); `unknown`: none of these.
 */
export function keyStatus(segments: readonly string[]): KeyStatus {
  let status: KeyStatus = 'unknown';
  for (const p of patterns()) {
    const common = Math.min(p.segments.length, segments.length);
    if (!p.segments.slice(0, common).every((seg, i) => matches(seg, segments[i] ?? ''))) continue;
    const here: KeyStatus = segments.length < p.segments.length ? 'path'
      : segments.length === p.segments.length ? (p.key ? 'key' : 'path')
      : p.free ? 'free' : 'unknown';
    if (RANK[here] > RANK[status]) status = here;
  }
  return status;
}

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** Every unknown key of a parsed config.toml, as written (`mcp.servers[1].nmae`), in file order of the walk. */
function unknownPaths(raw: Record<string, unknown>): { written: string; segments: string[] }[] {
  const out: { written: string; segments: string[] }[] = [];
  const walk = (table: Record<string, unknown>, segments: string[], written: string): void => {
    for (const [key, value] of Object.entries(table)) {
      const here = written === '' ? key : `${written}.${key}`;
      const asArray = Array.isArray(value) && value.some(isTable) ? [...segments, `${key}[]`] : undefined;
      const status = keyStatus(asArray ?? [...segments, key]);
      if (status === 'unknown') out.push({ written: here, segments: asArray ?? [...segments, key] });
      else if (status === 'path' && asArray !== undefined) (value as unknown[]).forEach((entry, i) => isTable(entry) && walk(entry, asArray, `${here}[${i}]`));
      else if (status === 'path' && isTable(value)) walk(value, [...segments, key], here);
    }
  };
  walk(raw, [], '');
  return out;
}

/** A dotted TOML key (`a."b.c".d`) into its names; undefined when it is not one. */
function dottedKey(text: string): string[] | undefined {
  const SEGMENT = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*/y;
  const out: string[] = [];
  for (;;) {
    const m = SEGMENT.exec(text);
    if (m === null) return undefined;
    out.push(m[1] ?? m[2] ?? m[3] ?? '');
    if (SEGMENT.lastIndex === text.length) return out;
    if (text[SEGMENT.lastIndex] !== '.') return undefined;
    SEGMENT.lastIndex += 1;
  }
}

/** Each line that writes a header or a key, with the dotted name it writes (`mcp.servers[1].name`). */
function keyLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  const arrays = new Map<string, number>();
  let prefix = '';
  text.split(/\r?\n/).forEach((line, i) => {
    const header = /^\s*(\[\[?)([^\]]+)\]\]?\s*(?:#.*)?$/.exec(line);
    if (header !== null) {
      const names = dottedKey(header[2] ?? '');
      if (names === undefined) return;
      let name = names.join('.');
      if (header[1] === '[[') {
        const index = (arrays.get(name) ?? -1) + 1;
        arrays.set(name, index);
        name = `${name}[${index}]`;
      }
      // a table below an array's entry (`[mcp.servers.env]`) belongs to its latest entry
      for (const [array, index] of arrays) if (name.startsWith(`${array}.`)) name = `${array}[${index}]${name.slice(array.length)}`;
      prefix = name;
      if (!lines.has(name)) lines.set(name, i + 1);
      return;
    }
    const assignment = /^\s*([^=#[]+?)\s*=/.exec(line);
    const names = assignment === null ? undefined : dottedKey(assignment[1] ?? '');
    if (names === undefined) return;
    const name = prefix === '' ? names.join('.') : `${prefix}.${names.join('.')}`;
    if (!lines.has(name)) lines.set(name, i + 1);
  });
  return lines;
}

function lineOf(lines: Map<string, number>, written: string): number | undefined {
  const exact = lines.get(written);
  if (exact !== undefined) return exact;
  let best: number | undefined;
  for (const [name, line] of lines) if (name.startsWith(`${written}.`) && (best === undefined || line < best)) best = line;
  return best;
}

/** The nearest listed key: by the whole name, else by its last part (a key in the wrong section). */
function suggest(segments: readonly string[], names: readonly string[]): string | undefined {
  const full = segments.join('.');
  const byName = closestIds(full, names)[0];
  if (byName !== undefined) return byName;
  const leaf = segments[segments.length - 1] ?? '';
  const leafOf = (name: string): string => name.slice(name.lastIndexOf('.') + 1);
  const leaves = closestIds(leaf, names.map(leafOf));
  if (leaves.length === 0 && !names.some((n) => leafOf(n) === leaf)) return undefined;
  const wanted = names.some((n) => leafOf(n) === leaf) ? leaf : leaves[0];
  return names.find((n) => leafOf(n) === wanted);
}

/** The keys of config.toml's `text` that no part of kowalski reads. The text must parse (loadConfig checked it). */
export function unknownConfigKeys(text: string, file: string): UnknownKey[] {
  const found = unknownPaths(parse(text) as Record<string, unknown>);
  if (found.length === 0) return [];
  const lines = keyLines(text);
  const names = [...CONFIG_SECTIONS.map((s) => s.name), ...configKeyNames()];
  return found.map(({ written, segments }) => {
    const out: UnknownKey = { file, key: written };
    const line = lineOf(lines, written);
    if (line !== undefined) out.line = line;
    const suggestion = suggest(segments, names);
    // the entry's own index, where the name has one: mcp.servers[1].command
    const index = /\[\d+\]/.exec(written)?.[0];
    if (suggestion !== undefined) out.suggestion = index === undefined ? suggestion : suggestion.replace('[]', index);
    return out;
  });
}
