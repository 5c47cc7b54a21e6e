/** How times, durations and states read on screen. */
import type { RunState, StepState } from './types';

/** `1.2 s`, `3 min 4 s`, `2 h 5 min`. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const totalS = Math.floor(s);
  const m = Math.floor(totalS / 60);
  if (m < 60) return `${m} min ${totalS % 60} s`;
  const h = Math.floor(m / 60);
  return `${h} h ${m % 60} min`;
}

/** A local date and time, e.g. `2025-03-04 14:05:09`. */
export function formatTime(at: number | string | null | undefined): string {
  if (at === null || at === undefined) return '—';
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return String(at);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export const RUN_STATE_LABEL: Record<RunState, string> = {
  queued: 'queued',
  running: 'running',
  awaiting_input: 'waiting for you',
  succeeded: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
};

export const STEP_STATE_LABEL: Record<StepState, string> = {
  pending: 'not started',
  running: 'running',
  passed: 'passed',
  failed: 'failed',
  interrupted: 'interrupted',
  cancelled: 'cancelled',
  awaiting_approval: 'waiting for approval',
};

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A model call's price: `$0` for a local model, `unknown` when the provider's price is not known. */
export function formatCost(usd: number | null): string {
  if (usd === null) return 'unknown';
  if (usd === 0) return '$0';
  if (usd < 0.0001) return '< $0.0001';
  return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

/** A count with thousands grouped, the same in every locale (screens and tests read it alike). */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}
