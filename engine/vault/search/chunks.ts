/**
 * A note's Markdown structure as the index reads it: its title (the first `# ` heading,
 * else the file name) and its chunks for semantic search — one per heading's section,
 * each with its heading path (`Plans > Q3`), cut at paragraphs when longer than a bound.
 * Lines inside ``` or ~~~ fences are never headings.
 */

export interface Chunk {
  /** The headings above and including this section's own, `>`-joined; '' before the first heading. */
  heading: string;
  /** The section's text, the heading line included. */
  text: string;
}

/** Characters of one chunk at most (a longer section is cut at blank lines, a longer paragraph anywhere). */
export const MAX_CHUNK_CHARS = 2000;
/** Chunks of one note at most; the rest of a very long note is not embedded. */
export const MAX_CHUNKS = 200;

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(```|~~~)/;

interface Line {
  text: string;
  /** The heading's level and text when the line is one. */
  heading?: { level: number; title: string };
}

function lines(text: string): Line[] {
  let fence: string | null = null;
  return text.split(/\r?\n/).map((line) => {
    const f = FENCE.exec(line);
    if (f !== null) {
      if (fence === null) fence = f[1]!;
      else if (f[1] === fence) fence = null;
      return { text: line };
    }
    const h = fence === null ? HEADING.exec(line) : null;
    return h === null || h[2] === '' ? { text: line } : { text: line, heading: { level: h[1]!.length, title: h[2]! } };
  });
}

/** The first `# ` heading's text, else the file name without `.md`. */
export function titleOf(text: string, relPath: string): string {
  const first = lines(text).find((l) => l.heading?.level === 1);
  if (first !== undefined) return first.heading!.title;
  const name = relPath.split('/').pop() ?? relPath;
  return name.replace(/\.md$/i, '');
}

/** `text` cut into pieces of at most `max` characters, at blank lines where it can. */
function bounded(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const out: string[] = [];
  let current = '';
  for (const para of text.split(/\n{2,}/)) {
    const joined = current === '' ? para : `${current}\n\n${para}`;
    if (joined.length <= max) {
      current = joined;
      continue;
    }
    if (current !== '') out.push(current);
    current = para;
    while (current.length > max) {
      out.push(current.slice(0, max));
      current = current.slice(max);
    }
  }
  if (current !== '') out.push(current);
  return out;
}

/** The note's sections as chunks (a section of only its heading left out), at most MAX_CHUNKS. */
export function chunksOf(text: string, maxChars = MAX_CHUNK_CHARS): Chunk[] {
  const out: Chunk[] = [];
  const path: Array<{ level: number; title: string }> = [];
  let body: string[] = [];
  let hasText = false;
  const flush = (): void => {
    const section = body.join('\n').trim();
    const keep = hasText;
    body = [];
    hasText = false;
    if (!keep) return; // nothing but a heading: its words are in the next section's heading path
    const heading = path.map((h) => h.title).join(' > ');
    for (const piece of bounded(section, maxChars)) out.push({ heading, text: piece });
  };
  for (const line of lines(text)) {
    if (line.heading !== undefined) {
      flush();
      while (path.length > 0 && path[path.length - 1]!.level >= line.heading.level) path.pop();
      path.push(line.heading);
    } else if (line.text.trim() !== '') hasText = true;
    body.push(line.text);
  }
  flush();
  return out.slice(0, MAX_CHUNKS);
}
