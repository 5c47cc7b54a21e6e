/**
 * `node dist/bench/profile-summary.js FILE.cpuprofile [--steps=N] [--top=N]`: the self
 * time of a V8 CPU profile summed per function and per file (node_modules grouped by
 * package, Node's own code as `node:`), in µs per step when `--steps` is given.
 */
import fs from 'node:fs';
import { numberOption } from './args.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** `better-sqlite3`, `node:internal/…`, or the project's file under its root. */
function fileOf(url: string): string {
  if (url === '') return '(native / idle / gc)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length).split('/').slice(0, url.includes('node_modules/@') ? 2 : 1).join('/');
  if (url.startsWith('node:')) return url;
  const m = /\/(?:dist\/)?((?:actors|engine|steps|core|bench|agents|api|bundles)\/.*)$/.exec(url);
  return m?.[1] ?? url;
}

function table(title: string, totals: Map<string, number>, per: number, top: number): string {
  const rows = [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  const unit = per === 1 ? 'ms' : 'µs/step';
  const scale = per === 1 ? (us: number) => us / 1000 : (us: number) => us / per;
  return [`| ${title} | ${unit} |`, '|---|---:|', ...rows.map(([k, us]) => `| ${k} | ${scale(us).toFixed(1)} |`)].join('\n');
}

const file = process.argv.slice(2).find((a) => !a.startsWith('--'));
if (file === undefined) throw new Error('usage: profile-summary FILE.cpuprofile [--steps=N] [--top=N]');
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const steps = numberOption('steps', 1);
const top = numberOption('top', 25);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
profile.samples.forEach((id, i) => {
  const node = byId.get(id)!;
  const dt = profile.timeDeltas[i] ?? 0;
  const { functionName, url, lineNumber } = node.callFrame;
  if (functionName === '(idle)' || functionName === '(program)') return;
  const where = fileOf(url);
  const fn = `${functionName || '(anonymous)'} ${where}${url === '' ? '' : `:${lineNumber + 1}`}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + dt);
  byFile.set(where, (byFile.get(where) ?? 0) + dt);
});
const busy = [...byFile.values()].reduce((a, b) => a + b, 0);
process.stdout.write(`busy (not idle, not "program"): ${(steps === 1 ? busy / 1000 : busy / steps).toFixed(1)} ${steps === 1 ? 'ms' : 'µs/step'}\n\n`);
process.stdout.write(`${table('self time by file', byFile, steps, top)}\n\n${table('self time by function', byFunction, steps, top)}\n`);
