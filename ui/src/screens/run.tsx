/**
 * `#/runs/<id>`: one run, live. The view comes from `GET /api/runs/:id` and its model
 * calls from `GET /api/traces`; a one-run subscription refetches the view (debounced)
 * whenever an event is committed, and the calls whenever one is recorded.
 */
import { useEffect, useState } from 'preact/hooks';
import { AgentTurns } from '../components/agent-turns';
import { ApprovalPanel } from '../components/approval-panel';
import { BudgetPanel } from '../components/budget-panel';
import { RunActions } from '../components/run-actions';
import { ApproveAll } from '../components/approve-all';
import { RunFacts, RunInput, RunTitle } from '../components/run-header';
import { RunDelivery, RunOutcome, failedStep } from '../components/run-outcome';
import { ReviewPanel } from '../components/review-panel';
import { ErrorBox, Loading } from '../components/status';
import { StepTimeline } from '../components/step-timeline';
import { TraceList } from '../components/trace-list';
import { useDebounced } from '../hooks/use-debounced';
import { useResource } from '../hooks/use-resource';
import { useSocketStatus } from '../hooks/use-socket-status';
import { useServices } from '../services';
import type { ApiError } from '../api';
import type { Resource } from '../hooks/use-resource';
import type { RunView, TracePage } from '../types';

export function RunScreen({ id }: { id: string }) {
  const { api, socket } = useServices();
  const view = useResource(() => api.run(id), [api, id]);
  const [progress, setProgress] = useState<Record<string, string>>({});
  const refresh = useDebounced(view.refresh, 100);
  const traces = useResource(() => api.traces(id), [api, id]);
  const refreshTraces = useDebounced(traces.refresh, 100);
  const status = useSocketStatus();

  // Subscribe once the first view is in, after its last event: nothing missed, nothing twice.
  const firstSeq = view.data?.run.id === id ? view.data.run.lastSeq : undefined;
  const subscribed = firstSeq !== undefined;
  useEffect(() => {
    if (firstSeq === undefined) return undefined;
    setProgress({});
    return socket.subscribeRun(id, (frame) => {
      if (frame.type === 'progress') setProgress((p) => ({ ...p, [frame.step]: frame.message }));
      else if (frame.type === 'trace') refreshTraces();
      else if (frame.type === 'synced') {
        refresh();
        // Trace frames are live only, never replayed: calls recorded before this (re)subscription are fetched instead.
        refreshTraces();
      } else if (frame.state !== null) refresh();
    }, firstSeq);
    // Only the first view's seq matters (hence `subscribed`, not `firstSeq`): refreshes must not resubscribe.
  }, [socket, id, subscribed, refresh, refreshTraces]);

  return (
    <section aria-labelledby="run-title">
      <p class="crumbs"><a href="#/runs">Runs</a> <span aria-hidden="true">/</span> <code>{id}</code></p>
      {view.data === undefined && view.loading && <Loading label="Loading the run…" />}
      {view.data === undefined && view.error !== undefined && (
        <>
          <h1 id="run-title">Run <code>{id}</code></h1>
          <ErrorBox error={view.error} title="Could not load this run" onRetry={view.reload} />
        </>
      )}
      {view.data !== undefined && (
        <RunBody view={view.data} live={status === 'open' && subscribed} reconnecting={status === 'reconnecting'}
          progress={progress} onChanged={view.refresh} refreshError={view.error} traces={traces} />
      )}
    </section>
  );
}

interface BodyProps {
  view: RunView;
  live: boolean;
  reconnecting: boolean;
  progress: Record<string, string>;
  onChanged: () => void;
  refreshError: ApiError | undefined;
  traces: Resource<TracePage>;
}

function RunBody({ view, live, reconnecting, progress, onChanged, refreshError, traces }: BodyProps) {
  const run = view.run;
  const failure = failedStep(view);
  return (
    <>
      <RunTitle run={run} live={live} reconnecting={reconnecting} />
      {refreshError !== undefined && <ErrorBox error={refreshError} title="Could not refresh this run; showing what was last loaded" />}
      <RunOutcome view={view} failure={failure} />
      <RunActions run={run} onDone={onChanged} />
      {view.pending.length > 0 && (
        <div class="approvals" data-testid="approvals">
          <ApproveAll key={view.pending.map((a) => a.hash).join()} runId={run.id} pending={view.pending} onDone={onChanged} />
          {view.pending.map((a) => (a.reason === 'review'
            ? <ReviewPanel key={`${a.step}:${a.seq}`} runId={run.id} approval={a} onDone={onChanged} />
            : <ApprovalPanel key={`${a.step}:${a.seq}`} runId={run.id} approval={a} onDone={onChanged} />))}
        </div>
      )}
      <RunDelivery view={view} />
      <BudgetPanel key={`${run.id}:${view.budget.parked?.at ?? 0}`} runId={run.id} budget={view.budget}
        parked={view.budget.parked !== null && run.state === 'awaiting_input'} onDone={onChanged} />
      <RunFacts run={run} askedBy={view.askedBy} />
      <RunInput run={run} workdir={view.workdir} />
      <h2>Steps</h2>
      <StepTimeline view={view} progress={progress} failure={failure} />
      <AgentTurns turns={view.agentTurns ?? []} version={run.lastSeq} />
      <TraceList traces={traces} />
    </>
  );
}
