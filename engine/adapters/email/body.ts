/**
 * What the agent reads of a mail: the new text only. Quoted lines (`>`) and the
 * attribution line above them ("On … wrote:") are removed; the signature after `-- ` and
 * Outlook's quoted "-----Original Message-----" are cut off; an empty body is the subject.
 */

/** Longest text handed to the agent, in characters; the rest is cut with a note. */
export const MAX_TEXT_CHARS = 20_000;

/** The start of an attribution line, in the languages mail clients most often write it. */
const ATTRIBUTION_START = /^(on|am|le|el|il|op|em)\s.+/i;
/** Its end (it may wrap onto the next line). */
const ATTRIBUTION_END = /\b(wrote|schrieb|a écrit|escribió|ha scritto|schreef|escreveu)[^:]*:\s*$/i;
const FORWARD_MARKERS = /^(-{2,}\s*original message\s*-{2,}|_{8,})\s*$/i;
/** RFC 3676's signature separator; many clients drop its trailing space. */
const SIGNATURE = /^--\s?$/;

const quoted = (line: string | undefined): boolean => line !== undefined && line.trimStart().startsWith('>');

/** An attribution line (or two) at `i`, followed by quoted lines: how many lines it spans, else 0. */
function attribution(lines: readonly string[], i: number): number {
  const line = (lines[i] ?? '').trim();
  if (!ATTRIBUTION_START.test(line)) return 0;
  const span = ATTRIBUTION_END.test(line) ? 1 : ATTRIBUTION_END.test((lines[i + 1] ?? '').trim()) ? 2 : 0;
  if (span === 0) return 0;
  const next = lines.slice(i + span).find((l) => l.trim() !== '');
  return quoted(next) ? span : 0;
}

/**
 * The new text of a reply: quoted lines and the attribution line above them removed (the
 * sender's text above or below them kept: top and bottom posting), everything from the
 * signature or an Outlook "Original Message" on cut.
 */
export function stripQuoted(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (FORWARD_MARKERS.test(line.trim()) || SIGNATURE.test(line)) break;
    const span = attribution(lines, i);
    if (span > 0) i += span - 1;
    else if (!quoted(line)) kept.push(line);
  }
  return kept.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

/**
 * The text the agent gets: the plain-text part (mailparser turns an HTML-only mail into
 * text, blockquotes as `>` lines), stripped; the subject when nothing is left.
 */
export function messageText(body: string | undefined, subject: string | undefined): string {
  const text = stripQuoted(body ?? '');
  const chosen = text !== '' ? text : (subject ?? '').trim();
  return chosen.length <= MAX_TEXT_CHARS ? chosen : `${chosen.slice(0, MAX_TEXT_CHARS)}\n\n[… the rest of this mail was cut: it was ${chosen.length} characters]`;
}
