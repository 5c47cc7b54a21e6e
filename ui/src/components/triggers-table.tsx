/**
 * A horde's triggers, live from `GET /api/triggers`: what fires them, their overlap policy,
 * the next and the last firing, and the operator's switch (`role="switch"`), which shows
 * the state the server answers with. The full table is for a horde's page; the compact
 * list for its card. Refreshed when a run of the horde starts or a trigger's run ends, and
 * every 30 s besides.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { formatTime } from '../format';
import { useDebounced } from '../hooks/use-debounced';
import { useNow } from '../hooks/use-now';
import { runHref } from '../router';
import { useServices } from '../services';
import { FINISHED_STATES } from '../types';
import type { HordeSummary, Trigger, TriggerFiring, TriggerView } from '../types';
import { Tag } from './badge';

/** How often the triggers are fetched again when nothing else asks for it, in ms. */
const POLL_MS = 30_000;
/** How often relative times ("in 3 h") are redrawn, in ms. */
const TICK_MS = 15_000;
/** Run ids of trigger-started runs remembered to refresh when they end (bounded). */
const MAX_TRACKED_RUNS = 200;
/** When an answer lacks a trigger the horde declares: first re-ask after this many ms, doubling each time… */
const RETRY_MS = 500;
/** …at most this many times in a row. */
const MAX_MISSES = 5;

export interface Triggers {
  /** The views (of one horde, or of all); undefined until the first answer. */
  views: TriggerView[] | undefined;
  /** The last load's error; the last good views stay shown. */
  error: ApiError | undefined;
  /** Puts the server's answer to a switch in place of the shown view. */
  replace: (view: TriggerView) => void;
}

/** The key of a trigger: `<horde>/<name>`. */
export const triggerKey = (hordeId: string, name: string): string => `${hordeId}/${name}`;

/**
 * The triggers of one horde (or, without `hordeId`, of every horde), kept fresh.
 * `expected` names the triggers (`triggerKey`) the caller knows exist: when an answer lacks
 * one (the server has not yet reloaded a horde that just arrived), it asks again soon,
 * a few times, backing off.
 */
export function useTriggers(hordeId: string | undefined, expected: readonly string[]): Triggers {
  const { api, socket } = useServices();
  const [views, setViews] = useState<TriggerView[] | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const generation = useRef(0);
  const tracked = useRef(new Set<string>());
  const latest = useRef<TriggerView[] | undefined>(undefined);
  const expectedKey = expected.join('\n');
  const wanted = useRef(expected);
  wanted.current = expected;
  const misses = useRef(0);
  const retry = useRef<ReturnType<typeof setTimeout> | null>(null);

  const lacking = (all: readonly TriggerView[]): boolean => {
    const have = new Set(all.map((t) => triggerKey(t.hordeId, t.name)));
    return wanted.current.some((k) => !have.has(k));
  };

  const load = useCallback(() => {
    const mine = ++generation.current;
    if (retry.current !== null) clearTimeout(retry.current);
    retry.current = null;
    api.triggers().then((all) => {
      if (mine !== generation.current) return;
      const shown = hordeId === undefined ? all : all.filter((t) => t.hordeId === hordeId);
      latest.current = shown;
      setViews(shown);
      setError(undefined);
      if (!lacking(shown)) misses.current = 0;
      else if (misses.current < MAX_MISSES) retry.current = setTimeout(load, RETRY_MS * 2 ** misses.current++);
    }, (err: unknown) => {
      if (mine === generation.current) setError(asApiError(err));
    });
  }, [api, hordeId]);

  useEffect(() => {
    load();
    const timer = setInterval(load, POLL_MS);
    return () => {
      clearInterval(timer);
      if (retry.current !== null) clearTimeout(retry.current);
      generation.current++;
    };
  }, [load]);

  // The caller learnt of more triggers (its hordes arrived after the first answer).
  useEffect(() => {
    if (latest.current !== undefined && lacking(latest.current)) {
      misses.current = 0;
      load();
    }
  }, [expectedKey, load]);

  const soon = useDebounced(load, 300);
  useEffect(() => socket.subscribeAll((frame) => {
    if (frame.type !== 'event') return;
    const e = frame.event;
    if (e.type === 'run.created' && (hordeId === undefined || e.hordeId === hordeId)) {
      if (typeof e.provenance === 'string' && e.provenance.startsWith('trigger:') && tracked.current.size < MAX_TRACKED_RUNS) {
        tracked.current.add(frame.runId);
      }
      soon();
    } else if (frame.state !== null && FINISHED_STATES.includes(frame.state) && tracked.current.delete(frame.runId)) {
      soon();
    }
  }), [socket, hordeId, soon]);

  const replace = useCallback((view: TriggerView) => {
    generation.current++; // an answer already on its way is older than this one
    setViews((old) => old?.map((t) => (t.hordeId === view.hordeId && t.name === view.name ? view : t)));
  }, []);

  return { views, error, replace };
}

/** The full table, for a horde's page. */
export function TriggersTable({ horde, triggers }: { horde: HordeSummary; triggers: Triggers }) {
  const now = useNow(horde.triggers.length > 0, TICK_MS);
  if (horde.triggers.length === 0) return <p class="muted">No triggers: this horde runs only when started by hand.</p>;
  const views = triggers.views;
  return (
    <>
      <LoadProblem horde={horde} triggers={triggers} />
      <div class="table-wrap">
        <table class="table table--triggers" data-testid="triggers-table">
          <thead>
            <tr>
              <th scope="col">Trigger</th><th scope="col">Fires on</th><th scope="col">If still running</th>
              <th scope="col">Next firing</th><th scope="col">Last firing</th><th scope="col">Switch</th>
            </tr>
          </thead>
          <tbody>
            {horde.triggers.map((t) => {
              const view = views?.find((v) => v.hordeId === horde.id && v.name === t.name);
              return (
                <tr key={t.name} data-testid="trigger" data-trigger={triggerKey(horde.id, t.name)}>
                  <th scope="row"><code>{t.name}</code> <span class="muted small">{t.kind}</span></th>
                  <td>{view === undefined ? <FiresOnSummary hordeId={horde.id} trigger={t} /> : <FiresOn view={view} />}</td>
                  <td>{view === undefined ? '—' : OVERLAP_LABEL[view.overlap]}</td>
                  <td class="nowrap">{view === undefined ? '—' : <NextFiring view={view} now={now} />}</td>
                  <td>{view === undefined ? '—' : <LastFiring firing={view.lastFiring} now={now} />}</td>
                  <td class="trigger__switch-cell">
                    {view === undefined
                      ? <StaticState trigger={t} origin={horde.origin} loading={views === undefined && triggers.error === undefined} />
                      : <SwitchWithNotes view={view} origin={horde.origin} onChange={triggers.replace} />}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** The compact list, for a horde's card. */
export function TriggerList({ horde, triggers }: { horde: HordeSummary; triggers: Triggers }) {
  const now = useNow(horde.triggers.length > 0, TICK_MS);
  if (horde.triggers.length === 0) return null;
  return (
    <>
      <LoadProblem horde={horde} triggers={triggers} compact />
      <ul class="trigger-list" aria-label={`Triggers of ${horde.displayName || horde.id}`}>
        {horde.triggers.map((t) => {
          const view = triggers.views?.find((v) => v.hordeId === horde.id && v.name === t.name);
          return (
            <li key={t.name} class="trigger-list__item" data-testid="trigger" data-trigger={triggerKey(horde.id, t.name)}>
              <div class="trigger-list__head">
                <span><code>{t.name}</code> <span class="muted small">{t.kind}</span></span>
                {view === undefined
                  ? <StaticState trigger={t} origin={horde.origin} loading={triggers.views === undefined && triggers.error === undefined} />
                  : <SwitchWithNotes view={view} origin={horde.origin} onChange={triggers.replace} />}
              </div>
              <p class="small trigger-list__facts">
                {view === undefined ? <FiresOnSummary hordeId={horde.id} trigger={t} /> : <FiresOn view={view} />}
                {view !== undefined && <> · {OVERLAP_LABEL[view.overlap]}</>}
              </p>
              {view !== undefined && (
                <p class="small trigger-list__facts">
                  Next: <NextFiring view={view} now={now} /> · Last: <LastFiring firing={view.lastFiring} now={now} />
                </p>
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}

/** Why the switches are missing: the triggers could not be loaded (the horde.md state is shown instead). */
function LoadProblem({ horde, triggers, compact = false }: { horde: HordeSummary; triggers: Triggers; compact?: boolean }) {
  if (triggers.error === undefined || horde.triggers.length === 0) return null;
  const text = `Could not load the triggers' state (${triggers.error.code}: ${triggers.error.message}); showing horde.md's settings.`;
  return compact
    ? <p class="small warn-text" role="status">Trigger switches unavailable.</p>
    : <p class="small warn-text" role="status" data-testid="triggers-error">{text}</p>;
}

const OVERLAP_LABEL: Record<TriggerView['overlap'], string> = {
  skip: 'skip this firing',
  queue_one: 'queue one more',
  parallel: 'run alongside',
};

const OUTCOME_LABEL: Record<TriggerFiring['outcome'], string> = {
  started: 'started a run',
  skipped: 'skipped (a run was going)',
  queued: 'queued',
  missed: 'missed',
  overflow: 'dropped (queue full)',
  failed: 'failed to start',
};

/** What fires it, from the live view. */
function FiresOn({ view }: { view: TriggerView }) {
  switch (view.kind) {
    case 'cron':
      return (
        <>
          <code>{view.schedule ?? '?'}</code>
          {view.timezone !== undefined && <span class="muted"> ({view.timezone})</span>}
          {view.catchUp !== undefined && <span class="muted small"> · missed: {view.catchUp}</span>}
        </>
      );
    case 'watch':
      return (
        <>
          changes in <code>{view.path ?? '?'}</code>
          {view.globs !== undefined && view.globs.length > 0 && <span class="muted"> ({view.globs.join(', ')})</span>}
        </>
      );
    case 'webhook':
      return (
        <>
          <code>POST {view.hookPath ?? `/hooks/${view.hordeId}/${view.name}`}</code>
          <span class="muted small"> · {view.signed === true ? 'signed' : 'unsigned'}</span>
        </>
      );
  }
}

/** What fires it, from horde.md (when the live view is not there). */
function FiresOnSummary({ hordeId, trigger: t }: { hordeId: string; trigger: Trigger }) {
  switch (t.kind) {
    case 'cron':
      return <><code>{t.schedule ?? '?'}</code>{t.timezone !== undefined && <span class="muted"> ({t.timezone})</span>}</>;
    case 'watch':
      return <>changes in <code>{t.path ?? '?'}</code></>;
    case 'webhook':
      return <code>POST /hooks/{hordeId}/{t.name}</code>;
  }
}

/** The state horde.md gives, when the server's is not known: built-in and imported hordes' triggers arrive off whatever it says. */
function StaticState({ trigger, origin, loading }: { trigger: Trigger; origin: HordeSummary['origin']; loading: boolean }) {
  if (loading) return <span class="muted small">…</span>;
  return trigger.enabled && origin === 'user' ? <Tag kind="on">on in horde.md</Tag> : <Tag kind="off">off</Tag>;
}

/** The next firing: relative, the local time in a title; `—` when off. */
function NextFiring({ view, now }: { view: TriggerView; now: number }) {
  if (!view.enabled) return <span data-testid="trigger-next" title="Switched off">—</span>;
  if (view.kind === 'watch') return <span data-testid="trigger-next">when a file changes</span>;
  if (view.kind === 'webhook') return <span data-testid="trigger-next">on each request</span>;
  if (view.nextFireAt === null) return <span data-testid="trigger-next" title="No firing is scheduled">—</span>;
  return (
    <time data-testid="trigger-next" dateTime={new Date(view.nextFireAt).toISOString()} title={formatTime(view.nextFireAt)}>
      {relative(view.nextFireAt, now)}
    </time>
  );
}

function LastFiring({ firing, now }: { firing: TriggerFiring | null; now: number }) {
  if (firing === null) return <span class="muted" data-testid="trigger-last">never</span>;
  return (
    <span data-testid="trigger-last" class={firing.outcome === 'failed' ? 'warn-text' : undefined}>
      {OUTCOME_LABEL[firing.outcome]},{' '}
      <time dateTime={new Date(firing.at).toISOString()} title={formatTime(firing.at)}>{relative(firing.at, now)}</time>
      {firing.runId !== null && <> · <a href={runHref(firing.runId)}><code>{firing.runId}</code></a></>}
      {firing.detail !== null && firing.detail !== '' && <span class="muted"> · {firing.detail}</span>}
    </span>
  );
}

/**
 * The switch. Flips at once and calls the server; shows the state the server answers
 * with, or flips back and says why when the call fails.
 */
function SwitchWithNotes({ view, origin, onChange }: { view: TriggerView; origin: HordeSummary['origin']; onChange: (v: TriggerView) => void }) {
  const { api } = useServices();
  const [wanted, setWanted] = useState<boolean | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const checked = wanted ?? view.enabled;
  const id = `trigger-${view.hordeId}-${view.name}`;

  const toggle = () => {
    if (wanted !== null) return; // one change at a time
    const want = !view.enabled;
    setWanted(want);
    setError(null);
    (want ? api.enableTrigger(view.hordeId, view.name) : api.disableTrigger(view.hordeId, view.name)).then((fresh) => {
      onChange(fresh);
      setWanted(null);
    }, (err: unknown) => {
      setError(asApiError(err));
      setWanted(null);
    });
  };

  const describedBy = [!checked ? `${id}-off` : '', error !== null ? `${id}-error` : '', view.error !== undefined ? `${id}-problem` : '']
    .filter((s) => s !== '').join(' ');
  return (
    <div class="trigger-switch">
      <button type="button" role="switch" aria-checked={checked} class={checked ? 'switch switch--on' : 'switch'}
        aria-label={`Trigger ${view.name}`} aria-describedby={describedBy === '' ? undefined : describedBy}
        aria-busy={wanted !== null} data-testid="trigger-switch" onClick={toggle}>
        <span class="switch__track" aria-hidden="true"><span class="switch__thumb" /></span>
        <span class="switch__label" aria-hidden="true">{checked ? 'On' : 'Off'}</span>
      </button>
      {!checked && (
        <p class="trigger-switch__note small" id={`${id}-off`} data-testid="trigger-off-note">
          Switched off — nothing runs until you turn it on.
          {origin !== 'user' && ` (The triggers of ${origin === 'builtin' ? 'built-in' : 'imported'} hordes arrive switched off.)`}
        </p>
      )}
      {view.enabled && view.active > 0 && <p class="small muted trigger-switch__note">{view.active === 1 ? '1 run going' : `${view.active} runs going`}</p>}
      {view.error !== undefined && <p class="small warn-text trigger-switch__note" id={`${id}-problem`}>Cannot fire: {view.error}</p>}
      {error !== null && (
        <p class="field__error trigger-switch__note" id={`${id}-error`} role="alert" data-testid="trigger-switch-error">
          Could not switch it {view.enabled ? 'off' : 'on'}: <code class="error-code">{error.code}</code> {error.message}
        </p>
      )}
    </div>
  );
}

/** `in 3 h`, `in 12 min`, `5 min ago`, `in 2 d`. */
function relative(at: number, now: number): string {
  const diff = at - now;
  const abs = Math.abs(diff);
  const min = 60_000;
  let span: string;
  if (abs < 45_000) return diff >= 0 ? 'in less than a minute' : 'just now';
  if (abs < 90 * min) span = `${Math.round(abs / min)} min`;
  else if (abs < 36 * 60 * min) span = `${Math.round(abs / (60 * min))} h`;
  else span = `${Math.round(abs / (24 * 60 * min))} d`;
  return diff >= 0 ? `in ${span}` : `${span} ago`;
}
