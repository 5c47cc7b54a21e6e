/**
 * `[[triggers]]` of horde.md: parsed and checked here; firing them is the engine's job.
 * Every problem is KW_ERR_TRIGGER_INVALID with its key, e.g. `triggers[1].schedule`.
 */
import { ENV_NAME } from '../../core/index.js';
import type { CatchUp, Overlap, TriggerDef, TriggerKind } from '../../core/index.js';
import { globProblem } from '../triggers/glob.js';
import { Fields, isTable, describe, someOf } from './fields.js';

export const TRIGGER_NAME = /^[a-z0-9][a-z0-9_-]*$/;
const KINDS: readonly TriggerKind[] = ['cron', 'watch', 'webhook'];
const CATCH_UP: readonly CatchUp[] = ['skip', 'once', 'all'];
const OVERLAP: readonly Overlap[] = ['skip', 'queue_one', 'parallel'];
/** Keys that belong to one kind only. */
const KIND_KEYS: Record<TriggerKind, readonly string[]> = {
  cron: ['schedule', 'timezone', 'catch_up'],
  watch: ['path', 'globs', 'debounce_ms'],
  webhook: ['secret_env'],
};
/** Default `debounce_ms` of a watch trigger. */
export const DEFAULT_DEBOUNCE_MS = 2000;

const CRON_NAMES = /(JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC|MON|TUE|WED|THU|FRI|SAT|SUN)/gi;
const CRON_CHARS = /^[0-9*,\-/?L#]+$/;

/** Check a cron schedule's shape: 5 or 6 fields of cron characters. Returns a reason, or undefined when fine. */
export function cronProblem(schedule: string): string | undefined {
  const fields = schedule.trim().split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5 && fields.length !== 6) {
    return `schedule "${schedule}" has ${fields.length} fields; a cron schedule has 5 (minute hour day month weekday) or 6 (with seconds first)`;
  }
  const badField = fields.find((f) => !CRON_CHARS.test(f.replace(CRON_NAMES, '0')));
  if (badField !== undefined) {
    return `schedule field "${badField}" holds characters a cron field cannot: use digits, * , - / ? L # and names like MON or JAN (W, the nearest weekday, is not supported)`;
  }
  return undefined;
}

/** A problem with an IANA time zone name per Intl, or undefined when it is known. */
export function timezoneProblem(zone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return undefined;
  } catch {
    return `timezone "${zone}" is not a time zone this system knows (use an IANA name such as "Europe/Warsaw")`;
  }
}

/**
 * Read `[[triggers]]` from horde.md's root table.
 * @param declaredInputs the ids of the horde's form, which `input` keys must name
 *   (undefined when the form is not known because a step has errors: not checked then)
 */
export function readTriggers(horde: Fields, declaredInputs: ReadonlySet<string> | undefined): TriggerDef[] {
  const out: TriggerDef[] = [];
  const names = new Map<string, number>();
  for (const { table, index } of horde.tables('triggers')) {
    const f = new Fields(table, horde.source, horde.problems, `triggers[${index}]`, 'KW_ERR_TRIGGER_INVALID');
    const before = f.problems.items.length;
    const name = f.string('name', { required: true });
    if (name !== undefined) {
      if (!TRIGGER_NAME.test(name)) f.bad('name', `trigger name "${name}" must be lower-case letters, digits, _ or -, starting with a letter or digit`);
      else if (names.has(name)) f.bad('name', `trigger name "${name}" is used twice (also triggers[${names.get(name) ?? 0}])`);
      else names.set(name, index);
    }
    const kind = f.has('kind') ? f.oneOf('kind', KINDS) : undefined;
    if (!f.has('kind')) f.bad('kind', 'kind is required: "cron", "watch" or "webhook"');
    const enabled = f.bool('enabled') ?? true;
    const overlap = f.oneOf('overlap', OVERLAP) ?? 'skip';
    const input = readTriggerInput(f, declaredInputs);
    const def: TriggerDef = { name: name ?? '', kind: kind ?? 'cron', enabled, overlap, input, extra: {} };
    if (kind !== undefined) {
      for (const other of KINDS.filter((k) => k !== kind)) {
        for (const key of KIND_KEYS[other]) {
          if (f.has(key)) {
            f.raw(key);
            f.bad(key, `${key} is for ${other} triggers; this trigger is ${kind}`);
          }
        }
      }
      readKindKeys(f, kind, def);
    }
    def.extra = f.unread();
    if (f.problems.items.length === before) out.push(def);
  }
  return out;
}

function readKindKeys(f: Fields, kind: TriggerKind, def: TriggerDef): void {
  switch (kind) {
    case 'cron': {
      const schedule = f.string('schedule', { required: true });
      if (schedule !== undefined) {
        const why = cronProblem(schedule);
        if (why === undefined) def.schedule = schedule.trim();
        else f.bad('schedule', why);
      }
      const zone = f.string('timezone', { nonEmpty: true });
      if (zone !== undefined) {
        const why = timezoneProblem(zone);
        if (why === undefined) def.timezone = zone;
        else f.bad('timezone', why);
      }
      def.catchUp = f.oneOf('catch_up', CATCH_UP) ?? 'once';
      return;
    }
    case 'watch': {
      const p = f.string('path', { required: true, nonEmpty: true });
      if (p !== undefined) def.path = p;
      const globs = f.stringArray('globs');
      if (globs !== undefined) {
        const bad = globs.map((g, i) => [i, globProblem(g)] as const).filter(([, why]) => why !== undefined);
        for (const [i, why] of bad) f.bad(`globs[${i}]`, `globs[${i}]: ${why}`);
        if (bad.length === 0) def.globs = globs;
      }
      def.debounceMs = f.integer('debounce_ms', 0) ?? DEFAULT_DEBOUNCE_MS;
      return;
    }
    case 'webhook': {
      const env = f.string('secret_env');
      if (env !== undefined) {
        if (ENV_NAME.test(env)) def.secretEnv = env;
        else f.bad('secret_env', `secret_env "${env}" is not an environment variable name (letters, digits and _, not starting with a digit)`);
      }
      return;
    }
    default: {
      const never: never = kind;
      throw new Error(`unhandled trigger kind ${String(never)}`);
    }
  }
}

function readTriggerInput(f: Fields, declared: ReadonlySet<string> | undefined): Record<string, string> {
  const known = declared === undefined || declared.size === 0 ? 'the horde declares no inputs' : `declared inputs: ${someOf(declared)}`;
  const raw = f.raw('input');
  const out: Record<string, string> = {};
  if (raw === undefined) return out;
  if (!isTable(raw)) {
    f.bad('input', `input must be a table of form answers, e.g. input = { question = "…" }, not ${describe(raw)}`);
    return out;
  }
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value !== 'string') {
      f.bad(`input.${key}`, `input.${key} must be a string, not ${describe(value)}`);
    } else if (declared !== undefined && !declared.has(key)) {
      f.bad(`input.${key}`, `input.${key} is not an input of this horde (${known})`);
    } else {
      out[key] = value;
    }
  }
  return out;
}
