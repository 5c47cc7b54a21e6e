/**
 * Split a horde file into TOML front matter and a Markdown body.
 *
 * The front matter sits between a first line of `---` (or `+++`) and the next line holding
 * the same fence. It is parsed with smol-toml and nothing else: a YAML block or a `---js`
 * block is reported as an error and never evaluated. A UTF-8 BOM and CRLF line ends are fine.
 */
import { parse, TomlDate, TomlError } from 'smol-toml';
import { messageOf } from '../../core/index.js';

export interface FrontMatter {
  /** The parsed TOML as plain JSON data (TOML dates become ISO strings). */
  data: Record<string, unknown>;
  /** The TOML text between the fences, with `\n` line ends. */
  toml: string;
  /** The line of the file (1-based) on which the TOML text starts: the line after the fence. */
  tomlStartLine: number;
  /** The Markdown after the closing fence, with `\n` line ends. Documentation only. */
  body: string;
}

export type FrontMatterResult =
  | { ok: true; value: FrontMatter }
  | { ok: false; line: number; message: string };

const FENCES = ['---', '+++'] as const;
/** `key: value` at the start of a line: what YAML front matter looks like. */
const YAML_LINE = /^\s*[A-Za-z_][\w.-]*\s*:(\s|$)/;

/** Split `text` (the whole file) into front matter and body. Never throws. */
export function splitFrontMatter(text: string): FrontMatterResult {
  const lines = (text.startsWith('\uFEFF') ? text.slice(1) : text).split(/\r?\n/);
  const first = (lines[0] ?? '').trimEnd();
  const fence = FENCES.find((f) => f === first);
  if (fence === undefined) {
    const tagged = /^(---|\+\+\+)\s*(\S+)$/.exec(first);
    if (tagged !== null) {
      return {
        ok: false,
        line: 1,
        message: `front matter is marked "${tagged[2] ?? ''}" (line "${first}"); kowalski reads TOML front matter only, between lines of exactly --- or +++, and never evaluates code`,
      };
    }
    return { ok: false, line: 1, message: 'has no front matter: the first line must be exactly --- or +++, followed by TOML and the same closing line' };
  }
  let close = -1;
  for (let i = 1; i < lines.length; i += 1) {
    if ((lines[i] ?? '').trimEnd() === fence) {
      close = i;
      break;
    }
  }
  if (close < 0) {
    return { ok: false, line: 1, message: `the front matter opened by "${fence}" on line 1 is never closed: add a line of exactly ${fence} after the TOML` };
  }
  const tomlLines = lines.slice(1, close);
  const toml = tomlLines.join('\n');
  let parsed: Record<string, unknown>;
  try {
    parsed = parse(toml, { unsafeKeyBehaviour: 'drop' });
  } catch (err) {
    const yamlAt = tomlLines.findIndex((l) => YAML_LINE.test(l));
    if (yamlAt >= 0) {
      return {
        ok: false,
        line: yamlAt + 2,
        message: 'front matter looks like YAML ("key: value"); kowalski reads TOML only ("key = \\"value\\"")',
      };
    }
    if (err instanceof TomlError) {
      const detail = (err.message.split('\n')[0] ?? '').replace(/^Invalid TOML document:\s*/, '');
      return { ok: false, line: err.line + 1, message: `TOML does not parse: ${detail || 'invalid document'} (column ${err.column})` };
    }
    return { ok: false, line: 2, message: `TOML does not parse: ${messageOf(err)}` };
  }
  return {
    ok: true,
    value: { data: toPlainTable(parsed), toml, tomlStartLine: 2, body: lines.slice(close + 1).join('\n') },
  };
}

/** TOML values → plain JSON data: dates become their TOML/ISO text, tables become ordinary objects. */
export function toPlain(value: unknown): unknown {
  if (value instanceof TomlDate) return value.toISOString();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(toPlain);
  if (typeof value === 'object' && value !== null) return toPlainTable(value as Record<string, unknown>);
  return value;
}

function toPlainTable(table: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(table)) out[key] = toPlain(table[key]);
  return out;
}
