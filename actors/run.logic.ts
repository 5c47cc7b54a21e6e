/**
 * The run's pure context updates, one per event the machine accepts, and the guards that
 * decide whether it accepts it. No I/O, no clock. The machine (run.machine.ts) says which
 * of these apply in which state; these functions say what they do to the context.
 */
import { mergeBudget } from '../core/index.js';
import type { EventError, RunEvent, StepPolicy } from './run.events.js';
import type { RunContext, StepState, StepStatus } from './run.context.js';
import { edgeMatches, incomingForward, loopBody, outgoing, roots } from './run.graph.js';
import { canMove, moveTo } from './run.step.js';

/** What the engine must do after the events that caused it are committed. */
export type RunEffect =
  | { type: 'dispatch'; step: string; attempt: number }
  | { type: 'kill'; step: string; attempt: number; reason: 'cancelled' | 'run_failed' };

type Created = Extract<RunEvent, { type: 'run.created' }>;
type Of<T extends RunEvent['type']> = Extract<RunEvent, { type: T }>;

export function initialContext(runId: string, created: Created): RunContext {
  const graph = { pipeline: created.horde.pipeline, edges: created.horde.edges };
  const steps: Record<string, StepState> = {};
  for (const name of graph.pipeline) steps[name] = { status: 'pending', attempts: 0, activated: false };
  for (const root of roots(graph)) steps[root] = { status: 'ready', attempts: 0, activated: true };
  const policy: Record<string, StepPolicy> = created.policy;
  return {
    runId,
    hordeId: created.hordeId,
    graph,
    policy,
    steps,
    edges: graph.edges.map(() => 'pending'),
    loops: graph.edges.map(() => 0),
    budget: { limits: created.budget ?? {} },
  };
}

// ── guards: may this event follow this context? ─────────────────────────────────────

/** `step.started`: the step is ready, the attempt is the next one, and an approval it needs was given (none is needed when it reuses an earlier run's result). */
export function canStart(ctx: RunContext, e: Of<'step.started'>): boolean {
  const s = ctx.steps[e.step];
  return s !== undefined && canMove(s.status, 'running') && e.attempt === s.attempts + 1 && ctx.budget.parked === undefined
    && (ctx.policy[e.step]?.approval !== true || s.approvedHash !== undefined || reusesResult(ctx, e.step));
}

/** A re-run's step that has not finished in this run yet: its next attempt takes the earlier run's result instead of running. */
export function reusesResult(ctx: RunContext, step: string): boolean {
  return ctx.policy[step]?.reuse !== undefined && ctx.steps[step]?.outcome === undefined;
}

/** `step.spawned`, `step.finished`, `step.interrupted`: about the attempt that is running now. */
export function isRunningAttempt(ctx: RunContext, e: { step: string; attempt: number }): boolean {
  const s = ctx.steps[e.step];
  return s !== undefined && s.status === 'running' && s.attempts === e.attempt;
}

/** `approval.requested`: before a ready step starts, or for an interrupted unsafe one. */
export function canAsk(ctx: RunContext, e: Of<'approval.requested'>): boolean {
  const s = ctx.steps[e.step];
  return s !== undefined && canMove(s.status, 'awaiting_approval');
}

/** `approval.granted`: the step waits for the operator, and the grant binds to the hash that was shown. */
export function grantFits(ctx: RunContext, e: Of<'approval.granted'>): boolean {
  const s = ctx.steps[e.step];
  return s !== undefined && s.status === 'awaiting_approval' && s.pending?.hash === e.hash;
}

/** `artifact.edited`: the step waits for review, and the edit starts from the artifact that was shown. */
export function editFits(ctx: RunContext, e: Of<'artifact.edited'>): boolean {
  const s = ctx.steps[e.step];
  return s !== undefined && s.status === 'awaiting_approval' && s.pending?.reason === 'review'
    && s.pending.hash === e.before && s.pending.artifact?.path === e.path;
}

/** `approval.denied`: the step waits for the operator. */
export function isWaiting(ctx: RunContext, e: Of<'approval.denied'>): boolean {
  return ctx.steps[e.step]?.status === 'awaiting_approval';
}

/** `budget.exceeded`: not parked for it already, and a step is ready to start (the park holds it back). */
export function canPark(ctx: RunContext): boolean {
  return ctx.budget.parked === undefined && ctx.graph.pipeline.some((name) => ctx.steps[name]!.status === 'ready');
}

// ── updates: the context after an accepted event ────────────────────────────────────

export function startStep(ctx: RunContext, e: Of<'step.started'>): RunContext {
  return withStep(ctx, e.step, { attempts: e.attempt, activated: false }, ['pgid', 'token'], 'running');
}

export function recordSpawn(ctx: RunContext, e: Of<'step.spawned'>): RunContext {
  return withStep(ctx, e.step, { pgid: e.pgid, token: e.token });
}

export function interruptStep(ctx: RunContext, e: Of<'step.interrupted'>): RunContext {
  const unsafe = ctx.policy[e.step]?.idempotent === false && !reusesResult(ctx, e.step);
  return withStep(ctx, e.step, {}, ['pgid', 'token'], unsafe ? 'unknown' : 'ready');
}

export function requestApproval(ctx: RunContext, e: Of<'approval.requested'>): RunContext {
  const pending: StepState['pending'] = { reason: e.reason, command: e.command, hash: e.hash };
  if (e.artifact !== undefined) pending.artifact = e.artifact;
  return withStep(ctx, e.step, { pending }, [], 'awaiting_approval');
}

/** The approval now binds to the edited artifact; the step's attempt will put the edit in place. */
export function recordEdit(ctx: RunContext, e: Of<'artifact.edited'>): RunContext {
  const s = ctx.steps[e.step]!;
  return withStep(ctx, e.step, { pending: { ...s.pending!, hash: e.after }, edit: { path: e.path, before: e.before, after: e.after } });
}

export function grantApproval(ctx: RunContext, e: Of<'approval.granted'>): RunContext {
  return withStep(ctx, e.step, { approvedHash: e.hash }, ['pending'], 'ready');
}

export function denyApproval(ctx: RunContext, e: Of<'approval.denied'>): RunContext {
  const next = withStep(ctx, e.step, {}, ['pending']);
  const error = { code: 'KW_ERR_APPROVAL_DENIED' as const, message: `the operator denied "${e.step}": ${e.reason}` };
  finishStep(next, e.step, 'fail', { error, summary: `denied: ${e.reason}` });
  return next;
}

export function finishAttempt(ctx: RunContext, e: Of<'step.finished'>): RunContext {
  // A review's approval covers one pass: a loop that comes back to it asks again.
  const next = withStep(ctx, e.step, {}, ctx.policy[e.step]?.review === true ? ['pgid', 'token', 'approvedHash', 'edit'] : ['pgid', 'token']);
  const extra: Partial<StepState> = {};
  if (e.artifact !== undefined) extra.artifact = e.artifact;
  if (e.summary !== undefined) extra.summary = e.summary;
  if (e.error !== undefined) extra.error = e.error;
  finishStep(next, e.step, e.outcome, extra);
  return next;
}

export function cancelRun(ctx: RunContext, e: Of<'run.cancelled'>): RunContext {
  return { ...ctx, cancelled: { reason: e.reason, by: e.by } };
}

export function parkForBudget(ctx: RunContext, e: Of<'budget.exceeded'>): RunContext {
  return { ...ctx, budget: { limits: ctx.budget.limits, parked: { over: e.over, spent: e.spent } } };
}

export function raiseBudget(ctx: RunContext, e: Of<'budget.raised'>): RunContext {
  return { ...ctx, budget: { limits: mergeBudget(ctx.budget.limits, e.limits) } };
}

/** The attempts running now: what an ended run must kill. */
export function runningAttempts(ctx: RunContext): { step: string; attempt: number }[] {
  const out: { step: string; attempt: number }[] = [];
  for (const name of ctx.graph.pipeline) {
    const s = ctx.steps[name]!;
    if (s.status === 'running') out.push({ step: name, attempt: s.attempts });
  }
  return out;
}

/** A copy of `ctx` with one step patched, `drop` keys removed (JSON-shaped: no `undefined` values kept around), and moved to `status` when given. */
function withStep(ctx: RunContext, name: string, patch: Partial<Omit<StepState, 'status'>>, drop: (keyof StepState)[] = [], status?: StepStatus): RunContext {
  const prev = ctx.steps[name]!;
  const step: StepState = status === undefined ? { ...prev, ...patch } : moveTo(prev, status, patch);
  for (const k of drop) delete step[k];
  return { ...ctx, steps: { ...ctx.steps, [name]: step } };
}

/**
 * Record a step's outcome, route its edges (loop-backs first), then settle the graph; when
 * that ends the run, say whether a step failed on the way. Mutates `ctx` (a fresh copy).
 * An implicit edge (the straight line of a horde without `[[edges]]`) carries a failed
 * step's verdict (its artifact says fail) but not a step that broke without one (an
 * error, a timeout, a denial): as in 1.x, that stops the run.
 */
function finishStep(ctx: RunContext, name: string, outcome: 'pass' | 'fail', extra: Partial<StepState>): void {
  ctx.edges = [...ctx.edges];
  ctx.loops = [...ctx.loops];
  ctx.steps[name] = moveTo(ctx.steps[name]!, outcome === 'pass' ? 'passed' : 'failed', { ...extra, outcome });
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
      ctx.steps[s] = moveTo(prev, 'pending', { activated: false });
      for (const j of outgoing(ctx.graph, s)) if (!ctx.graph.edges[j]!.back) ctx.edges[j] = 'pending';
    }
    ctx.steps[e.to] = { ...ctx.steps[e.to]!, activated: true, from: name };
    routed = true;
  }
  if (!routed) {
    const broke = outcome === 'fail' && extra.artifact === undefined;
    for (const i of out) {
      const e = ctx.graph.edges[i]!;
      if (e.back) continue;
      if (edgeMatches(e, outcome) && !(broke && e.implicit)) {
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
  if (isOver(ctx)) {
    const failed = failuresMovedOn(ctx);
    if (failed.length > 0) ctx.error = stepsFailed(ctx, failed);
  }
}

/** Nothing runs, may start, or waits for the operator: the run ends with this event. */
function isOver(ctx: RunContext): boolean {
  return ctx.graph.pipeline.every((name) => ['pending', 'passed', 'failed', 'skipped'].includes(ctx.steps[name]!.status));
}

/** The steps whose last attempt failed and that only `always` edges moved on from (no `fail` edge took the failure). */
function failuresMovedOn(ctx: RunContext): string[] {
  return ctx.graph.pipeline.filter((name) => ctx.steps[name]!.status === 'failed'
    && !outgoing(ctx.graph, name).some((i) => ctx.edges[i] === 'taken' && ctx.graph.edges[i]!.when === 'fail'));
}

/** `KW_ERR_RAN_PAST_FAILURE`: the run went on past failed steps, as 1.x did, and ends saying which. */
function stepsFailed(ctx: RunContext, names: string[]): EventError {
  const each = names.map((n) => {
    const s = ctx.steps[n]!;
    const why = s.error?.message ?? s.summary;
    return `"${n}"${why === undefined ? '' : ` (${why})`}`;
  });
  return {
    code: 'KW_ERR_RAN_PAST_FAILURE',
    message: `step${names.length > 1 ? 's' : ''} ${each.join(', ')} failed; the run went on to the end as in 1.x, since the edges out of ${names.length > 1 ? 'them' : 'it'} are "always": the later steps ran and their artifacts are kept`,
  };
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
        ctx.steps[name] = moveTo(s, 'ready');
        changed = true;
        continue;
      }
      const inc = incomingForward(ctx.graph, name);
      if (inc.length === 0) continue;
      if (inc.some((i) => ctx.edges[i] === 'pending')) continue;
      if (inc.some((i) => ctx.edges[i] === 'taken')) {
        ctx.steps[name] = moveTo(s, 'ready');
      } else {
        ctx.steps[name] = moveTo(s, 'skipped');
        for (const j of outgoing(ctx.graph, name)) if (!ctx.graph.edges[j]!.back) ctx.edges[j] = 'dead';
      }
      changed = true;
    }
  }
}
