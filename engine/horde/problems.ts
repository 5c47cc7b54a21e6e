/**
 * Collecting validation problems: every problem names its code, file, key and line.
 * One `ProblemList` per load (no shared state); one `Source` per file read.
 */
import type { ErrorCode, Problem } from '../../core/index.js';
import { MANIFEST_FILES } from './manifest.js';
import { KeyLocator } from './locate.js';
import { capProblems, clipText, MAX_KEY_CHARS, MAX_MESSAGE_CHARS } from './problem-cap.js';

/** Where a problem is: the file relative to the horde folder, the key, the line. */
export interface At {
  file: string;
  key?: string;
  line?: number;
}

/** A file whose front matter was read: turns a key into a place with a line number. */
export class Source {
  private locator: KeyLocator | undefined;

  /**
   * @param file relative to the horde folder, e.g. `agents/check.md`
   * @param toml the front matter text, to look keys up in (empty when there is none)
   * @param tomlStartLine the file line on which the TOML text starts
   */
  constructor(readonly file: string, private readonly toml = '', private readonly tomlStartLine = 2) {}

  /** The place of `key` in this file (the line when the key can be found). The text is indexed once, at the first key. */
  at(key?: string): At {
    if (key === undefined) return { file: this.file };
    if (this.toml === '') return { file: this.file, key };
    this.locator ??= new KeyLocator(this.toml);
    const line = this.locator.lineOf(key);
    return line === undefined ? { file: this.file, key } : { file: this.file, key, line: line + this.tomlStartLine - 1 };
  }
}

export class ProblemList {
  readonly items: Problem[] = [];
  private errors = 0;

  error(code: ErrorCode, at: At, message: string): void {
    this.items.push(make('error', code, at, message));
    this.errors += 1;
  }

  warn(code: ErrorCode, at: At, message: string): void {
    this.items.push(make('warning', code, at, message));
  }

  get hasErrors(): boolean {
    return this.errors > 0;
  }

  /** How many errors were collected so far (to tell whether a part added any). */
  get errorCount(): number {
    return this.errors;
  }

  /** Errors and warnings ordered by file (the manifest, horde.md or 1.x app.md, first), then line; stable otherwise. */
  sorted(): Problem[] {
    // Rank the few distinct files once, so the sort itself compares numbers.
    const key = (f: string): string => ((MANIFEST_FILES as readonly string[]).includes(f) ? '' : f);
    const files = [...new Set(this.items.map((p) => p.file))].sort((a, b) => key(a).localeCompare(key(b)));
    const rank = new Map(files.map((f, i) => [f, i]));
    return this.items
      .map((p, i) => ({ p, i, r: rank.get(p.file) ?? 0 }))
      .sort((a, b) => a.r - b.r || (a.p.line ?? 0) - (b.p.line ?? 0) || a.i - b.i)
      .map(({ p }) => p);
  }

  /** What a load reports: `sorted()`, capped per file and per horde (see problem-cap.ts). */
  reported(): Problem[] {
    return capProblems(this.sorted());
  }
}

function make(severity: Problem['severity'], code: ErrorCode, at: At, message: string): Problem {
  const p: Problem = { severity, code, file: at.file, message: clipText(message, MAX_MESSAGE_CHARS) };
  if (at.key !== undefined) p.key = clipText(at.key, MAX_KEY_CHARS);
  if (at.line !== undefined) p.line = at.line;
  return p;
}

/** `file:line: key: message [CODE]`, one problem per line. */
export function formatProblems(problems: readonly Problem[]): string {
  return problems
    .map((p) => {
      const place = p.line === undefined ? p.file : `${p.file}:${p.line}`;
      const key = p.key === undefined ? '' : ` ${p.key}:`;
      return `${place}:${key} ${p.message} [${p.code}]`;
    })
    .join('\n');
}
