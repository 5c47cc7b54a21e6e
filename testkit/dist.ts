/**
 * The built program (dist/) for the tests' child processes. A child started with
 * `--import tsx` compiles the sources it loads first (a second or more of CPU per child,
 * many seconds on a busy machine); the built files start at once. `npm test` builds first
 * when dist/ is stale (`pretest`: test/support/build-if-stale.ts). A test file run on its
 * own after an edit finds dist/ older than a source: its children then run the sources
 * through tsx, so a test never runs code older than the sources.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inheritedExecArgv } from '../steps/index.js';
import type { OwnCode } from '../steps/index.js';

/** The repository root. */
export const REPO = fileURLToPath(new URL('..', import.meta.url));
/** tsx's loader, located from here: resolves whatever folder the child runs in. */
const TSX = import.meta.resolve('tsx');

/** The folders tsconfig.build.json compiles (its `include`): what dist/ holds. */
function builtFolders(repo: string): string[] {
  const config = JSON.parse(fs.readFileSync(path.join(repo, 'tsconfig.build.json'), 'utf8')) as { include?: string[] };
  return config.include ?? [];
}

/**
 * The first source file (repository-relative) that dist/ is missing or holds an older
 * build of; undefined when dist/ is current. Compares modification times, one `stat` per
 * file (a few milliseconds for the whole tree).
 */
export function staleSource(repo: string = REPO): string | undefined {
  for (const folder of builtFolders(repo)) {
    const root = path.join(repo, folder);
    if (!fs.existsSync(root)) continue;
    for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) continue;
      const source = path.join(entry.parentPath, entry.name);
      const relative = path.relative(repo, source);
      const built = path.join(repo, 'dist', relative.replace(/\.ts$/, '.js'));
      const builtAt = fs.statSync(built, { throwIfNoEntry: false })?.mtimeMs;
      if (builtAt === undefined || builtAt < fs.statSync(source).mtimeMs) return relative;
    }
  }
  return undefined;
}

let current: boolean | undefined;

/** Whether dist/ is current (checked once per test process). */
function distIsCurrent(): boolean {
  current ??= staleSource() === undefined;
  return current;
}

/**
 * The arguments after `node` that run the program whose source is `source`
 * (repository-relative, e.g. `bin/kowalski.ts`, or absolute): its built file when
 * tsconfig.build.json compiles it and dist/ is current, else the source through tsx.
 */
export function nodeArgsFor(source: string): string[] {
  const relative = path.isAbsolute(source) ? path.relative(REPO, source) : source;
  const built = builtFolders(REPO).includes(relative.split(path.sep)[0]!);
  if (built && distIsCurrent()) return [path.join(REPO, 'dist', relative.replace(/\.ts$/, '.js'))];
  return ['--import', TSX, path.join(REPO, relative)];
}

/** The arguments after `node` that run the kowalski CLI. */
export const cliArgs = (): string[] => nodeArgsFor('bin/kowalski.ts');

/**
 * A module of the program or of testkit/, given by its source (repository-relative or
 * absolute): its built file when tsconfig.build.json compiles it and dist/ is current, else
 * the source (the test kinds of testkit/kinds/, loaded by step threads).
 */
export function moduleFor(source: string): string {
  const args = nodeArgsFor(source);
  return args[args.length - 1]!;
}

/** An `--import`, `--require` or `--loader` of tsx, in either of Node's spellings. */
function isTsxLoader(args: readonly string[], i: number): { skip: number } | undefined {
  const arg = args[i]!;
  if (/^--(import|require|loader|experimental-loader)=.*tsx/.test(arg)) return { skip: 1 };
  if (/^--(import|require|loader|experimental-loader)$/.test(arg) && /tsx/.test(args[i + 1] ?? '')) return { skip: 2 };
  return undefined;
}

/**
 * Where an engine made in a test process finds its step threads', step children's, spawn
 * helper's and data tool server's modules: dist/ when it is current, started without tsx, so
 * no thread or child compiles TypeScript again (each step thread under tsx also runs a hooks
 * thread: a third of engine.runs.test.ts's CPU). Undefined when dist/ is stale: the engine's
 * default, the sources through tsx.
 */
export function testOwnCode(): OwnCode | undefined {
  // Built itself (a benchmark, a crash harness run from dist/): the engine's default is dist/ already.
  if (import.meta.url.endsWith('.js') || !distIsCurrent()) return undefined;
  const inherited = inheritedExecArgv();
  const execArgv: string[] = [];
  for (let i = 0; i < inherited.length;) {
    const tsx = isTsxLoader(inherited, i);
    if (tsx === undefined) execArgv.push(inherited[i]!);
    i += tsx?.skip ?? 1;
  }
  return {
    file: (fromRootNoExt) => path.join(REPO, 'dist', `${fromRootNoExt}.js`),
    execArgv,
  };
}

/** sync-pg.worker as testOwnCode() has it: openSyncPg's `module` for a connection a test opens itself (undefined when dist/ is stale). */
export function testSyncPgModule(): { file: string; execArgv: readonly string[] } | undefined {
  const code = testOwnCode();
  return code === undefined ? undefined : { file: code.file('engine/store/pg/sync-pg.worker'), execArgv: code.execArgv };
}
