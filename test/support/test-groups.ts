/**
 * The suite's test files in groups that share a process. node --test starts a process per
 * file, and each start loads tsx's hooks and the whole engine again (about 1.5 s of CPU per
 * file here, on a suite that keeps both cores busy). Each file of test/groups/ runs one
 * group in its one process: `<family>-<n>.test.ts` imports its share of the family's files
 * (in name order, round robin over the family's group files).
 *
 * - `unit`: test/unit/ (as `npm run test:unit`, but beside the other files, not before them);
 * - `shared`: the files of test/integration/ and test/crash/ that change nothing process-wide
 *   at their top level (or in the file they import, for a wrapper);
 * - `postgres`: the wrappers whose one process-wide change is KOWALSKI_TEST_STORE=postgres
 *   (the `pg.*` files that run a test file again on Postgres): the same change for all.
 *
 * - `e2e`: the files of test/e2e/ that change nothing process-wide (they share one chromium).
 *
 * Any other file (a top-level `process.env.X = …`, `process.on(…)`, `process.chdir(…)`; the
 * file of test/install/) keeps a process of its own.
 * `node --import tsx test/support/test-groups.ts` prints what `npm test` gives node --test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const TEST = fileURLToPath(new URL('..', import.meta.url));
const GROUPS = path.join(TEST, 'groups');
/** A top-level statement that reaches every file imported after it. */
const PROCESS_WIDE = /^(?:delete )?process\.(?:env\b|on\(|once\(|chdir\(|umask\().*$/gm;
const POSTGRES_SWITCH = "process.env.KOWALSKI_TEST_STORE = 'postgres';";
/** A wrapper's import of the file it runs again. */
const WRAPPED = /^await import\('(\.\/[^']+)\.js'\);$/m;

interface Family {
  folders: string[];
  takes(file: string): boolean;
}

/** The top-level process-wide statements of a file and of the file it wraps. */
function processWide(file: string): string[] {
  const source = fs.readFileSync(file, 'utf8');
  const own = source.match(PROCESS_WIDE) ?? [];
  const wrapped = WRAPPED.exec(source)?.[1];
  return wrapped === undefined ? own : [...own, ...processWide(path.resolve(path.dirname(file), `${wrapped}.ts`))];
}

const FAMILIES: Record<string, Family> = {
  unit: { folders: ['unit'], takes: () => true },
  postgres: {
    folders: ['integration', 'crash'],
    takes: (f) => {
      const wide = processWide(f);
      return wide.length > 0 && wide.every((s) => s === POSTGRES_SWITCH);
    },
  },
  shared: { folders: ['integration', 'crash'], takes: (f) => processWide(f).length === 0 },
  e2e: { folders: ['e2e'], takes: (f) => processWide(f).length === 0 },
};

/** The `*.test.ts` files under `folder`, sorted. */
export function testFiles(folder: string): string[] {
  return fs.readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.join(folder, f))
    .sort();
}

/** The family's files. */
const filesOf = (family: Family): string[] => family.folders.flatMap((folder) => testFiles(path.join(TEST, folder))).filter((f) => family.takes(f));

/** The family's group files (test/groups/<family>-*.test.ts), sorted. */
const groupsOf = (name: string): string[] => testFiles(GROUPS).filter((f) => path.basename(f).startsWith(`${name}-`));

/** The files the group file `groupFile` runs. */
export function membersOf(groupFile: string): string[] {
  const file = path.resolve(groupFile.startsWith('file:') ? fileURLToPath(groupFile) : groupFile);
  const name = path.basename(file).replace(/-[^-]*$/, '');
  const family = FAMILIES[name];
  const groups = groupsOf(name);
  const index = groups.indexOf(file);
  if (family === undefined || index < 0) throw new Error(`${file} is not a group file of ${GROUPS} (<${Object.keys(FAMILIES).join('|')}>-<n>.test.ts)`);
  return filesOf(family).filter((_, i) => i % groups.length === index);
}

/** Import (so run) the files of the group file whose import.meta.url is `groupFile`. */
export async function runGroup(groupFile: string): Promise<void> {
  for (const file of membersOf(groupFile)) await import(pathToFileURL(file).href);
}

/** What node --test runs for the whole suite: the group files, then every file in none. */
export function suiteEntries(): string[] {
  const grouped = new Set(Object.values(FAMILIES).flatMap(filesOf));
  const others = fs.readdirSync(TEST, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'groups')
    .flatMap((d) => testFiles(path.join(TEST, d.name)))
    .filter((f) => !grouped.has(f));
  return [...testFiles(GROUPS), ...others].map((f) => path.relative(process.cwd(), f));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  process.stdout.write(`${suiteEntries().join('\n')}\n`);
}
