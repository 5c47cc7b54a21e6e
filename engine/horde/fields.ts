/**
 * Typed reads of one TOML table, reporting every wrong type or missing key as a problem
 * with its full key (e.g. `edges[2].max_loops`). Keys that were never read are what
 * the loader keeps as `extra`: unknown keys are never an error.
 */
import type { ErrorCode } from '../../core/index.js';
import type { At, ProblemList, Source } from './problems.js';

export interface FieldCodes {
  missing: ErrorCode;
  type: ErrorCode;
  value: ErrorCode;
}

const DEFAULT_CODES: FieldCodes = { missing: 'KW_ERR_KEY_MISSING', type: 'KW_ERR_KEY_TYPE', value: 'KW_ERR_KEY_VALUE' };

export class Fields {
  private readonly read = new Set<string>();
  readonly codes: FieldCodes;

  /**
   * @param table the TOML table
   * @param prefix the table's own key, e.g. `edges[2]`; empty for a file's root table
   * @param code one code for every problem in this table (e.g. KW_ERR_TRIGGER_INVALID); default: missing/type/value codes
   */
  constructor(
    readonly table: Record<string, unknown>,
    readonly source: Source,
    readonly problems: ProblemList,
    readonly prefix = '',
    code?: ErrorCode,
  ) {
    this.codes = code === undefined ? DEFAULT_CODES : { missing: code, type: code, value: code };
  }

  /** The full key of `key` in this table, e.g. `edges[2].max_loops`. */
  keyOf(key: string): string {
    return this.prefix === '' ? key : `${this.prefix}.${key}`;
  }

  at(key: string): At {
    return this.source.at(this.keyOf(key));
  }

  has(key: string): boolean {
    return Object.hasOwn(this.table, key);
  }

  /** The raw value, marked as read. */
  raw(key: string): unknown {
    this.read.add(key);
    return this.table[key];
  }

  /** Report a bad value of `key` (code: the table's value code). */
  bad(key: string, message: string, code: ErrorCode = this.codes.value): void {
    this.problems.error(code, this.at(key), message);
  }

  string(key: string, opts: { required?: boolean; nonEmpty?: boolean } = {}): string | undefined {
    const v = this.raw(key);
    if (v === undefined) {
      if (opts.required === true) this.problems.error(this.codes.missing, this.at(key), `${key} is required`);
      return undefined;
    }
    if (typeof v !== 'string') {
      this.problems.error(this.codes.type, this.at(key), `${key} must be a string, not ${describe(v)}`);
      return undefined;
    }
    if (opts.nonEmpty === true && v.trim() === '') {
      this.problems.error(this.codes.value, this.at(key), `${key} must not be empty`);
      return undefined;
    }
    return v;
  }

  bool(key: string): boolean | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') {
      this.problems.error(this.codes.type, this.at(key), `${key} must be true or false, not ${describe(v)}`);
      return undefined;
    }
    return v;
  }

  /** A whole number at least `min`. */
  integer(key: string, min: number): number | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v !== 'number') {
      this.problems.error(this.codes.type, this.at(key), `${key} must be a whole number, not ${describe(v)}`);
      return undefined;
    }
    if (!Number.isInteger(v) || v < min) {
      this.problems.error(this.codes.value, this.at(key), `${key} must be a whole number of at least ${min}, not ${v}`);
      return undefined;
    }
    return v;
  }

  /** One of `allowed`; absent → undefined. */
  oneOf<T extends string>(key: string, allowed: readonly T[]): T | undefined {
    const v = this.string(key);
    if (v === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(v)) {
      this.problems.error(this.codes.value, this.at(key), `${key} is "${v}"; it must be one of ${allowed.map((a) => `"${a}"`).join(', ')}`);
      return undefined;
    }
    return v as T;
  }

  stringArray(key: string): string[] | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) {
      this.problems.error(this.codes.type, this.at(key), `${key} must be an array of strings, not ${describe(v)}`);
      return undefined;
    }
    const out: string[] = [];
    let ok = true;
    v.forEach((item, i) => {
      if (typeof item === 'string') out.push(item);
      else {
        ok = false;
        this.problems.error(this.codes.type, this.at(`${key}[${i}]`), `${key}[${i}] must be a string, not ${describe(item)}`);
      }
    });
    return ok ? out : undefined;
  }

  /** An array of tables (`[[key]]`); absent → []. Non-table entries are reported. */
  tables(key: string): { table: Record<string, unknown>; index: number }[] {
    const v = this.raw(key);
    if (v === undefined) return [];
    if (!Array.isArray(v)) {
      this.problems.error(this.codes.type, this.at(key), `${key} must be an array of tables ([[${key}]]), not ${describe(v)}`);
      return [];
    }
    const out: { table: Record<string, unknown>; index: number }[] = [];
    v.forEach((item, index) => {
      if (isTable(item)) out.push({ table: item, index });
      else this.problems.error(this.codes.type, this.at(`${key}[${index}]`), `${key}[${index}] must be a table, not ${describe(item)}`);
    });
    return out;
  }

  /**
   * Read whichever of a key and its alias is present (e.g. `output` / `writes`).
   * Both present is an error; returns the key to read, or undefined.
   */
  alias(key: string, alias: string): string | undefined {
    const a = this.has(key);
    const b = this.has(alias);
    if (a && b) {
      this.raw(alias);
      this.problems.error(this.codes.value, this.at(alias), `${key} and ${alias} mean the same; set only one of them`);
      return key;
    }
    if (a) return key;
    if (b) return alias;
    return undefined;
  }

  /** The keys of the table that were never read, as written. */
  unread(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(this.table)) if (!this.read.has(k)) out[k] = this.table[k];
    return out;
  }
}

export function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Names for a message: all of them when few, else the first 20 and how many more (messages stay short and cheap). */
export function someOf(names: Iterable<string>, max = 20): string {
  const shown: string[] = [];
  let more = 0;
  for (const name of names) {
    if (shown.length < max) shown.push(name);
    else more += 1;
  }
  return more === 0 ? shown.join(', ') : `${shown.join(', ')} and ${more.toLocaleString('en-US')} more`;
}

/** How a wrong value is named in a message: `a number (3)`, `an array`, … */
export function describe(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return `a string ("${v.length > 40 ? `${v.slice(0, 40)}…` : v}")`;
    case 'number':
      return `a number (${v})`;
    case 'boolean':
      return `a boolean (${v})`;
    case 'object':
      return 'a table';
    default:
      return typeof v;
  }
}
