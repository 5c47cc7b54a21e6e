/**
 * Shaping a model's answer into the step's Markdown document, by the `normalize_*` keys:
 * the title, the named sections in their order (a missing one is added and marked), and
 * a fallback document when the answer is empty or is not a document at all. Small
 * models wrap documents in code fences and leave reasoning blocks behind; both go.
 */
import { KowalskiError } from '../core/index.js';
import type { NormalizeSpec } from '../core/index.js';

export interface Shaped {
  markdown: string;
  /** The answer was unusable and the fallback document was written instead. */
  fallback: boolean;
  /** Sections the answer lacked (added, marked as missing). */
  missing: string[];
}

export const MISSING_SECTION = '_(the model wrote nothing for this section)_';

/** Reasoning blocks (`<think>…</think>`) and a fence around the whole answer are not part of the document. */
export function cleanAnswer(raw: string): string {
  let text = raw.replace(/<think>[\s\S]*?<\/think>/g, '').trim();
  const fenced = /^```(?:markdown|md)?[ \t]*\n([\s\S]*?)\n```$/.exec(text);
  if (fenced !== null) text = (fenced[1] ?? '').trim();
  return text;
}

/** An answer that is still a tool call, or nothing at all, is not a document. */
function unusable(text: string): boolean {
  return text === '' || /^<tool_call>[\s\S]*<\/tool_call>$/.test(text);
}

function headingKey(title: string): string {
  return title.trim().replace(/[:.]+$/, '').replace(/^\d+[.)]\s*/, '').toLowerCase();
}

function fallbackDoc(spec: NormalizeSpec, title: string): string {
  const parts = [`# ${spec.docTitle ?? title}`, '', spec.fallback ?? 'The model returned no usable answer for this step.'];
  for (const s of spec.fallbackSections ?? []) parts.push('', `## ${s}`, '', MISSING_SECTION);
  return `${parts.join('\n')}\n`;
}

/** Put the named `## ` sections in order, adding the missing ones; other sections follow, as written. */
function orderSections(text: string, sections: readonly string[], missing: string[]): string {
  const lines = text.split('\n');
  const preamble: string[] = [];
  const found: Array<{ key: string; lines: string[] }> = [];
  let inFence = false;
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const h2 = inFence ? null : /^##\s+(.+?)\s*#*\s*$/.exec(line);
    if (h2 !== null) found.push({ key: headingKey(h2[1] ?? ''), lines: [line] });
    else if (found.length === 0) preamble.push(line);
    else found[found.length - 1]!.lines.push(line);
  }
  const out = [preamble.join('\n').trimEnd()];
  const used = new Set<number>();
  for (const name of sections) {
    const i = found.findIndex((f, n) => !used.has(n) && f.key === headingKey(name));
    if (i === -1) {
      missing.push(name);
      out.push(`## ${name}\n\n${MISSING_SECTION}`);
    } else {
      used.add(i);
      out.push(found[i]!.lines.join('\n').trimEnd());
    }
  }
  found.forEach((f, n) => {
    if (!used.has(n)) out.push(f.lines.join('\n').trimEnd());
  });
  return out.filter((p) => p !== '').join('\n\n');
}

/** `title` is the step's display name, used when the spec has no title of its own. */
export function shapeOutput(raw: string, spec: NormalizeSpec | undefined, title: string): Shaped {
  const text = cleanAnswer(raw);
  if (unusable(text)) {
    if (spec === undefined) {
      throw new KowalskiError('KW_ERR_MODEL_BAD_RESPONSE',
        text === '' ? 'the model gave an empty answer' : 'the model ended with a tool call instead of an answer');
    }
    return { markdown: fallbackDoc(spec, title), fallback: true, missing: [] };
  }
  const missing: string[] = [];
  let body = text;
  if (spec?.docTitle !== undefined) {
    const h1 = /^#\s+.*$/m.exec(body);
    body = h1 !== null && body.slice(0, h1.index).trim() === ''
      ? `# ${spec.docTitle}${body.slice(h1.index + h1[0].length)}`
      : `# ${spec.docTitle}\n\n${body}`;
  }
  if (spec?.sections !== undefined && spec.sections.length > 0) body = orderSections(body, spec.sections, missing);
  return { markdown: `${body.trimEnd()}\n`, fallback: false, missing };
}
