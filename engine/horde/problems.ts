/**
 * Collecting validation problems: every problem names its code, file, key and line.
 * One `ProblemList` per load (no shared state); one `Source` per file read.
 */
import type { ErrorCode, Problem } from '../../core/index.js';
import { lineOfKey } from './locate.js';

/** Where a problem is: the file relative to the horde folder, the key, the line. */
export interface At {
  file: string;
  key?: string;
  line?: number;
}

/** A file whose front matter was read: turns a key into a place with a line number. */
export class Source {
  /**
   * @param file relative to the horde folder, e.g. `agents/check.md`
   * @param toml the front matter text, to look keys up in (empty when there is none)
   * @param tomlStartLine the file line on which the TOML text starts
   */
  constructor(readonly file: string, private readonly toml = '', private readonly tomlStartLine = 2) {}

  /** The place of `key` in this file (the line when the key can be found). */
  at(key?: string): At {
    if (key === undefined) return { file: this.file };
    const line = this.toml === '' ? undefined : lineOfKey(this.toml, key);
    return line === undefined ? { file: this.file, key } : { file: this.file, key, line: line + this.tomlStartLine - 1 };
  }
}

export class ProblemList {
  readonly items: Problem[] = [];

  error(code: ErrorCode, at: At, message: string): void {
    this.items.push(make('error', code, at, message));
  }

  warn(code: ErrorCode, at: At, message: string): void {
    this.items.push(make('warning', code, at, message));
  }

  get hasErrors(): boolean {
    return this.items.some((p) => p.severity === 'error');
  }

  /** Errors and warnings ordered by file (horde.md first), then line; stable otherwise. */
  sorted(): Problem[] {
    const rank = (p: Problem): string => (p.file === 'horde.md' ? '' : p.file);
    return this.items
      .map((p, i) => ({ p, i }))
      .sort((a, b) => rank(a.p).localeCompare(rank(b.p)) || (a.p.line ?? 0) - (b.p.line ?? 0) || a.i - b.i)
      .map(({ p }) => p);
  }
}

function make(severity: Problem['severity'], code: ErrorCode, at: At, message: string): Problem {
  const p: Problem = { severity, code, file: at.file, message };
  if (at.key !== undefined) p.key = at.key;
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
