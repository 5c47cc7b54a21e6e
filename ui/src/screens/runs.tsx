/** `#/runs`: every run, newest first, filtered by state and horde, kept live by the all-runs stream. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { ProvenanceTag, RunStateBadge } from '../components/badge';
import { Empty, ErrorBox, Loading } from '../components/status';
import { formatDuration, formatTime, RUN_STATE_LABEL } from '../format';
import { useDebounced } from '../hooks/use-debounced';
import { useNow } from '../hooks/use-now';
import { hordeHref, navigate, runHref } from '../router';
import { useServices } from '../services';
import { FINISHED_STATES, RUN_STATES } from '../types';
import type { HordeSummary, RunRow, RunState } from '../types';

const PAGE = 50;
/** More changed runs than this in one burst: reload the first page instead of each row. */
const MAX_ROW_FETCHES = 20;

interface Filter { status: RunState | undefined; horde: string | undefined }

export function RunsScreen({ status, horde }: Filter) {
  const { api, socket } = useServices();
  const [rows, setRows] = useState<RunRow[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [moreError, setMoreError] = useState<ApiError | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [hordes, setHordes] = useState<HordeSummary[] | null>(null);
  const generation = useRef(0);
  const changed = useRef(new Set<string>());

  const loadFirst = useCallback((quiet: boolean) => {
    const mine = ++generation.current;
    if (!quiet) {
      setRows(null);
      setError(null);
    }
    api.runs({ status, horde, limit: PAGE }).then((page) => {
      if (mine !== generation.current) return;
      setRows(page.runs);
      setNext(page.nextCursor);
      setError(null);
      setMoreError(null);
    }, (err: unknown) => {
      if (mine === generation.current) setError(asApiError(err));
    });
  }, [api, status, horde]);

  useEffect(() => {
    loadFirst(false);
    return () => { generation.current++; };
  }, [loadFirst]);

  useEffect(() => {
    api.hordes().then(setHordes, () => setHordes(null));
  }, [api]);

  const loadMore = async () => {
    if (next === null) return;
    const mine = generation.current;
    setLoadingMore(true);
    setMoreError(null);
    try {
      const page = await api.runs({ status, horde, limit: PAGE, cursor: next });
      if (mine !== generation.current) return;
      setRows((old) => mergeRows(old ?? [], page.runs, { status, horde }, false));
      setNext(page.nextCursor);
    } catch (err) {
      if (mine === generation.current) setMoreError(asApiError(err));
    } finally {
      setLoadingMore(false);
    }
  };

  const flush = useDebounced(() => {
    const ids = [...changed.current];
    changed.current.clear();
    if (ids.length === 0) return;
    if (ids.length > MAX_ROW_FETCHES) {
      loadFirst(true);
      return;
    }
    const mine = generation.current;
    Promise.all(ids.map((id) => api.run(id).then((v) => v.run, () => null))).then((fresh) => {
      if (mine !== generation.current) return;
      const got = fresh.filter((r) => r !== null);
      setRows((old) => (old === null ? old : mergeRows(old, got, { status, horde }, true)));
    }, () => undefined);
  }, 250);

  useEffect(() => socket.subscribeAll((frame) => {
    if (frame.type !== 'event') return;
    changed.current.add(frame.runId);
    flush();
  }), [socket, flush]);

  const anyLive = rows?.some((r) => !FINISHED_STATES.includes(r.state)) ?? false;
  const now = useNow(anyLive);
  const filtered = status !== undefined || horde !== undefined;
  const hordeOptions = [...new Set([...(hordes ?? []).map((h) => h.id), ...(horde === undefined ? [] : [horde])])].sort();

  return (
    <section aria-labelledby="runs-title">
      <div class="page-head">
        <h1 id="runs-title">Runs</h1>
      </div>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter runs">
        <div class="field field--inline">
          <label for="filter-status">State</label>
          <select id="filter-status" data-testid="filter-status" value={status ?? ''}
            onChange={(e) => navigate({ name: 'runs', status: RUN_STATES.find((s) => s === e.currentTarget.value), horde })}>
            <option value="">all states</option>
            {RUN_STATES.map((s) => <option key={s} value={s}>{RUN_STATE_LABEL[s]}</option>)}
          </select>
        </div>
        <div class="field field--inline">
          <label for="filter-horde">Horde</label>
          <select id="filter-horde" data-testid="filter-horde" value={horde ?? ''}
            onChange={(e) => navigate({ name: 'runs', status, horde: e.currentTarget.value === '' ? undefined : e.currentTarget.value })}>
            <option value="">all hordes</option>
            {hordeOptions.map((h) => <option key={h} value={h}>{h}</option>)}
          </select>
        </div>
        {filtered && <a class="btn btn--small btn--ghost" href="#/runs">Clear filters</a>}
      </form>

      {rows === null && error === null && <Loading label="Loading runs…" />}
      {rows === null && error !== null && <ErrorBox error={error} title="Could not load the runs" onRetry={() => loadFirst(false)} />}
      {rows !== null && error !== null && <ErrorBox error={error} title="Could not refresh the runs" onRetry={() => loadFirst(false)} />}
      {rows !== null && rows.length === 0 && (
        <Empty>
          {filtered
            ? <p>No runs match these filters. <a href="#/runs">Show all runs</a>.</p>
            : <p><strong>No runs yet.</strong> Start one from a <a href="#/hordes">horde</a>.</p>}
        </Empty>
      )}
      {rows !== null && rows.length > 0 && (
        <div class="table-wrap">
          <table class="table table--runs" data-testid="runs-table">
            <thead>
              <tr>
                <th scope="col">State</th><th scope="col">Run</th><th scope="col">Horde</th>
                <th scope="col">Provenance</th><th scope="col">Started</th><th scope="col">Duration</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} data-testid={`run-row-${r.id}`}>
                  <td><RunStateBadge state={r.state} /></td>
                  <td><a href={runHref(r.id)}><code>{r.id}</code></a></td>
                  <td><a href={hordeHref(r.hordeId)}>{r.hordeId}</a></td>
                  <td><ProvenanceTag provenance={r.provenance} /></td>
                  <td class="nowrap">{formatTime(r.createdAt)}</td>
                  <td class="nowrap">{formatDuration((r.finishedAt ?? now) - r.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {moreError !== null && <ErrorBox error={moreError} title="Could not load more runs" />}
      {rows !== null && next !== null && (
        <div class="actions actions--center">
          <button type="button" class="btn" onClick={() => { void loadMore(); }} disabled={loadingMore} data-testid="load-more">
            {loadingMore ? 'Loading…' : 'Load more'}
          </button>
        </div>
      )}
      {rows !== null && rows.length > 0 && next === null && <p class="muted small center">All {rows.length} runs shown.</p>}
    </section>
  );
}

/**
 * Fresh rows into the list: known ones replaced in place; new ones that match the filter
 * added (when `live`, at their place by start time; else appended, as the next page).
 */
function mergeRows(old: RunRow[], fresh: RunRow[], filter: Filter, live: boolean): RunRow[] {
  const byId = new Map(fresh.map((r) => [r.id, r]));
  const out = old.map((r) => byId.get(r.id) ?? r);
  const known = new Set(old.map((r) => r.id));
  const added = fresh.filter((r) => !known.has(r.id)
    && (filter.status === undefined || r.state === filter.status)
    && (filter.horde === undefined || r.hordeId === filter.horde));
  if (added.length === 0) return out;
  if (!live) return [...out, ...added];
  return [...out, ...added].sort((a, b) => b.createdAt - a.createdAt);
}
