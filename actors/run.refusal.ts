/**
 * Why the run machine refused an event, in words for the operator and the logs. It does
 * not decide anything (the machine's guarded transitions do): it describes the step the
 * event names as the run holds it.
 */
import type { RunEvent } from './run.events.js';
import type { RunContext, RunState } from './run.context.js';
import { FINAL_RUN_STATES } from './run.context.js';

export function describeRefusal(ctx: RunContext, state: RunState, event: RunEvent): string {
  if (FINAL_RUN_STATES.has(state)) return `the run has already ended (${state}), but the log continues with ${event.type}`;
  if (event.type === 'run.created') return 'run.created appears twice';
  if (event.type === 'run.cancelled') return `run.cancelled is not accepted while the run is ${state}`;
  if (event.type === 'budget.exceeded') return `budget.exceeded is not accepted while the run is ${state}${ctx.budget.parked === undefined ? ' with no step ready to start' : ': it is parked for its budget already'}`;
  if (event.type === 'budget.raised') return `budget.raised is not accepted while the run is ${state}`;
  const s = ctx.steps[event.step];
  if (s === undefined) return `${event.type} names step "${event.step}", which the run's horde does not have`;
  const attempt = 'attempt' in event ? ` attempt ${event.attempt}` : '';
  const waiting = s.pending === undefined ? 'not waiting for an approval' : `waiting for approval of ${s.pending.hash}`;
  const approval = ctx.policy[event.step]?.approval === true ? (s.approvedHash === undefined ? ', not approved yet' : ', approved') : '';
  return `${event.type} for "${event.step}"${attempt} is not accepted while the run is ${state}: the step is ${s.status} ` +
    `(attempt ${s.attempts}, expected next ${s.attempts + 1}${approval}), ${waiting}`;
}
