/**
 * Stored events: the run machine's events (actors/run.events.ts) in a versioned
 * envelope. A type's version only ever goes up; an older version stays readable
 * through an upcaster in VERSIONS, so old logs keep replaying.
 */
import { KowalskiError } from '../core/index.js';
import type { RunEvent, RunEventType } from '../actors/index.js';

export interface StoredEvent {
  /** Global commit order. */
  gseq: number;
  runId: string;
  /** Per-run order, from 1. */
  seq: number;
  /** Engine clock at append, ms since epoch. */
  at: number;
  event: RunEvent;
}

type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

interface TypeSpec {
  /** The version this build writes. */
  current: number;
  /** Keys every version-`current` payload has. */
  required: readonly string[];
  /** `upcast[v]` turns version v into v + 1. */
  upcast: Readonly<Record<number, Upcaster>>;
}

const VERSIONS: { readonly [K in RunEventType]: TypeSpec } = {
  'run.created': { current: 1, required: ['hordeId', 'horde', 'policy', 'input', 'provenance'], upcast: {} },
  'step.started': { current: 1, required: ['step', 'attempt'], upcast: {} },
  'step.spawned': { current: 1, required: ['step', 'attempt', 'pgid', 'token'], upcast: {} },
  'step.finished': { current: 1, required: ['step', 'attempt', 'outcome', 'durationMs'], upcast: {} },
  'step.interrupted': { current: 1, required: ['step', 'attempt'], upcast: {} },
  'approval.requested': { current: 1, required: ['step', 'reason', 'command', 'hash'], upcast: {} },
  'approval.granted': { current: 1, required: ['step', 'hash', 'by'], upcast: {} },
  'approval.denied': { current: 1, required: ['step', 'reason', 'by'], upcast: {} },
  'run.cancelled': { current: 1, required: ['reason', 'by'], upcast: {} },
};

export function currentVersion(type: RunEventType): number {
  return VERSIONS[type].current;
}

/** The JSON stored for an event: everything but `type` (which has its own column). */
export function encodeEvent(event: RunEvent): { type: RunEventType; v: number; data: string } {
  const { type, ...data } = event;
  return { type, v: VERSIONS[type].current, data: JSON.stringify(data) };
}

/** A stored row back to a current-version event; unknown types, versions or shapes are a typed error naming the row. */
export function decodeEvent(runId: string, seq: number, type: string, v: number, json: string): RunEvent {
  const where = `run ${runId} event ${seq}`;
  if (!Object.hasOwn(VERSIONS, type)) {
    throw new KowalskiError('KW_ERR_EVENT_UNKNOWN', `${where} has type "${type}", which this kowalski does not know (written by a newer version?)`);
  }
  const spec = VERSIONS[type as RunEventType];
  if (!Number.isInteger(v) || v < 1 || v > spec.current) {
    throw new KowalskiError('KW_ERR_EVENT_UNKNOWN', `${where}: ${type} version ${v} is not one this kowalski reads (1..${spec.current})`);
  }
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(json) as Record<string, unknown>;
  } catch (err) {
    throw new KowalskiError('KW_ERR_REPLAY_DIVERGED', `${where}: the payload is not JSON (${(err as Error).message})`, { cause: err });
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new KowalskiError('KW_ERR_REPLAY_DIVERGED', `${where}: the payload is not an object`);
  }
  for (let from = v; from < spec.current; from++) data = spec.upcast[from]!(data);
  for (const key of spec.required) {
    if (!(key in data)) throw new KowalskiError('KW_ERR_REPLAY_DIVERGED', `${where}: ${type} lacks "${key}"`);
  }
  return { type, ...data } as RunEvent;
}
