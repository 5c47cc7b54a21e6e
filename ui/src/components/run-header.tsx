/** A run's facts: state, horde, provenance, times; its input. */
import { formatDuration, formatTime } from '../format';
import { useNow } from '../hooks/use-now';
import { chatHref, hordeHref } from '../router';
import type { AskedBy, RunRow } from '../types';
import { FINISHED_STATES } from '../types';
import { ProvenanceTag, RunStateBadge } from './badge';
import { KeyValues } from './key-values';

/** The title line: horde, run id, state, and whether live updates are on. */
export function RunTitle({ run, live, reconnecting }: { run: RunRow; live: boolean; reconnecting: boolean }) {
  return (
    <div class="page-head page-head--row run-title">
      <h1 id="run-title">
        {run.hordeId} <span class="muted">run</span> <code class="h-id">{run.id}</code>{' '}
        <RunStateBadge state={run.state} testId="run-state" />
      </h1>
      <span class={`live ${live ? 'live--on' : 'live--off'}`} data-testid="live-indicator" role="status">
        <span aria-hidden="true">●</span> {live ? 'live' : reconnecting ? 'reconnecting…' : 'connecting…'}
      </span>
    </div>
  );
}

/** One line of facts under the title. */
export function RunFacts({ run, askedBy }: { run: RunRow; askedBy: AskedBy | null }) {
  const now = useNow(!FINISHED_STATES.includes(run.state));
  return (
    <dl class="facts-strip">
      <div><dt>Horde</dt><dd><a href={hordeHref(run.hordeId)}>{run.hordeId}</a></dd></div>
      <div>
        <dt>Provenance</dt>
        <dd>
          <ProvenanceTag provenance={run.provenance} />
          {askedBy !== null && <> <a class="small" href={chatHref(askedBy.sessionId)} data-testid="run-asked-by">open the conversation</a></>}
        </dd>
      </div>
      <div><dt>Created</dt><dd>{formatTime(run.createdAt)}</dd></div>
      <div><dt>Finished</dt><dd>{run.finishedAt === null ? <span class="muted">not yet</span> : formatTime(run.finishedAt)}</dd></div>
      <div><dt>Duration</dt><dd>{formatDuration((run.finishedAt ?? now) - run.createdAt)}</dd></div>
    </dl>
  );
}

/** What the run was given, and where its files are. */
export function RunInput({ run, workdir }: { run: RunRow; workdir: string }) {
  return (
    <div class="panel run-input">
      <h2 class="h-small">Input</h2>
      <KeyValues entries={Object.entries(run.input).map(([k, v]) => [k, <code class="pre-wrap">{v}</code>])} empty="No input." />
      <p class="small muted run-input__workdir">Workdir <code>{workdir}</code> · horde hash <code>{run.hordeHash.slice(0, 12)}</code></p>
    </div>
  );
}
