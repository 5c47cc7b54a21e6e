/**
 * The run's pure logic: (context, event) → context + effects. No I/O, no clock.
 * The XState machine (run.machine.ts) calls these; tests call them directly too.
 */
import type { RunEvent, StepPolicy } from './run.events.js';
import type { RunContext, StepState } from './run.context.js';
import { edgeMatches, incomingForward, loopBody, outgoing } from './run.graph.js';

/** What the engine must do after the events that caused it are committed. */
export type RunEffect =
  | { type: 'dispatch'; step: string; attempt: number }
  | { type: 'kill'; step: string; attempt: number; reason: 'cancelled' | 'run_failed' };

type Created = Extract<RunEvent, { type: 'run.created' }>;

export function initialContext(runId: string, created: Created): RunContext {
  const graph = { pipeline: created.horde.pipeline, edges: created.horde.edges };
  const steps: Record<string, StepState> = {};
  for (const name of graph.pipeline) steps[name] = { status: 'pending', attempts: 0, activated: false };
  const first = graph.pipeline[0];
  if (first !== undefined) steps[first] = { status: 'ready', attempts: 0, activated: true };
  const policy: Record<string, StepPolicy> = created.policy;
  return {
    runId,
    hordeId: created.hordeId,
    graph,
    policy,
    steps,
    edges: graph.edges.map(() => 'pending'),
    loops: graph.edges.map(() => 0),
  };
}

/** Why `event` cannot follow `ctx` (an altered or foreign log), or undefined when it fits. */
export function checkRunEvent(ctx: RunContext, event: RunEvent): string | undefined {
  if (ctx.cancelled !== undefined || ctx.error !== undefined) return `the run has already ended, but the log continues with ${event.type}`;
  if (event.type === 'run.created') return 'run.created appears twice';
  if (event.type === 'run.cancelled') return undefined;
  const s = ctx.steps[event.step];
  if (s === undefined) return `${event.type} names step "${event.step}", which the run's horde does not have`;
  switch (event.type) {
    case 'step.started':
      if (s.status !== 'ready') return `step.started for "${event.step}" while it is ${s.status}`;
      if (event.attempt !== s.attempts + 1) return `step.started for "${event.step}" with attempt ${event.attempt}, expected ${s.attempts + 1}`;
      if (ctx.policy[event.step]?.approval === true && s.approvedHash === undefined) return `step.started for "${event.step}" without an approval`;
      return undefined;
    case 'step.spawned':
    case 'step.finished':
    case 'step.interrupted':
      if (s.status !== 'running' || s.attempts !== event.attempt) return `${event.type} for "${event.step}" attempt ${event.attempt} while it is ${s.status} (attempt ${s.attempts})`;
      return undefined;
    case 'approval.requested':
      if (s.status !== 'ready' && s.status !== 'unknown') return `approval.requested for "${event.step}" while it is ${s.status}`;
      return undefined;
    case 'approval.granted':
      if (s.status !== 'awaiting_approval' || s.pending === undefined) return `approval.granted for "${event.step}", which is not waiting for one`;
      if (s.pending.hash !== event.hash) return `approval.granted for "${event.step}" binds to ${event.hash}, but ${s.pending.hash} was shown`;
      return undefined;
    case 'approval.denied':
      if (s.status !== 'awaiting_approval') return `approval.denied for "${event.step}", which is not waiting for one`;
      return undefined;
    default: {
      const never: never = event;
      return `unknown event ${(never as { type: string }).type}`;
    }
  }
}

/** Apply an event that `checkRunEvent` accepted. Returns the new context and the effects to perform after commit. */
export function applyRunEvent(ctx: RunContext, event: RunEvent): { context: RunContext; effects: RunEffect[] } {
  const effects: RunEffect[] = [];
  const next: RunContext = { ...ctx, steps: { ...ctx.steps } };
  const set = (name: string, patch: Partial<StepState>, drop: (keyof StepState)[] = []): void => {
    next.steps[name] = omit({ ...next.steps[name]!, ...patch }, drop);
  };
  switch (event.type) {
    case 'run.created':
      return { context: ctx, effects };
    case 'step.started':
      set(event.step, { status: 'running', attempts: event.attempt, activated: false }, ['pgid', 'token']);
      effects.push({ type: 'dispatch', step: event.step, attempt: event.attempt });
      return { context: next, effects };
    case 'step.spawned':
      set(event.step, { pgid: event.pgid, token: event.token });
      return { context: next, effects };
    case 'step.interrupted':
      set(event.step, { status: next.policy[event.step]?.idempotent === false ? 'unknown' : 'ready' }, ['pgid', 'token']);
      return { context: next, effects };
    case 'approval.requested':
      set(event.step, { status: 'awaiting_approval', pending: { reason: event.reason, command: event.command, hash: event.hash } });
      return { context: next, effects };
    case 'approval.granted':
      set(event.step, { status: 'ready', approvedHash: event.hash }, ['pending']);
      return { context: next, effects };
    case 'approval.denied': {
      set(event.step, {}, ['pending']);
      const error = { code: 'KW_ERR_APPROVAL_DENIED' as const, message: `the operator denied "${event.step}": ${event.reason}` };
      finishStep(next, event.step, 'fail', { error, summary: `denied: ${event.reason}` });
      killOthersIfEnded(next, effects, 'run_failed');
      return { context: next, effects };
    }
    case 'step.finished': {
      set(event.step, {}, ['pgid', 'token']);
      const extra: Partial<StepState> = {};
      if (event.artifact !== undefined) extra.artifact = event.artifact;
      if (event.summary !== undefined) extra.summary = event.summary;
      if (event.error !== undefined) extra.error = event.error;
      finishStep(next, event.step, event.outcome, extra);
      killOthersIfEnded(next, effects, 'run_failed');
      return { context: next, effects };
    }
    case 'run.cancelled':
      next.cancelled = { reason: event.reason, by: event.by };
      killOthersIfEnded(next, effects, 'cancelled');
      return { context: next, effects };
    default: {
      const never: never = event;
      throw new Error(`unhandled run event ${(never as { type: string }).type}`);
    }
  }
}

/** A copy without `keys` (JSON-shaped: no `undefined` values kept around). */
function omit<T extends object>(obj: T, keys: (keyof T)[]): T {
  if (keys.length === 0) return obj;
  const out = { ...obj };
  for (const k of keys) delete out[k];
  return out;
}

function killOthersIfEnded(ctx: RunContext, effects: RunEffect[], reason: 'cancelled' | 'run_failed'): void {
  if (ctx.error === undefined && ctx.cancelled === undefined) return;
  for (const name of ctx.graph.pipeline) {
    const s = ctx.steps[name]!;
    if (s.status === 'running') effects.push({ type: 'kill', step: name, attempt: s.attempts, reason });
  }
}

/** Record a step's outcome, route its edges (loop-backs first), then settle the graph. Mutates `ctx` (a fresh copy). */
function finishStep(ctx: RunContext, name: string, outcome: 'pass' | 'fail', extra: Partial<StepState>): void {
  ctx.edges = [...ctx.edges];
  ctx.loops = [...ctx.loops];
  ctx.steps[name] = { ...ctx.steps[name]!, ...extra, status: outcome === 'pass' ? 'passed' : 'failed', outcome };
  const out = outgoing(ctx.graph, name);
  let routed = false;
  let exhausted: string | undefined;
  for (const i of out) {
    const e = ctx.graph.edges[i]!;
    if (!e.back || !edgeMatches(e, outcome)) continue;
    if (ctx.loops[i]! >= (e.maxLoops ?? 0)) {
      exhausted = `the loop ${e.from} → ${e.to} (when = "${e.when}") reached max_loops = ${e.maxLoops ?? 0}`;
      continue;
    }
    ctx.loops[i] = ctx.loops[i]! + 1;
    for (const s of loopBody(ctx.graph, e)) {
      const prev = ctx.steps[s]!;
      ctx.steps[s] = { ...prev, status: 'pending', activated: false };
      for (const j of outgoing(ctx.graph, s)) if (!ctx.graph.edges[j]!.back) ctx.edges[j] = 'pending';
    }
    ctx.steps[e.to] = { ...ctx.steps[e.to]!, activated: true, from: name };
    routed = true;
  }
  if (!routed) {
    for (const i of out) {
      const e = ctx.graph.edges[i]!;
      if (e.back) continue;
      if (edgeMatches(e, outcome)) {
        ctx.edges[i] = 'taken';
        ctx.steps[e.to] = { ...ctx.steps[e.to]!, from: name };
        routed = true;
      } else {
        ctx.edges[i] = 'dead';
      }
    }
  }
  if (!routed && (outcome === 'fail' || exhausted !== undefined)) {
    const step = ctx.steps[name]!;
    if (exhausted !== undefined) {
      ctx.error = { code: 'KW_ERR_LOOP_EXHAUSTED', message: `step "${name}" ${outcome === 'pass' ? 'passed' : 'failed'} and ${exhausted}; no other edge matches` };
    } else if (step.error !== undefined) {
      ctx.error = { code: step.error.code, message: `step "${name}" failed: ${step.error.message}` };
    } else {
      ctx.error = { code: 'KW_ERR_NO_ROUTE', message: `step "${name}" failed${step.summary === undefined ? '' : ` (${step.summary})`} and no fail edge leads anywhere` };
    }
    return;
  }
  settle(ctx);
}

/** Make pending steps ready (all incoming branches resolved, one taken) or skipped (all dead), until nothing changes. */
function settle(ctx: RunContext): void {
  let changed = true;
  while (changed) {
    changed = false;
    for (const name of ctx.graph.pipeline) {
      const s = ctx.steps[name]!;
      if (s.status !== 'pending') continue;
      if (s.activated) {
        ctx.steps[name] = { ...s, status: 'ready' };
        changed = true;
        continue;
      }
      const inc = incomingForward(ctx.graph, name);
      if (inc.length === 0) continue;
      if (inc.some((i) => ctx.edges[i] === 'pending')) continue;
      if (inc.some((i) => ctx.edges[i] === 'taken')) {
        ctx.steps[name] = { ...s, status: 'ready' };
      } else {
        ctx.steps[name] = { ...s, status: 'skipped' };
        for (const j of outgoing(ctx.graph, name)) if (!ctx.graph.edges[j]!.back) ctx.edges[j] = 'dead';
      }
      changed = true;
    }
  }
}
