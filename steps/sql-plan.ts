/**
 * A Markdown plan → the SQL queries a `sql_batch` step runs. Every fenced block whose
 * info string starts with `sql` (any case; ``` or ~~~, any indentation, so a block inside
 * a list item counts) is a query, in document order. Its question is:
 * - the nearest heading above it (`#`…`######`, or a setext `===`/`---` underline); but
 *   when that heading titles several blocks (a list of questions under one heading), a
 *   block with a line just above it ending in `?` or `:` takes that line instead;
 * - else the non-empty line just above the fence when it ends with `?` or `:` (list and
 *   bold markers stripped, a trailing `:` dropped);
 * - else `Query N`.
 * A question given twice becomes `Question (2)`. Blocks with only whitespace or SQL
 * comments are skipped with a note. A block that is never closed runs to the end of the
 * file (as CommonMark reads it) and is taken, with a note: a cut-off query then fails in
 * the data tool with a message that shows where. A trailing `;` is dropped. Pure.
 */

export interface PlannedQuery {
  question: string;
  sql: string;
  /** 1-based line of the opening fence, for error messages. */
  line: number;
}

export interface SqlPlan {
  queries: PlannedQuery[];
  /** What was skipped or guessed, in plain words, each naming its line. */
  notes: string[];
}

interface Block {
  line: number;
  sql: string;
  heading: { text: string; line: number } | undefined;
  /** The `?`/`:` line just above the fence, cleaned. */
  lead: string | undefined;
  closed: boolean;
}

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;
const ATX = /^\s{0,3}(#{1,6})(?:\s+(.*?))?\s*$/;

function headingText(raw: string): string {
  return stripMarkers(raw.replace(/\s+#+\s*$/, '').replace(/^#+$/, ''));
}

/** `1. **Revenue by region?**` → `Revenue by region?`. */
function stripMarkers(line: string): string {
  let s = line.trim().replace(/^(?:[-*+]|\d{1,9}[.)])\s+/, '').trim();
  for (;;) {
    const m = /^(\*\*|__|\*|_)(.+)\1$/.exec(s);
    if (m === null) break;
    s = (m[2] ?? '').trim();
  }
  return s.replace(/\s+/g, ' ').trim();
}

/** The line just above a fence, when it reads as a question or a label. */
function leadOf(line: string | undefined): string | undefined {
  if (line === undefined || line.trim() === '' || FENCE.test(line) || ATX.test(line)) return undefined;
  const clean = stripMarkers(line);
  if (clean.endsWith('?')) return clean;
  if (clean.endsWith(':') && clean.length > 1) return clean.slice(0, -1).trim();
  return undefined;
}

/** True when the SQL holds nothing but whitespace and comments. */
function isEmptySql(sql: string): boolean {
  return sql.replace(/\/\*[\s\S]*?(?:\*\/|$)/g, ' ').replace(/--[^\n]*/g, ' ').trim() === '';
}

function cleanSql(lines: string[]): string {
  return lines.join('\n').replace(/[\s;]+$/, '').replace(/^\s*\n/, '').trimEnd();
}

/** Strip up to `indent` leading spaces (the fence's own indentation) from a content line. */
function dedent(line: string, indent: number): string {
  let i = 0;
  while (i < indent && i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  return line.slice(i);
}

function scan(markdown: string): Block[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let heading: Block['heading'];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const fence = FENCE.exec(line);
    if (fence !== null) {
      const indent = (fence[1] ?? '').length;
      const bar = fence[2] ?? '```';
      const info = (fence[3] ?? '').trim();
      if (bar.startsWith('`') && info.includes('`')) continue; // inline code, not a fence
      const close = new RegExp(`^\\s*${bar[0] === '`' ? '`' : '~'}{${bar.length},}\\s*$`);
      const body: string[] = [];
      let j = i + 1;
      while (j < lines.length && !close.test(lines[j] ?? '')) body.push(dedent(lines[j++] ?? '', indent));
      const closed = j < lines.length;
      if (/^sql\b/i.test(info)) {
        let above = i - 1;
        while (above >= 0 && (lines[above] ?? '').trim() === '') above--;
        blocks.push({ line: i + 1, sql: cleanSql(body), heading, lead: leadOf(lines[above]), closed });
      }
      i = j;
      continue;
    }
    const atx = ATX.exec(line);
    if (atx !== null) {
      heading = { text: headingText(atx[2] ?? ''), line: i + 1 };
      continue;
    }
    const prev = lines[i - 1] ?? '';
    if (i > 0 && /^\s{0,3}(=+|-+)\s*$/.test(line) && prev.trim() !== '' && !/^\s*(?:[-*+]|\d{1,9}[.)])\s/.test(prev) && !FENCE.test(prev) && !ATX.test(prev)) {
      heading = { text: stripMarkers(prev), line: i };
    }
  }
  return blocks;
}

/** Parse a plan; never throws (an empty result is for the caller to judge). */
export function parseSqlPlan(markdown: string): SqlPlan {
  const notes: string[] = [];
  const blocks = scan(markdown).filter((b) => {
    if (!isEmptySql(b.sql)) return true;
    notes.push(`the sql block at line ${b.line} holds no statement (only whitespace or comments): skipped`);
    return false;
  });
  const underHeading = new Map<number, Block[]>();
  for (const b of blocks) {
    if (b.heading === undefined) continue;
    underHeading.set(b.heading.line, [...(underHeading.get(b.heading.line) ?? []), b]);
  }
  const taken = new Set<string>();
  const queries = blocks.map((b, i): PlannedQuery => {
    const group = b.heading === undefined ? [] : underHeading.get(b.heading.line) ?? [];
    const shared = group.length > 1 && b.lead !== undefined;
    let question = b.heading !== undefined && b.heading.text !== '' && !shared ? b.heading.text : b.lead ?? b.heading?.text ?? '';
    if (question === '') question = `Query ${i + 1}`;
    const base = question;
    for (let n = 2; taken.has(question.toLowerCase()); n++) question = `${base} (${n})`;
    taken.add(question.toLowerCase());
    if (!b.closed) notes.push(`the sql block at line ${b.line} is never closed: it was read to the end of the file`);
    return { question, sql: b.sql, line: b.line };
  });
  return { queries, notes };
}
