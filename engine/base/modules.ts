/** Locate files that ship with kowalski, from sources under tsx (.ts) and from dist/ (.js) alike. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { threadExecArgv } from '../../steps/own-code.js';

/** The path of a module next to `metaUrl`, with the caller's own extension. */
export function siblingModule(metaUrl: string, base: string): string {
  const ext = metaUrl.endsWith('.ts') ? '.ts' : '.js';
  return fileURLToPath(new URL(`./${base}${ext}`, metaUrl));
}

/** The folder holding kowalski's package.json (the project root in development, the package when installed). */
export function packageRoot(metaUrl: string): string {
  let dir = path.dirname(fileURLToPath(metaUrl));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'hordes'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`kowalski's package folder was not found above ${fileURLToPath(metaUrl)}`);
    dir = up;
  }
}

/** kowalski's version, from its package.json. */
export function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(packageRoot(import.meta.url), 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * A thread's or child process's module and the Node flags it starts with, when the engine
 * was told where its own code is (EngineOptions.ownCode: the tests' built dist/, started
 * without tsx). Absent, each starts `base` beside its caller (workerEntry, siblingModule).
 */
export interface ModuleToRun {
  file: string;
  execArgv: readonly string[];
}

/** A worker thread's entry and its Node flags: `module` when given, else `base` beside `metaUrl` (workerEntry). */
export function workerOf(metaUrl: string, base: string, module?: ModuleToRun): { entry: string | URL; options: { execArgv?: string[] } } {
  if (module === undefined) return { entry: workerEntry(metaUrl, base), options: {} };
  return { entry: module.file, options: { execArgv: threadExecArgv(module.execArgv) } };
}

/**
 * A worker thread entry for the module `base` next to `metaUrl`. From dist/ it is the
 * .js file itself; from the TypeScript sources (tests, development) a small data: module
 * first registers tsx in the new thread, which Node 20 does not do for plain workers.
 */
export function workerEntry(metaUrl: string, base: string): string | URL {
  const file = siblingModule(metaUrl, base);
  if (!file.endsWith('.ts')) return file;
  const api = import.meta.resolve('tsx/esm/api');
  const code = `const { register } = await import(${JSON.stringify(api)}); register(); await import(${JSON.stringify(pathToFileURL(file).href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}
