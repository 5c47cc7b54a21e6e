/**
 * The versioned envelope of stored events, for any closed union tagged by `type` (a
 * run's events, a chat session's). A type's version only ever goes up; an older version
 * stays readable through an upcaster, so old logs keep replaying.
 */
import { KowalskiError, messageOf } from '../../core/index.js';

type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>;

export interface TypeSpec {
  /** The version this build writes. */
  current: number;
  /** Keys every version-`current` payload has. */
  required: readonly string[];
  /** `upcast[v]` turns version v into v + 1. */
  upcast: Readonly<Record<number, Upcaster>>;
}

export interface Envelope<E extends { type: string }> {
  currentVersion(type: E['type']): number;
  /** The JSON stored for an event: everything but `type` (which has its own column). */
  encode(event: E): { type: E['type']; v: number; data: string };
  /** A stored row back to a current-version event; unknown types, versions or shapes are a typed error naming `where` (e.g. `run X event 4`). */
  decode(where: string, type: string, v: number, json: string): E;
}

export function envelopeOf<E extends { type: string }>(versions: { readonly [K in E['type']]: TypeSpec }): Envelope<E> {
  const specs: Readonly<Record<string, TypeSpec>> = versions;
  return {
    currentVersion: (type) => specs[type]!.current,
    encode(event) {
      const { type, ...data } = event;
      return { type, v: specs[type]!.current, data: JSON.stringify(data) };
    },
    decode(where, type, v, json) {
      if (!Object.hasOwn(specs, type)) {
        throw new KowalskiError('KW_ERR_EVENT_UNKNOWN', `${where} has type "${type}", which this kowalski does not know (written by a newer version?)`);
      }
      const spec = specs[type]!;
      if (!Number.isInteger(v) || v < 1 || v > spec.current) {
        throw new KowalskiError('KW_ERR_EVENT_UNKNOWN', `${where}: ${type} version ${v} is not one this kowalski reads (1..${spec.current})`);
      }
      let data: Record<string, unknown>;
      try {
        data = JSON.parse(json) as Record<string, unknown>;
      } catch (err) {
        throw new KowalskiError('KW_ERR_REPLAY_DIVERGED', `${where}: the payload is not JSON (${messageOf(err)})`, { cause: err });
      }
      if (data === null || typeof data !== 'object' || Array.isArray(data)) {
        throw new KowalskiError('KW_ERR_REPLAY_DIVERGED', `${where}: the payload is not an object`);
      }
      for (let from = v; from < spec.current; from++) data = spec.upcast[from]!(data);
      for (const key of spec.required) {
        if (!(key in data)) throw new KowalskiError('KW_ERR_REPLAY_DIVERGED', `${where}: ${type} lacks "${key}"`);
      }
      return { type, ...data } as E;
    },
  };
}
