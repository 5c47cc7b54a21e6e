/**
 * A chat turn's model calls as a tree: the root agent's calls, and under each call the
 * calls of the agents it delegated to (`GET /api/traces/:id/children`, fetched when a call
 * is opened, so a deep tree costs nothing until looked at). Each call shows its agent,
 * model, tokens, cost, latency and tool calls; a failed one is marked with its error. A
 * call opens to its whole prompt and completion (trace-detail.tsx).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatCost, formatCount, formatDuration, plural } from '../format';
import { useResource } from '../hooks/use-resource';
import { useServices } from '../services';
import type { TraceSummary } from '../types';
import { ErrorBox, Loading } from './status';
import { TraceDetailView } from './trace-detail';
import { TraceError, TraceTotals } from './trace-list';

/** `version` changes when the session has news: the calls are fetched again in the background. */
export function TurnTraceTree({ sessionId, turn, version }: { sessionId: string; turn: number; version: number }) {
  const { api } = useServices();
  const page = useResource(() => api.sessionTraces(sessionId), [api, sessionId]);
  const { refresh } = page;
  const shown = useRef(version);
  useEffect(() => {
    if (shown.current === version) return;
    shown.current = version;
    refresh();
  }, [version, refresh]);
  if (page.data === undefined) {
    return page.error === undefined
      ? <Loading label="Loading the model calls…" />
      : <ErrorBox error={page.error} title="Could not load the model calls" onRetry={page.reload} />;
  }
  const calls = page.data.traces.filter((t) => t.attempt === turn).sort((a, b) => a.id - b.id);
  const roots = calls.filter((t) => t.parentId === null);
  // A call delegated when calls of other agents name it as their parent. A list cut short may not
  // hold them: then a call with tool calls may have delegated, and opening it says.
  const parents = new Set(calls.map((t) => t.parentId));
  const cut = page.data.nextBefore !== null;
  const delegated: Delegated = (t) => (parents.has(t.id) ? 'yes' : cut && t.toolCalls > 0 ? 'maybe' : 'no');
  return (
    <section class="trace-tree" aria-label={`Model calls of turn ${turn}`} data-testid="trace-tree">
      {page.error !== undefined && <ErrorBox error={page.error} title="Could not refresh the model calls; showing what was last loaded" />}
      {calls.length === 0
        ? <p class="muted small">No model calls yet.</p>
        : <TraceTotals calls={calls} cut={page.data.nextBefore !== null} />}
      <TraceNodes traces={roots} delegated={delegated} />
    </section>
  );
}

/** Whether a call delegated to other agents: known from the session's calls, or perhaps when they were cut short. */
type Delegated = (t: TraceSummary) => 'yes' | 'no' | 'maybe';

function TraceNodes({ traces, delegated }: { traces: TraceSummary[]; delegated: Delegated }) {
  return <ul class="trace-tree__list">{traces.map((t) => <TraceNode key={t.id} trace={t} delegated={delegated} />)}</ul>;
}

function TraceNode({ trace: t, delegated }: { trace: TraceSummary; delegated: Delegated }) {
  const [open, setOpen] = useState(false);
  const [detail, setDetail] = useState(false);
  const childrenId = `trace-children-${t.id}`;
  const detailId = `trace-node-detail-${t.id}`;
  const agent = t.agent ?? t.step;
  const delegates = delegated(t);
  return (
    <li class={t.error === null ? 'trace-node' : 'trace-node trace-node--error'} data-testid="trace-node"
      data-agent={agent} data-node={t.step} data-failed={t.error !== null}>
      <div class="trace-node__row">
        {delegates !== 'no'
          ? (
            <button type="button" class="trace-toggle" aria-expanded={open} aria-controls={open ? childrenId : undefined}
              onClick={() => setOpen((o) => !o)} data-testid="trace-node-toggle">
              <span class="trace-toggle__icon" aria-hidden="true">{open ? '▾' : '▸'}</span>
              <strong>{agent}</strong>
              <span class="sr-only">, call {t.seq}: show {delegates === 'yes' ? 'the agents it delegated to' : 'any agents it delegated to'}</span>
            </button>
          )
          : <span class="trace-node__leaf"><span class="trace-toggle__icon" aria-hidden="true">•</span><strong>{agent}</strong></span>}
        <span class="muted small">call {t.seq}</span>
        <code class="trace-model">{t.provider}:{t.model}</code>
        <span class="small" data-testid="trace-node-tokens">{formatCount(t.inputTokens)} / {formatCount(t.outputTokens)} tokens</span>
        <span class="small">{formatCost(t.costUsd)}</span>
        <span class="small">{formatDuration(t.latencyMs)}</span>
        <span class="small">{plural(t.toolCalls, 'tool call')}</span>
        {t.error !== null && <span class="trace-node__error"><TraceError error={t.error} /></span>}
        <button type="button" class="btn btn--small btn--ghost" aria-expanded={detail} aria-controls={detail ? detailId : undefined}
          onClick={() => setDetail((d) => !d)}>
          {detail ? 'Hide the call' : 'Show the call'}
        </button>
      </div>
      {detail && <div id={detailId} class="trace-node__detail"><TraceDetailView id={t.id} /></div>}
      {open && <div id={childrenId}><TraceChildren id={t.id} delegated={delegated} /></div>}
    </li>
  );
}

function TraceChildren({ id, delegated }: { id: number; delegated: Delegated }) {
  const { api } = useServices();
  const children = useResource(() => api.traceChildren(id), [api, id]);
  if (children.data === undefined) {
    return children.error === undefined
      ? <Loading label="Loading the delegated calls…" />
      : <ErrorBox error={children.error} title="Could not load the delegated calls" onRetry={children.reload} />;
  }
  if (children.data.length === 0) return <p class="muted small trace-tree__none">No delegations in this call.</p>;
  return <TraceNodes traces={children.data} delegated={delegated} />;
}
