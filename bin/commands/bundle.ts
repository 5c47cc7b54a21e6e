/**
 * `bundle export` and `bundle import`: a horde as a `.kwf.zip`, and a bundle reviewed
 * (everything it will ask to run shown first) then installed into the data directory's
 * hordes/. Neither needs the engine: export reads a folder, import writes one — a running
 * server picks the new folder up by itself.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import { DEFAULT_BUNDLE_LIMITS, discardBundle, exportBundle, installBundle, printable, reviewBundle } from '../../bundles/index.js';
import type { BundleReport, Installed } from '../../bundles/index.js';
import { builtinKindNames, findHorde, writeFileAtomic } from '../../engine/index.js';
import { EXIT, dataDir } from './common.js';
import { progressLine } from './progress-line.js';

export async function bundleExportCommand(ref: string, opts: { output?: string; force?: boolean; json?: boolean }): Promise<number> {
  const { horde } = await findHorde(ref, { dataDir: dataDir() });
  const bytes = await exportBundle(horde.dir, horde.id, { knownKinds: builtinKindNames() });
  const file = path.resolve(opts.output ?? `${horde.id}.kwf.zip`);
  if (opts.force === true) writeFileAtomic(file, bytes);
  else {
    await fs.writeFile(file, bytes, { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST') throw new KowalskiError('KW_ERR_USAGE', `${file} already exists: choose another file with -o, or overwrite it with --force`);
      throw err;
    });
  }
  if (opts.json === true) process.stdout.write(`${JSON.stringify({ hordeId: horde.id, file, bytes: bytes.length })}\n`);
  else process.stdout.write(`exported horde "${horde.id}" to ${file} (${bytes.length} bytes)\n`);
  return EXIT.ok;
}

/** The review, as a person reads it before anything is installed. Every text from the bundle goes through `printable`. */
function printReport(file: string, report: BundleReport): void {
  const p = printable;
  const h = report.horde;
  const out: string[] = [`bundle ${file}: horde "${p(h.id)}" (${p(h.displayName)}), ${h.steps.length} step${h.steps.length === 1 ? '' : 's'}`];
  if (h.description !== '') out.push(`  ${p(h.description.split('\n')[0] ?? '')}`);
  out.push('steps:');
  for (const s of h.steps) {
    const details = [s.kind, ...(s.model === undefined ? [] : [`model ${s.model}`]), ...(s.tools.length === 0 ? [] : [`tools ${s.tools.join(', ')}`])];
    out.push(`  ${p(s.name)} (${p(details.join('; '))})${s.command === undefined ? '' : `\n      runs: ${p(s.command)}`}${s.reaches === undefined ? '' : `\n      ${p(s.reaches)} (asks for your approval each run)`}`);
  }
  out.push(report.commands.length === 0 ? 'commands it will ask to run: none' : `commands it will ask to run${h.confirmCommands ? ' (each asks for your approval first)' : ''}:`);
  for (const c of report.commands) out.push(`  ${p(c)}`);
  if (!h.confirmCommands && report.commands.length > 0) out.push('  WARNING: horde.md sets confirm_commands = false: these commands run WITHOUT asking');
  out.push(`tools: ${report.tools.length === 0 ? 'none' : p(report.tools.join(', '))}`);
  out.push(`MCP servers: ${report.mcpServers.length === 0 ? 'none' : `${p(report.mcpServers.join(', '))} (a bundle installs none: configure them in config.toml)`}`);
  out.push(h.triggers.length === 0 ? 'triggers: none' : 'triggers (they arrive switched off; enable them with `kowalski triggers enable <horde>/<trigger>`):');
  for (const t of h.triggers) out.push(`  ${p(t.name)} (${t.kind}${t.schedule === undefined ? '' : ` ${p(t.schedule)}`}${t.path === undefined ? '' : ` ${p(t.path)}`})`);
  if (report.warnings.length > 0) {
    out.push('warnings:');
    for (const w of report.warnings) out.push(`  ${p(w.file)}: ${w.key === undefined ? '' : `${p(w.key)}: `}${p(w.message)} [${w.code}]`);
  }
  if (report.existing !== null) out.push(`the id "${p(report.existing.hordeId)}" is taken (${report.existing.origin} horde)`);
  process.stdout.write(`${out.join('\n')}\n`);
}

export async function bundleImportCommand(file: string, opts: { id?: string; replace?: boolean; dryRun?: boolean; json?: boolean }): Promise<number> {
  const abs = path.resolve(file);
  const size = (await fs.stat(abs).catch(() => {
    throw new KowalskiError('KW_ERR_USAGE', `${abs} does not exist or cannot be read`);
  })).size;
  if (size > DEFAULT_BUNDLE_LIMITS.maxBundleBytes) throw new KowalskiError('KW_ERR_BUNDLE_INVALID', `bundle refused: ${abs} is ${size} bytes; a bundle may be at most ${DEFAULT_BUNDLE_LIMITS.maxBundleBytes}; nothing was written`);
  const line = progressLine('import', { json: opts.json === true });
  let staged;
  try {
    staged = await reviewBundle(await fs.readFile(abs), { dataDir: dataDir(), knownKinds: builtinKindNames() }, line.report);
  } finally {
    line.end();
  }
  try {
    if (opts.json !== true) printReport(abs, staged.report);
    let installed: Installed | null = null;
    if (opts.dryRun !== true) {
      installed = await installBundle(staged, { ...(opts.id === undefined ? {} : { id: opts.id }), ...(opts.replace === true ? { replace: true } : {}) });
    }
    if (opts.json === true) process.stdout.write(`${JSON.stringify({ ...staged.report, sha256: staged.sha256, installed })}\n`);
    else if (installed === null) process.stdout.write('dry run: nothing was installed\n');
    else {
      const replaced = installed.replaced.length === 0 ? '' : `, replacing the horde in ${installed.replaced.join(', ')}`;
      process.stdout.write(`installed "${installed.hordeId}" in ${installed.dir} (imported: its steps run in a separate process, its triggers are off)${replaced}\n`);
    }
    return EXIT.ok;
  } finally {
    await discardBundle(staged);
  }
}
