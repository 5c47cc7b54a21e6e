/**
 * The projections rebuilt from the log alone: every run's events, in commit order, folded
 * through the run machine and written through `Projections` one event at a time, as if each
 * were a commit of its own. The engine groups events into commits (several batches, several
 * runs); the rows must come out the same whatever the grouping, so a store rebuilt this way
 * into empty tables holds exactly what the engine wrote (test/integration/store.rebuild.test.ts).
 */
import { KowalskiError } from '../../core/index.js';
import { RunActor } from '../../actors/index.js';
import type { EventLog } from './event-log.js';
import type { Projections } from './projections.js';

/** Write every run's projection rows from `log` into `projections` (empty tables; the caller holds the transaction). */
export function rebuildProjections(log: Pick<EventLog, 'readAllAfter'>, projections: Projections): { runs: number; events: number } {
  const actors = new Map<string, RunActor>();
  let events = 0;
  for (let after = 0; ; ) {
    const page = log.readAllAfter(after, 1000);
    if (page.length === 0) break;
    for (const { runId, seq, at, event, gseq } of page) {
      after = gseq;
      events++;
      let actor = actors.get(runId);
      if (actor === undefined) {
        if (event.type !== 'run.created') throw new KowalskiError('KW_ERR_REPLAY_DIVERGED', `run ${runId} starts with ${event.type}, not run.created`);
        actor = new RunActor(runId, event);
        actors.set(runId, actor);
        projections.apply(runId, seq, at, event);
        projections.settle(runId, seq, at, 'queued', actor.state, actor.context, event);
        continue;
      }
      const before = actor.state;
      const sent = actor.send(event);
      if (!sent.ok) throw new KowalskiError('KW_ERR_REPLAY_DIVERGED', `run ${runId} event ${seq} (${event.type}): ${sent.reason}`);
      projections.apply(runId, seq, at, event);
      projections.settle(runId, seq, at, before, actor.state, actor.context);
    }
  }
  for (const actor of actors.values()) actor.stop();
  return { runs: actors.size, events };
}
