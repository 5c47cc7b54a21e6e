/**
 * The run's decisions (actors/run.decide.ts) and its steps' declared life (run.step.ts):
 * examples of each decision, then random event sequences (seeded) where the engine's
 * decisions are taken after every event, as the supervisor takes them: the machine accepts
 * every one, they respect the slots and the budget, they leave no step ready that could
 * have started or asked, and every status move a fold makes is one the table declares.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FINAL_RUN_STATES, RunActor, decide, foldRun } from '../../actors/index.js';
import type { DecideFacts, RunContext, RunEvent, StepPolicy, StepStatus } from '../../actors/index.js';
import { STEP_MOVES, canMove } from '../../actors/run.step.js';
import type { BudgetSpent } from '../../core/index.js';
import { miniHorde } from '../support/hordes.js';
import { prng, randomCreated, randomEvent } from '../support/run-events.js';

const SEEDS = 400;
const EVENTS = 40;

const SPENT: BudgetSpent = { model_calls: 1, tokens: 20, cost_usd: 0, tool_calls: 0, wall_secs: 1, unpriced: 0 };
const COMMAND = { argv: ['/bin/sh', '-c', 'true'], cwd: '/', env: [] };

function created(pipeline: string[], policy: Record<string, StepPolicy> = {}, edges: string[] = [], budget?: Record<string, number>): Extract<RunEvent, { type: 'run.created' }> {
  const horde = miniHorde(pipeline, edges);
  const full: Record<string, StepPolicy> = {};
  for (const s of pipeline) full[s] = policy[s] ?? { approval: false, idempotent: true };
  return { type: 'run.created', hordeId: horde.id, horde, policy: full, input: {}, provenance: 'test', ...(budget === undefined ? {} : { budget }) };
}

/** Facts as the engine gives them: a fixed command hash per step, a review of `a.md`, and a count of the questions asked. */
function facts(slots: number, opts: { hash?: string; spent?: BudgetSpent } = {}): DecideFacts & { asked: { command: number; review: number; spent: number } } {
  const asked = { command: 0, review: 0, spent: 0 };
  return {
    asked,
    slots,
    command: () => {
      asked.command += 1;
      return { ...COMMAND, hash: opts.hash ?? 'h1' };
    },
    review: (step) => {
      asked.review += 1;
      return { type: 'approval.requested', step, reason: 'review', command: COMMAND, hash: 'art', artifact: { path: 'a.md', bytes: 3 } };
    },
    spent: () => {
      asked.spent += 1;
      return opts.spent ?? SPENT;
    },
  };
}

test('ready roots start within the free slots; the rest wait for one', () => {
  const run = new RunActor('r', created(['a', 'b', 'c'], {}, ['a>c', 'b>c']));
  const d = decide(run.context, facts(1));
  assert.deepEqual(d.events, [{ type: 'step.started', step: 'a', attempt: 1 }]);
  assert.equal(d.waitsForSlot, true, 'b is ready and found no slot');
  const all = decide(run.context, facts(5));
  assert.deepEqual(all.events.map((e) => e.type === 'step.started' && e.step), ['a', 'b']);
  assert.equal(all.waitsForSlot, false);
  run.stop();
});

test('a command to confirm is asked for once; the same command approved starts, another command asks again', () => {
  const run = new RunActor('r', created(['a'], { a: { approval: true, idempotent: true } }));
  const ask = decide(run.context, facts(4, { hash: 'h1' }));
  assert.deepEqual(ask.events, [{ type: 'approval.requested', step: 'a', reason: 'confirm_command', command: COMMAND, hash: 'h1' }]);
  assert.ok(run.send(ask.events[0]!).ok);
  assert.deepEqual(decide(run.context, facts(4)).events, [], 'a step waiting for the operator asks nothing more and starts nothing');
  assert.ok(run.send({ type: 'approval.granted', step: 'a', hash: 'h1', by: 'operator' }).ok);
  assert.deepEqual(decide(run.context, facts(4, { hash: 'h1' })).events, [{ type: 'step.started', step: 'a', attempt: 1 }]);
  const changed = decide(run.context, facts(4, { hash: 'h2' }));
  assert.equal(changed.events[0]?.type, 'approval.requested', 'the approval binds to the command shown, not to the step');
  run.stop();
});

test('a review asks on its artifact, once per pass; a re-run step that reuses a result asks nothing', () => {
  const review = new RunActor('r', created(['w', 'rv'], { rv: { approval: true, idempotent: true, review: true } }));
  assert.ok(review.send({ type: 'step.started', step: 'w', attempt: 1 }).ok);
  assert.ok(review.send({ type: 'step.finished', step: 'w', attempt: 1, outcome: 'pass', durationMs: 1 }).ok);
  const f = facts(4);
  const d = decide(review.context, f);
  assert.equal(d.events.length, 1);
  assert.deepEqual({ ...d.events[0], command: undefined }, { type: 'approval.requested', step: 'rv', reason: 'review', command: undefined, hash: 'art', artifact: { path: 'a.md', bytes: 3 } });
  assert.deepEqual(f.asked, { command: 0, review: 1, spent: 0 });
  review.stop();

  const reuse = { run: 'earlier', attempt: 1, outcome: 'pass' as const, summary: 's' };
  const rerun = new RunActor('r', created(['a'], { a: { approval: true, idempotent: true, reuse } }));
  const r = decide(rerun.context, facts(4));
  assert.deepEqual(r.events, [{ type: 'step.started', step: 'a', attempt: 1 }]);
  rerun.stop();
});

test('a step interrupted and not safe to repeat asks the operator (outcome_unknown), with the command it would run', () => {
  const run = new RunActor('r', created(['a'], { a: { approval: false, idempotent: false } }));
  assert.ok(run.send({ type: 'step.started', step: 'a', attempt: 1 }).ok);
  assert.ok(run.send({ type: 'step.interrupted', step: 'a', attempt: 1 }).ok);
  assert.equal(run.context.steps.a!.status, 'unknown');
  assert.deepEqual(decide(run.context, facts(0, { hash: 'hx' })).events, [{ type: 'approval.requested', step: 'a', reason: 'outcome_unknown', command: COMMAND, hash: 'hx' }]);
  run.stop();
});

test('a run over its budget parks once, before any step starts; under it, the steps start; spent is asked once', () => {
  const over = new RunActor('r', created(['a', 'b', 'c'], {}, ['a>c', 'b>c'], { tokens: 10 }));
  const f = facts(4, { spent: SPENT });
  const d = decide(over.context, f);
  assert.deepEqual(d.events, [{ type: 'budget.exceeded', over: ['tokens'], spent: SPENT, limits: { tokens: 10 } }]);
  assert.equal(f.asked.spent, 1);
  assert.ok(over.send(d.events[0]!).ok);
  assert.equal(over.state, 'awaiting_input');
  assert.deepEqual(decide(over.context, facts(4)).events, [], 'parked for its budget: nothing starts, nothing parks again');
  over.stop();

  const under = new RunActor('r', created(['a', 'b', 'c'], {}, ['a>c', 'b>c'], { tokens: 100 }));
  const g = facts(4, { spent: SPENT });
  assert.deepEqual(decide(under.context, g).events.map((e) => e.type), ['step.started', 'step.started']);
  assert.equal(g.asked.spent, 1, 'what the run spent does not change within one decision');
  under.stop();
});

test('random runs with the engine deciding after every event: every decision accepted, within slots and budget, nothing left that could go on', () => {
  const seenDecisions = new Set<string>();
  for (let seed = 1; seed <= SEEDS; seed++) {
    const rand = prng(seed);
    const base = randomCreated(rand);
    const first: Extract<RunEvent, { type: 'run.created' }> = rand() < 0.3 ? { ...base, budget: { tokens: 10 } } : base;
    const actor = new RunActor('r', first);
    const log: RunEvent[] = [first];
    const hashes = new Map(first.horde.pipeline.map((s) => [s, `h${Math.floor(rand() * 3)}`]));
    for (let i = 0; i < EVENTS && !FINAL_RUN_STATES.has(actor.state); i++) {
      const event = randomEvent(rand, actor.context);
      if (actor.send(event).ok) log.push(event);
      if (FINAL_RUN_STATES.has(actor.state)) break;
      const slots = Math.floor(rand() * 4);
      const spent = rand() < 0.5 ? SPENT : { ...SPENT, tokens: 1 };
      const f: DecideFacts = {
        slots,
        command: (step) => ({ ...COMMAND, hash: hashes.get(step)! }),
        review: (step) => ({ type: 'approval.requested', step, reason: 'review', command: COMMAND, hash: `a${seed % 2}`, artifact: { path: 'a.md', bytes: 1 } }),
        spent: () => spent,
      };
      const parkedBefore = actor.context.budget.parked !== undefined;
      const d = decide(actor.context, f);
      assert.deepEqual(decide(actor.context, f), d, `seed ${seed}: the same context and facts decide the same`);
      const started = d.events.filter((e) => e.type === 'step.started').length;
      assert.ok(started <= slots, `seed ${seed}: ${started} steps started with ${slots} slots`);
      assert.ok(d.events.filter((e) => e.type === 'budget.exceeded').length <= (parkedBefore ? 0 : 1), `seed ${seed}: parked for the budget twice`);
      if (parkedBefore) assert.equal(started, 0, `seed ${seed}: a step started in a run parked for its budget`);
      for (const e of d.events) {
        const r = actor.send(e);
        assert.ok(r.ok, `seed ${seed}: the machine refused the engine's decision ${JSON.stringify(e)}: ${r.ok ? '' : r.reason}`);
        log.push(e);
        seenDecisions.add(e.type === 'approval.requested' ? `${e.type} ${e.reason}` : e.type);
      }
      if (!d.waitsForSlot && actor.context.budget.parked === undefined && !FINAL_RUN_STATES.has(actor.state)) {
        const stuck = actor.context.graph.pipeline.filter((s) => ['ready', 'unknown'].includes(actor.context.steps[s]!.status));
        assert.deepEqual(stuck, [], `seed ${seed}: after the decisions, steps that could start or ask are left: ${stuck.join(', ')}`);
      }
    }
    const folded = foldRun('r', log);
    assert.ok(folded.ok, `seed ${seed}: the log with the decisions does not fold again`);
    if (folded.ok) {
      assert.deepEqual(folded.actor.context, actor.context);
      folded.actor.stop();
    }
    actor.stop();
  }
  for (const kind of ['step.started', 'approval.requested confirm_command', 'approval.requested review', 'approval.requested outcome_unknown', 'budget.exceeded']) {
    assert.ok(seenDecisions.has(kind), `${kind} was never decided in ${SEEDS} runs: the generator no longer exercises it`);
  }
});

/** The status moves from `before` to `after` of each step (a step may make up to three in one event: fail, go back to pending in a loop, become ready). */
function moves(before: RunContext, after: RunContext): [string, StepStatus, StepStatus][] {
  return before.graph.pipeline
    .filter((s) => before.steps[s]!.status !== after.steps[s]!.status)
    .map((s) => [s, before.steps[s]!.status, after.steps[s]!.status]);
}

function reachable(from: StepStatus, to: StepStatus, within: number): boolean {
  let frontier = new Set<StepStatus>([from]);
  for (let i = 0; i < within; i++) {
    const next = new Set<StepStatus>();
    for (const s of frontier) for (const t of Object.keys(STEP_MOVES[s]) as StepStatus[]) next.add(t);
    if (next.has(to)) return true;
    frontier = next;
  }
  return false;
}

test('a step moves only as STEP_MOVES declares, and every declared move happens', () => {
  const direct = new Set<string>();
  const send = (actor: RunActor, event: RunEvent, seed: number): boolean => {
    const before = actor.context;
    if (!actor.send(event).ok) return false;
    for (const [step, from, to] of moves(before, actor.context)) {
      assert.ok(reachable(from, to, 3), `seed ${seed}: ${event.type} moved step ${step} from ${from} to ${to}, which STEP_MOVES does not allow`);
      if (canMove(from, to)) direct.add(`${from}>${to}`);
    }
    return true;
  };
  for (let seed = 1; seed <= SEEDS; seed++) {
    const rand = prng(seed);
    const actor = new RunActor('r', randomCreated(rand));
    for (let i = 0; i < EVENTS * 2; i++) send(actor, randomEvent(rand, actor.context), seed);
    actor.stop();
  }
  // A loop-back over a skipped branch and a passed or failed step: each goes back to pending (the generator's loops go back over the failing step alone).
  for (const middle of ['pass', 'fail'] as const) {
    const loop = new RunActor('r', created(['a', 'b', 'c', 'd'], {}, ['a>b:pass', 'a>c:fail', 'b>d', 'c>d', 'd>a:fail:1']));
    for (const [step, outcome] of [['a', 'pass'], ['b', middle], ['d', 'fail']] as const) {
      assert.ok(send(loop, { type: 'step.started', step, attempt: 1 }, 0));
      assert.ok(send(loop, { type: 'step.finished', step, attempt: 1, outcome, durationMs: 1, artifact: `${step}.md` }, 0));
    }
    assert.deepEqual(loop.context.graph.pipeline.map((s) => loop.context.steps[s]!.status), ['ready', 'pending', 'pending', 'pending']);
    loop.stop();
  }
  for (const [from, tos] of Object.entries(STEP_MOVES)) {
    for (const to of Object.keys(tos)) assert.ok(direct.has(`${from}>${to}`), `the declared move ${from} → ${to} never happened`);
  }
});
