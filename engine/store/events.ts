/**
 * Stored events: the run machine's events (actors/run.events.ts) in a versioned
 * envelope (envelope.ts).
 */
import type { RunEvent, RunEventType } from '../../actors/index.js';
import { envelopeOf } from './envelope.js';
import type { StoredEvent as StoredEventOf } from '../../contract/runs.js';

/** A run's event as stored and sent (contract/runs.ts), with the run machine's own union. */
export type StoredEvent = StoredEventOf<RunEvent>;

const runEnvelope = envelopeOf<RunEvent>({
  'run.created': { current: 1, required: ['hordeId', 'horde', 'policy', 'input', 'provenance'], upcast: {} },
  'step.started': { current: 1, required: ['step', 'attempt'], upcast: {} },
  'step.spawned': { current: 1, required: ['step', 'attempt', 'pgid', 'token'], upcast: {} },
  'step.finished': { current: 1, required: ['step', 'attempt', 'outcome', 'durationMs'], upcast: {} },
  'step.interrupted': { current: 1, required: ['step', 'attempt'], upcast: {} },
  'approval.requested': { current: 1, required: ['step', 'reason', 'command', 'hash'], upcast: {} },
  'approval.granted': { current: 1, required: ['step', 'hash', 'by'], upcast: {} },
  'approval.denied': { current: 1, required: ['step', 'reason', 'by'], upcast: {} },
  'run.cancelled': { current: 1, required: ['reason', 'by'], upcast: {} },
  'budget.exceeded': { current: 1, required: ['over', 'spent', 'limits'], upcast: {} },
  'budget.raised': { current: 1, required: ['limits', 'by'], upcast: {} },
  'artifact.edited': { current: 1, required: ['step', 'path', 'before', 'after', 'diff', 'by'], upcast: {} },
});

/** The JSON stored for an event: everything but `type` (which has its own column). */
export function encodeEvent(event: RunEvent): { type: RunEventType; v: number; data: string } {
  return runEnvelope.encode(event);
}

/** A stored row back to a current-version event; unknown types, versions or shapes are a typed error naming the row. */
export function decodeEvent(runId: string, seq: number, type: string, v: number, json: string): RunEvent {
  return runEnvelope.decode(`run ${runId} event ${seq}`, type, v, json);
}
