/**
 * How tables and columns are named, predictably, from file, sheet and header names.
 *
 * A table name is lower case `[a-z0-9_]`: accents dropped (`Süd` → `sud`), every other run
 * of characters outside `[a-z0-9]` → `_`, trimmed of `_`; a name that starts with a digit
 * or is an SQL keyword gets `t_` (`2026.csv` → `t_2026`, `order.csv` → `t_order`); an
 * empty one is `t`. A file's table is its stem, an xlsx sheet's is `<stem>_<sheet>`.
 * Sources that give the same name are each prefixed by their parent folders, nearest
 * first, until the names differ; those still equal get `_2`, `_3` in source path order.
 *
 * Column names are kept as the file has them (trimmed, without a byte-order mark); an
 * empty one becomes `column_N` (N counts from 1), a repeated one (DuckDB compares names
 * without case) `name_2`, `name_3`.
 */
import { SQL_KEYWORDS } from './keywords.js';

/** Text → an SQL name under the rules above. */
export function sqlName(text: string): string {
  const plain = text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
  let name = plain.replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  if (name === '') return 't';
  if (/^[0-9]/.test(name) || SQL_KEYWORDS.has(name)) name = `t_${name}`;
  return name;
}

/** A source of one table: a file (root-relative, `/`-separated) and, for a workbook, a sheet. */
export interface TableSource {
  rel: string;
  sheet?: string;
}

function stemOf(rel: string): string {
  const file = rel.slice(rel.lastIndexOf('/') + 1);
  const dot = file.lastIndexOf('.');
  return dot > 0 ? file.slice(0, dot) : file;
}

function foldersOf(rel: string): string[] {
  return rel.split('/').slice(0, -1);
}

function compareSources(a: TableSource, b: TableSource): number {
  if (a.rel !== b.rel) return a.rel < b.rel ? -1 : 1;
  return 0;
}

/** The table name of each source, in the order given; every name differs from the others. */
export function tableNames(sources: readonly TableSource[]): string[] {
  // Work in source path order (a stable sort keeps the sheets of one workbook in their order).
  const order = sources.map((s, i) => ({ s, i })).sort((x, y) => compareSources(x.s, y.s));
  const items = order.map(({ s, i }) => ({
    index: i,
    own: s.sheet === undefined ? stemOf(s.rel) : `${stemOf(s.rel)}_${s.sheet}`,
    folders: foldersOf(s.rel),
    depth: 0,
    name: '',
  }));
  const nameOf = (it: (typeof items)[number]): string => sqlName([...it.folders.slice(it.folders.length - it.depth), it.own].join('_'));
  for (const it of items) it.name = nameOf(it);
  for (;;) {
    const groups = groupByName(items);
    let moved = false;
    for (const group of groups.values()) {
      if (group.length < 2) continue;
      for (const it of group) {
        if (it.depth < it.folders.length) {
          it.depth += 1;
          it.name = nameOf(it);
          moved = true;
        }
      }
    }
    if (!moved) break;
  }
  const taken = new Set<string>();
  const seen = new Set<string>();
  for (const it of items) taken.add(it.name);
  for (const it of items) {
    if (!seen.has(it.name)) {
      seen.add(it.name);
      continue;
    }
    let n = 2;
    while (taken.has(`${it.name}_${n}`)) n += 1;
    it.name = `${it.name}_${n}`;
    taken.add(it.name);
    seen.add(it.name);
  }
  const out: string[] = new Array<string>(sources.length);
  for (const it of items) out[it.index] = it.name;
  return out;
}

function groupByName<T extends { name: string }>(items: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const it of items) {
    const g = groups.get(it.name);
    if (g === undefined) groups.set(it.name, [it]);
    else g.push(it);
  }
  return groups;
}

/** The column names of a header row (null or empty cells included), under the rules above. */
export function columnNames(header: readonly (string | null | undefined)[]): string[] {
  const used = new Set<string>();
  return header.map((cell, i) => {
    const text = (cell ?? '').replace(/^\uFEFF/, '').trim();
    const base = text === '' ? `column_${i + 1}` : text;
    let name = base;
    for (let n = 2; used.has(name.toLowerCase()); n += 1) name = `${base}_${n}`;
    used.add(name.toLowerCase());
    return name;
  });
}

/** A note for each header cell whose column was named otherwise (empty, or repeated); `where(i)` names the column for a reader. */
export function renameNotes(header: readonly (string | null | undefined)[], names: readonly string[], where: (i: number) => string): string[] {
  const out: string[] = [];
  header.forEach((cell, i) => {
    const text = (cell ?? '').replace(/^\uFEFF/, '').trim();
    const name = names[i] ?? '';
    if (text === '') out.push(`${where(i)} has an empty header: named \`${name}\``);
    else if (text !== name) out.push(`${where(i)} repeats the header "${text}": named \`${name}\``);
  });
  return out;
}
