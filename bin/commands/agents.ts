/** `agents`: the agent profiles in effect (the built-in ones and `<data>/team/`), and every profile file's problems. */
import { formatTeamProblems, readTeam } from '../../engine/index.js';
import type { AgentProfile } from '../../engine/index.js';
import { EXIT, dataDir } from './common.js';

const HEAD = ['NAME', 'ORIGIN', 'MODEL', 'TOOLS', 'MAX ITER', 'DESCRIPTION'] as const;

function row(p: AgentProfile): string[] {
  return [
    p.name, p.origin, p.model ?? '(default)',
    p.tools === undefined ? '(all)' : p.tools.length === 0 ? '(none)' : p.tools.join(', '),
    p.maxIterations === undefined ? '(default)' : String(p.maxIterations),
    p.description.split('\n')[0] ?? '',
  ];
}

/** Columns padded to their widest cell; the last one (the description) left as it is. */
function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** Exit 1 when any profile file has a problem (the profiles in effect are listed all the same). */
export async function agentsCommand(opts: { json?: boolean }): Promise<number> {
  const team = await readTeam(dataDir());
  const { profiles, problems } = team.catalog();
  if (opts.json === true) process.stdout.write(`${JSON.stringify({ agents: profiles, problems })}\n`);
  else {
    process.stdout.write(`${table([[...HEAD], ...profiles.map(row)])}\n`);
    if (problems.length > 0) process.stdout.write(`\n${problems.length} problem(s) in the profile files:\n${formatTeamProblems(problems)}\n`);
  }
  return problems.length > 0 ? EXIT.failed : EXIT.ok;
}
