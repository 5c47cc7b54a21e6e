/** What the Nodes view and `kowalski nodes` show: the nodes sharing the store, and runs handed from one to another. */
import type { PostgresBackend } from '../store/pg/backend.js';
import type { PgNodes } from '../store/pg/nodes.js';
import type { NodesView } from '../../contract/nodes.js';
export type { NodeView, NodesView } from '../../contract/nodes.js';

/** Nodes that stopped or went silent more than a day ago are left out. */
const FORGET_AFTER_MS = 24 * 3600 * 1000;
const HANDOVERS_SHOWN = 100;

/**
 * `self.url`: where this engine's server answers, once announced (null: no server said so yet);
 * `self.listening`: whether its Postgres LISTEN connection is up (SQLite has none: one node, nothing to hear).
 */
export function nodesView(postgres: PostgresBackend | undefined, self: { pid: number; startedAt: number; now: number; runningSteps: number; liveRuns: number; chatTurns: number; listening: boolean; url: string | null }): NodesView {
  if (postgres === undefined) {
    const now = self.now;
    return {
      store: 'sqlite',
      nodes: [{ id: 'local', name: 'this process', url: self.url, pid: self.pid, startedAt: self.startedAt, heartbeatAt: now, stoppedAt: null, stepsRunning: self.runningSteps, runsHeld: self.liveRuns, chatTurnsHeld: self.chatTurns, heartbeatAgeMs: 0, self: true, alive: true }],
      handovers: [],
      wakeUps: null,
    };
  }
  return { ...postgresNodesView(postgres.nodes, postgres.leases.ttlMs, { id: postgres.nodeId, stepsRunning: self.runningSteps }), wakeUps: self.listening ? 'notify' : 'polling' };
}

/**
 * The nodes of a Postgres store as the table says; `self` (the node answering, with its
 * steps as of now rather than its last heartbeat) is absent for a reader that is no node.
 */
export function postgresNodesView(nodes: PgNodes, ttlMs: number, self?: { id: string; stepsRunning: number }, chatLeases = true): NodesView {
  return {
    store: 'postgres',
    nodes: nodes.list(FORGET_AFTER_MS, chatLeases).map((n) => ({
      ...n,
      self: n.id === self?.id,
      alive: n.stoppedAt === null && n.heartbeatAgeMs < ttlMs,
      // The answering node's steps as of now; a node that stopped cleanly runs none, whatever its last heartbeat said.
      ...(n.id === self?.id ? { stepsRunning: self.stepsRunning } : n.stoppedAt !== null ? { stepsRunning: 0 } : {}),
    })),
    handovers: nodes.handovers(HANDOVERS_SHOWN),
    wakeUps: null,
  };
}
