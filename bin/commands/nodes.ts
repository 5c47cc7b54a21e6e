/**
 * `nodes`: the nodes sharing the run store — each one's heartbeat, whether it is alive,
 * stopped or silent, the runs it holds, the steps and chat turns it runs — and the latest hand-overs of
 * runs between them. From the server that owns the data directory; with none, read from
 * the Postgres store without becoming a node (docs/api.md, `GET /api/nodes`).
 */
import type { NodeView, NodesView } from '../../engine/index.js';
import { readNodes } from '../../engine/index.js';
import { EXIT, dataDir } from './common.js';
import { findServer } from './remote.js';

/** The handovers printed under the table (`--json` has all the server sends). */
const HANDOVERS_PRINTED = 10;

/** Alive, stopped cleanly, or silent: no clean stop and no heartbeat within its lease (it died or is cut off). */
export function nodeState(n: NodeView): 'alive' | 'stopped' | 'silent' {
  if (n.alive) return 'alive';
  return n.stoppedAt === null ? 'silent' : 'stopped';
}

/** "0.4 s ago", "12 s ago", "3 min ago", "5 h ago". */
export function ago(ms: number): string {
  if (ms < 10_000) return `${(Math.max(0, ms) / 1000).toFixed(1)} s ago`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s ago`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min ago`;
  return `${Math.round(ms / 3_600_000)} h ago`;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n');
}

export function formatNodes(view: NodesView, where: string): string {
  if (view.nodes.length === 0) {
    return view.store === 'sqlite'
      ? `no kowalski server answers for ${where}: with the SQLite store the only node is the server that owns the data folder (start it with \`kowalski serve\`)\n`
      : `no node has started on this Postgres store yet (${where})\n`;
  }
  const head = ['', 'node', 'name', 'url', 'state', 'heartbeat', 'runs', 'steps', 'chat turns'];
  const rows = view.nodes.map((n) => [n.self ? '*' : '', n.id, n.name, n.url ?? '-', nodeState(n), ago(n.heartbeatAgeMs), String(n.runsHeld), String(n.stepsRunning), String(n.chatTurnsHeld)]);
  const lines = [`store: ${view.store}, ${where}`, table([head, ...rows])];
  if (view.nodes.some((n) => n.self)) lines.push('* this node (the one that answered)');
  if (view.store === 'postgres') {
    const shown = view.handovers.slice(0, HANDOVERS_PRINTED);
    lines.push('', shown.length === 0 ? 'no run has been handed from one node to another' : `hand-overs, newest first${view.handovers.length > shown.length ? ` (latest ${shown.length} of ${view.handovers.length}; --json for all)` : ''}:`);
    if (shown.length > 0) lines.push(table(shown.map((h) => ['', h.runId, `${h.fromNode} → ${h.toNode}`, `epoch ${h.epoch}`, h.reason, new Date(h.at).toISOString()])));
  }
  return `${lines.join('\n')}\n`;
}

export async function nodesCommand(opts: { json?: boolean }): Promise<number> {
  const dir = dataDir();
  const lookup = await findServer(dir);
  let view: NodesView;
  let where: string;
  if (lookup.kind === 'server') {
    view = await lookup.api.request<NodesView>('GET', 'api/nodes');
    where = `as the server at ${lookup.api.server.url} sees them`;
  } else {
    view = readNodes(dir);
    where = view.store === 'sqlite' ? dir : 'read from the database (no server answers for this data folder)';
  }
  process.stdout.write(opts.json === true ? `${JSON.stringify(view)}\n` : formatNodes(view, where));
  return EXIT.ok;
}
