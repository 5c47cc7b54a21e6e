/** Random run event sequences for property tests of the run machine: seeded, biased toward events that fit. */
import type { RunContext, RunEvent, StepPolicy } from '../../actors/index.js';
import { miniHorde } from './hordes.js';

/** A small seeded PRNG (mulberry32): the same seed gives the same sequence. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SHAPES: { pipeline: string[]; edges: string[] }[] = [
  { pipeline: ['a', 'b', 'c'], edges: [] },
  { pipeline: ['a', 'b', 'c', 'd'], edges: ['a>b', 'a>c', 'b>d', 'c>d'] },
  { pipeline: ['a', 'b', 'c', 'd'], edges: ['a>b:pass', 'a>c:fail', 'b>d', 'c>d'] },
  { pipeline: ['dev', 'test'], edges: ['dev>test', 'test>dev:fail:2'] },
  { pipeline: ['x', 'a', 'b', 'c'], edges: ['x>a', 'b>c'] },
  { pipeline: ['a', 'b', 'c', 'd'], edges: ['a>b', 'a>c', 'b>d', 'c>d', 'd>b:fail:1'] },
  { pipeline: ['check', 'fix', 'report'], edges: ['check>fix:fail', 'check>report:pass'] },
];

/** A `run.created` of a random shape with random policies (approval, idempotent). */
export function randomCreated(rand: () => number): Extract<RunEvent, { type: 'run.created' }> {
  const shape = SHAPES[Math.floor(rand() * SHAPES.length)]!;
  const horde = miniHorde(shape.pipeline, shape.edges);
  const policy: Record<string, StepPolicy> = {};
  for (const s of shape.pipeline) {
    policy[s] = { approval: rand() < 0.3, idempotent: rand() < 0.8 };
    if (rand() < 0.15) policy[s] = { approval: true, idempotent: true, review: true };
  }
  return { type: 'run.created', hordeId: horde.id, horde, policy, input: {}, provenance: 'test' };
}

/** One event for `ctx`: any type, any step (sometimes one the horde lacks), attempts and hashes usually right. */
export function randomEvent(rand: () => number, ctx: RunContext): RunEvent {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const names = ctx.graph.pipeline;
  const step = rand() < 0.03 ? 'nope' : pick(names);
  const s = ctx.steps[step];
  const off = rand() < 0.1 ? pick([-1, 1, 2]) : 0;
  const attempt = (s?.attempts ?? 0) + off;
  const hash = rand() < 0.85 ? (s?.pending?.hash ?? 'h0') : 'forged';
  const command = { argv: ['/bin/sh', '-c', 'true'], cwd: '/', env: ['PATH'] };
  switch (pick(['started', 'started', 'spawned', 'finished', 'finished', 'interrupted', 'requested', 'granted', 'denied', 'cancelled', 'created', 'exceeded', 'raised', 'edited'] as const)) {
    case 'started': return { type: 'step.started', step, attempt: attempt + 1 };
    case 'spawned': return { type: 'step.spawned', step, attempt, pgid: 100, token: 't' };
    case 'finished': return { type: 'step.finished', step, attempt, outcome: rand() < 0.6 ? 'pass' : 'fail', durationMs: 1, summary: 's', ...(rand() < 0.5 ? { artifact: `${step}.md` } : {}) };
    case 'interrupted': return { type: 'step.interrupted', step, attempt };
    case 'requested': return rand() < 0.3
      ? { type: 'approval.requested', step, reason: 'review', command, hash: `h${Math.floor(rand() * 3)}`, artifact: { path: 'a.md', bytes: 1 } }
      : { type: 'approval.requested', step, reason: 'confirm_command', command, hash: `h${Math.floor(rand() * 3)}` };
    case 'edited': return { type: 'artifact.edited', step, path: rand() < 0.9 ? 'a.md' : 'b.md', before: hash, after: `e${Math.floor(rand() * 3)}`, diff: '-a\n+b\n', by: 'operator' };
    case 'granted': return { type: 'approval.granted', step, hash, by: 'operator' };
    case 'denied': return { type: 'approval.denied', step, reason: 'no', by: 'operator' };
    case 'cancelled': return rand() < 0.2 ? { type: 'run.cancelled', reason: 'r', by: 'operator' } : { type: 'step.started', step, attempt: attempt + 1 };
    case 'created': return randomCreated(rand);
    // A run parked for its budget accepts little, so park rarely: the other events need running runs too.
    case 'exceeded': return rand() < 0.7 ? { type: 'step.started', step, attempt: attempt + 1 } : { type: 'budget.exceeded', over: ['tokens'], spent: { model_calls: 1, tokens: 10, cost_usd: 0, tool_calls: 0, wall_secs: 1, unpriced: 0 }, limits: { tokens: 10 } };
    case 'raised': return { type: 'budget.raised', limits: { tokens: 100 }, by: 'operator' };
  }
}
