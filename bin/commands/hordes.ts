/** `hordes` and `validate`. */
import path from 'node:path';
import { builtinKindNames, catalogOf, countProblems, formatProblems, loadHorde } from '../../engine/index.js';
import { EXIT, dataDir } from './common.js';

export async function hordesCommand(opts: { json?: boolean }): Promise<number> {
  const catalog = await catalogOf({ dataDir: dataDir() });
  if (opts.json === true) {
    process.stdout.write(`${JSON.stringify(catalog.entries.map((e) => ({
      id: e.id, origin: e.origin, dir: e.dir, valid: e.result.ok,
      ...(e.result.ok ? { displayName: e.result.horde.displayName, description: e.result.horde.description, pipeline: e.result.horde.pipeline } : { problems: e.result.problems }),
    })))}\n`);
    return EXIT.ok;
  }
  for (const e of catalog.entries) {
    if (e.result.ok) {
      const about = e.result.horde.description.split('\n')[0] ?? '';
      process.stdout.write(`${e.id.padEnd(24)} ${e.origin.padEnd(8)} ${e.result.horde.pipeline.join(' → ')}\n${about === '' ? '' : `    ${about}\n`}`);
    }
    else process.stdout.write(`${e.id.padEnd(24)} ${e.origin.padEnd(8)} INVALID (${e.dir}):\n${formatProblems(e.result.problems).replace(/^/gm, '    ')}\n`);
  }
  if (catalog.entries.length === 0) process.stdout.write(`no hordes found in ${catalog.builtinDir ?? '?'} or ${catalog.userDir ?? '?'}\n`);
  return EXIT.ok;
}

export async function validateCommand(folder: string, opts: { json?: boolean }): Promise<number> {
  const result = await loadHorde(path.resolve(folder), { knownKinds: builtinKindNames() });
  const problems = result.ok ? result.warnings : result.problems;
  if (opts.json === true) process.stdout.write(`${JSON.stringify({ valid: result.ok, ...(result.ok ? { id: result.horde.id, hash: result.horde.hash } : {}), problems })}\n`);
  else {
    if (problems.length > 0) process.stdout.write(`${formatProblems(problems)}\n`);
    process.stdout.write(result.ok ? `${folder}: valid horde "${result.horde.id}" (${result.horde.pipeline.length} steps)\n` : `${folder}: ${countProblems(problems).errors} error(s)\n`);
  }
  return result.ok ? EXIT.ok : EXIT.usage;
}
