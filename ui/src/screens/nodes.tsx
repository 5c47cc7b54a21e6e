/**
 * `#/nodes`: the kowalski processes sharing the run store — each one's address, whether it
 * is alive, stopped or silent, its heartbeat's age, the runs it holds, the steps and chat turns it runs,
 * the one answering marked — and the latest runs handed from one node to another. With
 * SQLite, this server alone. Read again every few seconds while shown: heartbeats age
 * between events, so there is no websocket signal to wait for.
 */
import { useEffect } from 'preact/hooks';
import { ErrorBox, Loading } from '../components/status';
import { formatDuration, formatTime } from '../format';
import { useResource } from '../hooks/use-resource';
import { runHref } from '../router';
import { useServices } from '../services';
import type { HandoverRecord, NodeView, NodesView } from '../types';

/** How often the view is read again, ms (a heartbeat is a third of a lease: 10 s by default). */
const REFRESH_MS = 3000;

type NodeState = 'alive' | 'stopped' | 'silent';

/** Silent: no clean stop, and no heartbeat within its lease (it died or is cut off; its runs go to another node). */
function stateOf(n: NodeView): NodeState {
  if (n.alive) return 'alive';
  return n.stoppedAt === null ? 'silent' : 'stopped';
}

/** The run-state badge colours the states borrow. */
const STATE_BADGE: Record<NodeState, string> = { alive: 'succeeded', stopped: 'cancelled', silent: 'failed' };

export function NodesScreen() {
  const { api } = useServices();
  const view = useResource(() => api.nodes(), [api]);
  useEffect(() => {
    const timer = setInterval(view.refresh, REFRESH_MS);
    return () => clearInterval(timer);
  }, [view.refresh]);
  return (
    <section aria-labelledby="nodes-title">
      <div class="page-head">
        <h1 id="nodes-title">Nodes</h1>
        <p class="muted">The kowalski servers sharing the run store. A run is executed by the node holding it; a parked run is free for any node to approve, and a node that goes silent has its runs taken over by another.</p>
      </div>
      {view.data === undefined && view.loading && <Loading label="Loading the nodes…" />}
      {view.data === undefined && view.error !== undefined && <ErrorBox error={view.error} title="Could not load the nodes" onRetry={view.reload} />}
      {view.data !== undefined && <NodesBody view={view.data} />}
    </section>
  );
}

function NodesBody({ view }: { view: NodesView }) {
  const names = new Map(view.nodes.map((n) => [n.id, n]));
  return (
    <>
      <p data-testid="nodes-store">
        {view.store === 'sqlite'
          ? <>Run store: <strong>SQLite</strong> in this server's data folder — this server is the only node.</>
          : <>Run store: <strong>PostgreSQL</strong>, shared by {view.nodes.filter((n) => n.alive).length} live {view.nodes.filter((n) => n.alive).length === 1 ? 'node' : 'nodes'} ({view.nodes.length} seen in the last day).</>}
      </p>
      {view.wakeUps !== null && (
        <p data-testid="nodes-wakeups" class="muted">
          {view.wakeUps === 'notify'
            ? 'This node hears the others at once (PostgreSQL notifications).'
            : 'This node has lost its notification connection and is reconnecting: it sees the other nodes’ work at its next poll, within a tenth of a second.'}
        </p>
      )}
      <div class="table-wrap">
        <table class="table" data-testid="nodes-table">
          <thead>
            <tr>
              <th scope="col">Node</th><th scope="col">Name</th><th scope="col">Address</th><th scope="col">State</th>
              <th scope="col">Heartbeat</th><th scope="col" class="num">Runs held</th><th scope="col" class="num">Steps running</th><th scope="col" class="num">Chat turns</th>
            </tr>
          </thead>
          <tbody>{view.nodes.map((n) => <NodeRow key={n.id} node={n} />)}</tbody>
        </table>
      </div>
      {view.store === 'postgres' && (
        <>
          <h2 id="handovers-title">Hand-overs</h2>
          {view.handovers.length === 0
            ? <p class="muted" data-testid="handovers-empty">No run has been handed from one node to another yet.</p>
            : (
              <div class="table-wrap">
                <table class="table" aria-labelledby="handovers-title" data-testid="handovers-table">
                  <thead>
                    <tr><th scope="col">Run</th><th scope="col">From → to</th><th scope="col" class="num">Epoch</th><th scope="col">Why</th><th scope="col">When</th></tr>
                  </thead>
                  <tbody>{view.handovers.map((h) => <HandoverRow key={`${h.runId}:${h.epoch}`} handover={h} nodes={names} />)}</tbody>
                </table>
              </div>
            )}
        </>
      )}
    </>
  );
}

function NodeRow({ node }: { node: NodeView }) {
  const state = stateOf(node);
  return (
    <tr data-testid={`node-row-${node.id}`} data-self={node.self ? 'true' : undefined}>
      <th scope="row" class="nowrap">
        <code>{node.id}</code>
        {node.self && <> <span class="badge" data-testid="node-self" title="The server this page talks to">this node</span></>}
        <p class="small muted">pid {node.pid}, started {formatTime(node.startedAt)}</p>
      </th>
      <td>{node.name}</td>
      <td class="nowrap" data-testid={`node-url-${node.id}`}>{node.url === null ? <span class="muted">no address announced</span> : <a href={node.url}>{node.url}</a>}</td>
      <td data-testid={`node-state-${node.id}`}>
        <span class={`badge badge--${STATE_BADGE[state]}`} title={node.stoppedAt === null ? undefined : `stopped ${formatTime(node.stoppedAt)}`}>{state}</span>
      </td>
      <td class="nowrap" title={formatTime(node.heartbeatAt)}>{formatDuration(node.heartbeatAgeMs)} ago</td>
      <td class="num">{node.runsHeld}</td>
      <td class="num">{node.stepsRunning}</td>
      <td class="num" data-testid={`node-chat-turns-${node.id}`} title="Chat turns this node is answering now: one node at a time answers a session's turn">{node.chatTurnsHeld}</td>
    </tr>
  );
}

const REASON_TEXT: Record<HandoverRecord['reason'], string> = {
  released: 'released — parked or stopped, taken by another node',
  expired: 'expired — its node went silent',
};

function HandoverRow({ handover, nodes }: { handover: HandoverRecord; nodes: Map<string, NodeView> }) {
  const who = (id: string) => <code title={nodes.get(id)?.name}>{id}</code>;
  return (
    <tr data-testid={`handover-${handover.runId}-${handover.epoch}`}>
      <th scope="row" class="nowrap"><a href={runHref(handover.runId)}><code>{handover.runId}</code></a></th>
      <td class="nowrap">{who(handover.fromNode)} → {who(handover.toNode)}</td>
      <td class="num">{handover.epoch}</td>
      <td>{REASON_TEXT[handover.reason]}</td>
      <td class="nowrap">{formatTime(handover.at)}</td>
    </tr>
  );
}
