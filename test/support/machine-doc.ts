/**
 * A machine's statement in Markdown: a Mermaid state diagram and a table of every state's
 * accepted events with their guards, targets and actions, read from the machine itself
 * (so docs/run-machine.md cannot drift from actors/run.machine.ts).
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';

interface Row {
  state: string;
  event: string;
  guard: string;
  target: string;
  actions: string;
}

function nameOf(x: unknown): string {
  if (typeof x === 'string') return x;
  if (x !== null && typeof x === 'object' && 'type' in x) return String((x as { type: unknown }).type);
  return '';
}

function rowsOf(node: AnyStateNode): Row[] {
  const rows: Row[] = [];
  for (const [event, transitions] of node.transitions) {
    for (const t of transitions) {
      rows.push({
        state: node.key,
        event,
        guard: nameOf(t.guard),
        target: t.target?.map((n: AnyStateNode) => n.key).join(', ') ?? `(stays ${node.key})`,
        actions: t.actions.map(nameOf).filter((a: string) => a !== '').join('; '),
      });
    }
  }
  for (const t of node.always ?? []) {
    rows.push({ state: node.key, event: '(always)', guard: nameOf(t.guard) || 'otherwise', target: t.target?.map((n: AnyStateNode) => n.key).join(', ') ?? '', actions: '' });
  }
  return rows;
}

const cell = (text: string): string => text.replaceAll('|', '\\|');

export function machineMarkdown(machine: AnyStateMachine, title: string, intro: string): string {
  const nodes = Object.values(machine.root.states) as AnyStateNode[];
  const lines: string[] = [`# ${title}`, '', intro, '', '```mermaid', 'stateDiagram-v2', `  [*] --> ${String(machine.root.config.initial)}`];
  for (const node of nodes) {
    if (node.type === 'final') lines.push(`  ${node.key} --> [*]`);
    const seen = new Set<string>();
    for (const r of rowsOf(node)) {
      if (r.target.startsWith('(stays')) continue;
      for (const target of r.target.split(', ')) {
        const label = r.event === '(always)' ? r.guard : r.event;
        const key = `${target} ${label}`;
        if (seen.has(key)) continue;
        seen.add(key);
        lines.push(`  ${node.key} --> ${target}: ${label}`);
      }
    }
  }
  lines.push('```', '', '| state | event | accepted when | goes to | does |', '|---|---|---|---|---|');
  for (const node of nodes) {
    const rows = rowsOf(node);
    if (rows.length === 0) lines.push(`| ${node.key} | — | ${node.type === 'final' ? 'final: every event is refused' : ''} | | |`);
    for (const r of rows) lines.push(`| ${r.state} | \`${r.event}\` | ${cell(r.guard || 'always')} | ${cell(r.target)} | ${cell(r.actions)} |`);
  }
  lines.push('', 'An event a state does not list, or whose guard does not hold, is refused: the engine reports the log as diverged (`KW_ERR_REPLAY_DIVERGED`) or the operation as not possible now.', '');
  return lines.join('\n');
}
