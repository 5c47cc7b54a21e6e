/**
 * The glob matcher of watch triggers' `globs`: paths relative to the watched folder, `/`
 * separated. Node 20's `path.matchesGlob` is experimental (it prints a warning), so this is
 * a small matcher of its own:
 * - `*` any characters within one path segment; `?` one character; `[abc]`, `[a-z]`,
 *   `[!abc]` one character of (or not of) a set;
 * - `**` as a whole segment: any number of folders (`reports/**\/*.csv` matches
 *   `reports/a.csv` and `reports/2024/q1/a.csv`); as the last segment, everything below
 *   (`reports/**`); elsewhere in a segment it is `*`;
 * - `{a,b}` alternatives (nestable; `{a}` without a comma is literal); `\` escapes;
 * - a trailing `/` means everything below that folder.
 * A pattern is anchored at the watched folder: `*.csv` matches `a.csv` but not `sub/a.csv`
 * (write `**\/*.csv` for any depth). Hidden names (starting with `.`) are matched only by a
 * segment that itself starts with `.`: `*` and `**` never pick up `.git/…` or `.DS_Store`.
 */
import { KowalskiError, messageOf } from '../../core/index.js';

/** Most patterns one pattern may expand to through `{…}`; beyond it the pattern is refused. */
export const MAX_BRACE_EXPANSIONS = 256;

export interface GlobOptions {
  /** Compare case-insensitively (as on macOS and Windows file systems). Default false. */
  nocase?: boolean;
}

/** A compiled set of patterns: a path matches when any pattern does. */
export interface GlobSet {
  /** Does this relative file path (`a/b.csv`) match? */
  matches(rel: string): boolean;
  /** Could a file below this relative folder (`''` for the root) match? False lets a watcher skip the folder. */
  mayContain(relDir: string): boolean;
}

/** A segment is either `**` or one regular expression for a single name. */
type Segment = { kind: 'globstar' } | { kind: 'name'; re: RegExp };

/** Why a pattern cannot be used, or undefined when it is fine. */
export function globProblem(pattern: string): string | undefined {
  if (pattern.trim() === '') return 'a glob cannot be empty';
  if (pattern.startsWith('/') || /^[A-Za-z]:[\\/]/.test(pattern)) {
    return `glob "${pattern}" is absolute; globs are relative to the watched folder (e.g. "*.xlsx" or "reports/**/*.csv")`;
  }
  if (pattern.includes('\0')) return `glob "${pattern}" holds a NUL character`;
  let expanded: string[];
  try {
    expanded = expandBraces(pattern);
  } catch (err) {
    return messageOf(err);
  }
  if (expanded.some((p) => p.split('/').includes('..'))) {
    return `glob "${pattern}" climbs out of the watched folder with ..`;
  }
  return undefined;
}

/** Compile patterns; throws KW_ERR_TRIGGER_INVALID naming the first bad one. */
export function compileGlobs(patterns: readonly string[], options: GlobOptions = {}): GlobSet {
  const compiled: Segment[][] = [];
  for (const pattern of patterns) {
    const why = globProblem(pattern);
    if (why !== undefined) throw new KowalskiError('KW_ERR_TRIGGER_INVALID', why);
    for (const one of expandBraces(pattern)) compiled.push(compileOne(one, options.nocase === true));
  }
  return {
    matches: (rel) => {
      const names = splitPath(rel);
      return names.length > 0 && compiled.some((segs) => matchFrom(segs, names, false));
    },
    mayContain: (relDir) => {
      const names = splitPath(relDir);
      return compiled.some((segs) => matchFrom(segs, names, true));
    },
  };
}

function splitPath(rel: string): string[] {
  return rel.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.');
}

function compileOne(pattern: string, nocase: boolean): Segment[] {
  let p = pattern.replace(/^(\.\/)+/, '');
  if (p.endsWith('/')) p += '**';
  const segments: Segment[] = [];
  for (const raw of splitUnescaped(p)) {
    if (raw === '' || raw === '.') continue;
    if (raw === '**') {
      if (segments.at(-1)?.kind !== 'globstar') segments.push({ kind: 'globstar' });
    } else {
      segments.push({ kind: 'name', re: segmentRegExp(raw, nocase) });
    }
  }
  return segments;
}

/** Split on `/` that is not escaped. */
function splitUnescaped(p: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i] as string;
    if (c === '\\' && i + 1 < p.length) {
      cur += c + (p[i + 1] as string);
      i++;
    } else if (c === '/') {
      out.push(cur);
      cur = '';
    } else {
      cur += c;
    }
  }
  out.push(cur);
  return out;
}

/** One name pattern as an anchored regular expression. */
function segmentRegExp(seg: string, nocase: boolean): RegExp {
  let src = '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i] as string;
    if (c === '\\' && i + 1 < seg.length) {
      src += escapeRe(seg[++i] as string);
    } else if (c === '*') {
      while (seg[i + 1] === '*') i++;
      src += '[^/]*';
    } else if (c === '?') {
      src += '[^/]';
    } else if (c === '[') {
      const cls = readClass(seg, i);
      if (cls === undefined) src += '\\[';
      else {
        src += cls.source;
        i = cls.end;
      }
    } else {
      src += escapeRe(c);
    }
  }
  // Hidden names only for a segment that starts with a literal dot.
  const hiddenOk = seg.startsWith('.') || seg.startsWith('\\.');
  return new RegExp(`^${hiddenOk ? '' : '(?!\\.)'}${src}$`, nocase ? 'i' : '');
}

/** `[…]` starting at `start`: its regular expression and the index of its `]`, or undefined when unclosed. */
function readClass(seg: string, start: number): { source: string; end: number } | undefined {
  let i = start + 1;
  let negate = false;
  if (seg[i] === '!' || seg[i] === '^') {
    negate = true;
    i++;
  }
  let body = '';
  let first = true;
  for (; i < seg.length; i++) {
    const c = seg[i] as string;
    if (c === ']' && !first) return { source: `[${negate ? '^/' : ''}${body}]`, end: i };
    first = false;
    if (c === '\\' && i + 1 < seg.length) body += '\\' + (seg[++i] as string);
    else if (c === '-') body += '-';
    else body += /[\]\\^]/.test(c) ? '\\' + c : c;
  }
  return undefined;
}

function escapeRe(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? '\\' + c : c;
}

/**
 * Match pattern segments against path names. `prefix`: the names are a folder, and the
 * question is whether something below it could still match.
 */
function matchFrom(segs: Segment[], names: string[], prefix: boolean): boolean {
  const failed = new Set<number>();
  const width = names.length + 1;
  const walk = (pi: number, ni: number): boolean => {
    const key = pi * width + ni;
    if (failed.has(key)) return false;
    const ok = step(pi, ni);
    if (!ok) failed.add(key);
    return ok;
  };
  const step = (pi: number, ni: number): boolean => {
    if (ni === names.length) {
      // The folder is used up: a file below it can match if pattern segments are left.
      if (prefix) return pi < segs.length;
      return pi === segs.length;
    }
    const seg = segs[pi];
    if (seg === undefined) return false;
    const name = names[ni] as string;
    if (seg.kind === 'globstar') {
      const last = pi === segs.length - 1;
      if (name.startsWith('.')) return !last && walk(pi + 1, ni);
      // As the last segment, `**` takes one or more names; elsewhere, zero or more.
      if (last) return names.slice(ni).every((n) => !n.startsWith('.'));
      return walk(pi + 1, ni) || walk(pi, ni + 1);
    }
    return seg.re.test(name) && walk(pi + 1, ni + 1);
  };
  return walk(0, 0);
}

/** Expand `{a,b}` alternatives into separate patterns. */
export function expandBraces(pattern: string): string[] {
  const out: string[] = [];
  const pending = [pattern];
  while (pending.length > 0) {
    const p = pending.pop() as string;
    const group = findBraceGroup(p);
    if (group === undefined) {
      out.push(p);
    } else {
      for (const alt of group.alternatives.reverse()) pending.push(p.slice(0, group.open) + alt + p.slice(group.close + 1));
    }
    if (out.length + pending.length > MAX_BRACE_EXPANSIONS) {
      throw new KowalskiError('KW_ERR_TRIGGER_INVALID', `glob "${pattern}" expands to more than ${MAX_BRACE_EXPANSIONS} patterns through {…}`);
    }
  }
  return out;
}

/** The first `{…}` holding a comma at its top level, or undefined. */
function findBraceGroup(p: string): { open: number; close: number; alternatives: string[] } | undefined {
  for (let open = 0; open < p.length; open++) {
    if (p[open] === '\\') {
      open++;
      continue;
    }
    if (p[open] !== '{') continue;
    let depth = 0;
    const commas: number[] = [];
    for (let i = open; i < p.length; i++) {
      const c = p[i];
      if (c === '\\') i++;
      else if (c === '{') depth++;
      else if (c === ',' && depth === 1) commas.push(i);
      else if (c === '}' && --depth === 0) {
        if (commas.length === 0) break;
        const cuts = [open, ...commas, i];
        const alternatives = cuts.slice(1).map((end, k) => p.slice((cuts[k] as number) + 1, end));
        return { open, close: i, alternatives };
      }
    }
  }
  return undefined;
}
