/** The nodes sharing the run store (`GET /api/nodes`; with SQLite, one node and no hand-overs). Times are ms since the epoch, by the database's clock. */

/** A node as the `nodes` table records it. */
export interface NodeRecord {
  id: string;
  /** Host and data folder, for people. */
  name: string;
  /** Where its server answers, once it listens. */
  url: string | null;
  pid: number;
  startedAt: number;
  heartbeatAt: number;
  /** A clean stop; a node that died keeps null and its heartbeat ages. */
  stoppedAt: number | null;
  /** Steps it was running at its last heartbeat. */
  stepsRunning: number;
  /** Runs whose lease it holds now (expired ones included until another node takes them). */
  runsHeld: number;
  /** Chat turns it is running now: the chat sessions whose lease it holds (expired ones included until another node takes them over). */
  chatTurnsHeld: number;
  /** How long ago its heartbeat was, ms, by the database's clock. */
  heartbeatAgeMs: number;
}

export interface NodeView extends NodeRecord {
  /** The node answering. */
  self: boolean;
  /** Alive: a heartbeat within its lease, and no clean stop. */
  alive: boolean;
}

/** A run passed from one node to another (released: it was parked or its node stopped; expired: its node went silent). */
export interface HandoverRecord {
  runId: string;
  fromNode: string;
  toNode: string;
  epoch: number;
  at: number;
  reason: 'expired' | 'released';
}

export interface NodesView {
  store: 'sqlite' | 'postgres';
  nodes: NodeView[];
  /** The latest 100, newest first. */
  handovers: HandoverRecord[];
  /** How the answering node hears what other nodes do: at once by notification, or at its next poll (its listener is reconnecting); null: one node, or a reader that is no node. */
  wakeUps: 'notify' | 'polling' | null;
}
