/**
 * A run's model calls in the order they were made: totals on top, then one row per
 * provider call (step, attempt, call number, model, how tools were offered, tokens, cost,
 * latency, tool calls, error). A row opens to the whole call (trace-detail.tsx), fetched
 * only then. A chat turn's calls show as a tree instead (trace-tree.tsx), with the same totals. Every value is put in text nodes: model and tool text is never markup.
 */
import { useState } from 'preact/hooks';
import { formatCost, formatCount, formatDuration, plural } from '../format';
import type { Resource } from '../hooks/use-resource';
import type { TracePage, TraceSummary } from '../types';
import { ErrorBox, Loading } from './status';
import { TraceDetailView } from './trace-detail';

const COLUMNS = 10;

const MODE_TITLE: Record<string, string> = {
  native: 'tools offered in the provider’s tool field',
  text: 'tools described in the prompt, calls read from the text',
};

export function TraceList({ traces }: { traces: Resource<TracePage> }) {
  const page = traces.data;
  if (page === undefined) {
    return traces.error === undefined
      ? <Loading label="Loading the model calls…" />
      : <ErrorBox error={traces.error} title="Could not load the model calls" onRetry={traces.reload} />;
  }
  if (page.traces.length === 0) return <p class="muted small" data-testid="no-traces">No model calls.</p>;
  // The server lists newest first; a run reads best in the order its calls were made.
  const calls = [...page.traces].sort((a, b) => a.id - b.id);
  return (
    <section class="traces" aria-labelledby="traces-title" data-testid="traces">
      <h2 id="traces-title">Model calls</h2>
      {traces.error !== undefined && (
        <ErrorBox error={traces.error} title="Could not refresh the model calls; showing what was last loaded" />
      )}
      <TraceTotals calls={calls} cut={page.nextBefore !== null} />
      <div class="table-wrap">
        <table class="table table--traces" data-testid="trace-table">
          <thead>
            <tr>
              <th scope="col">Step</th><th scope="col">Attempt</th><th scope="col">Call</th><th scope="col">Model</th>
              <th scope="col">Tools via</th><th scope="col" class="num">Tokens in / out</th><th scope="col" class="num">Cost</th>
              <th scope="col" class="num">Latency</th><th scope="col" class="num">Tool calls</th><th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {calls.map((t) => <TraceRows key={t.id} trace={t} />)}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Calls, tokens and cost of a list of model calls (a run's, or a chat turn's in the trace tree). */
export function TraceTotals({ calls, cut }: { calls: TraceSummary[]; cut: boolean }) {
  const tokensIn = calls.reduce((n, t) => n + t.inputTokens, 0);
  const tokensOut = calls.reduce((n, t) => n + t.outputTokens, 0);
  const failed = calls.filter((t) => t.error !== null).length;
  return (
    <p class="trace-totals" data-testid="trace-totals">
      <strong>{plural(calls.length, 'call')}</strong>
      <span>{formatCount(tokensIn)} tokens in, {formatCount(tokensOut)} out</span>
      <span>cost {totalCost(calls)}</span>
      {failed > 0 && <span class="trace-totals__failed">{failed} failed</span>}
      {cut && <span class="muted">only the latest {calls.length} are shown</span>}
    </p>
  );
}

/** A call's failure (code and message), or a dash. */
export function TraceError({ error }: { error: TraceSummary['error'] }) {
  return error === null
    ? <span class="muted">—</span>
    : <span data-testid="trace-error"><span aria-hidden="true">✕ </span><code class="error-code">{error.code}</code> {error.message}</span>;
}

/** The sum of the known prices, saying so when some are unknown rather than passing a partial sum off as the total. */
function totalCost(calls: TraceSummary[]): string {
  const unknown = calls.filter((t) => t.costUsd === null).length;
  if (unknown === calls.length) return 'unknown';
  const known = formatCost(calls.reduce((sum, t) => sum + (t.costUsd ?? 0), 0));
  return unknown === 0 ? known : `${known} + unknown for ${plural(unknown, 'call')}`;
}

function TraceRows({ trace }: { trace: TraceSummary }) {
  const [open, setOpen] = useState(false);
  const detailId = `trace-detail-${trace.id}`;
  return (
    <>
      <tr class={trace.error === null ? 'trace-row' : 'trace-row trace-row--error'} data-testid="trace-row"
        data-step={trace.step} data-attempt={trace.attempt} data-seq={trace.seq}>
        <th scope="row">
          <button type="button" class="trace-toggle" aria-expanded={open} aria-controls={open ? detailId : undefined}
            onClick={() => setOpen((o) => !o)} data-testid="trace-toggle">
            <span class="trace-toggle__icon" aria-hidden="true">{open ? '▾' : '▸'}</span>
            <code>{trace.step}</code>
            <span class="sr-only">, attempt {trace.attempt}, call {trace.seq}</span>
          </button>
        </th>
        <td>{trace.attempt}</td>
        <td>{trace.seq}</td>
        <td>
          <code class="trace-model">{trace.provider}:{trace.model}</code>
          {trace.replayed && <div class="muted small" data-testid="trace-replayed" title="The model was not called: the answer recorded in an earlier run for the same prompt was reused">replayed</div>}
        </td>
        <td title={MODE_TITLE[trace.mode]}>{trace.mode}</td>
        <td class="num" data-testid="trace-tokens">{formatCount(trace.inputTokens)} / {formatCount(trace.outputTokens)}</td>
        <td class="num">{formatCost(trace.costUsd)}</td>
        <td class="num">
          {formatDuration(trace.latencyMs)}
          {trace.attempts > 1 && <div class="muted small">{plural(trace.attempts, 'HTTP try', 'HTTP tries')}</div>}
        </td>
        <td class="num">{trace.toolCalls}</td>
        <td class="trace-row__error">
          <TraceError error={trace.error} />
        </td>
      </tr>
      {open && (
        <tr class="trace-detail-row" id={detailId}>
          <td colSpan={COLUMNS}><TraceDetailView id={trace.id} /></td>
        </tr>
      )}
    </>
  );
}
