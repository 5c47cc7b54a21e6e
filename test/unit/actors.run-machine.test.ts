/** The run machine as tables: events in, states and effects out. Pure: no engine, no I/O. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RunActor, foldRun } from '../../actors/index.js';
import type { RunEffect, RunEvent, StepPolicy } from '../../actors/index.js';
import { miniHorde } from '../support/hordes.js';

const SAFE: StepPolicy = { approval: false, idempotent: true };

function created(pipeline: string[], edges: string[] = [], policy: Record<string, StepPolicy> = {}): Extract<RunEvent, { type: 'run.created' }> {
  const horde = miniHorde(pipeline, edges);
  const p: Record<string, StepPolicy> = {};
  for (const s of pipeline) p[s] = policy[s] ?? SAFE;
  return { type: 'run.created', hordeId: horde.id, horde, policy: p, input: {}, provenance: 'test' };
}

/** Send events; return the effects of each and the statuses after. */
function drive(actor: RunActor, events: RunEvent[]): RunEffect[][] {
  return events.map((e) => {
    const r = actor.send(e);
    assert.ok(r.ok, `event ${e.type} refused: ${r.ok ? '' : r.reason}`);
    return r.effects;
  });
}

const start = (step: string, attempt = 1): RunEvent => ({ type: 'step.started', step, attempt });
const pass = (step: string, attempt = 1): RunEvent => ({ type: 'step.finished', step, attempt, outcome: 'pass', durationMs: 1 });
const fail = (step: string, attempt = 1): RunEvent => ({ type: 'step.finished', step, attempt, outcome: 'fail', durationMs: 1, summary: 'exit 1' });
/** A verdict: the step ran and its artifact says fail (a verify's non-zero exit). */
const failed = (step: string, attempt = 1): RunEvent => ({ type: 'step.finished', step, attempt, outcome: 'fail', artifact: `${step}.md`, durationMs: 1, summary: 'exit 1' });

function statuses(actor: RunActor): string {
  return actor.context.graph.pipeline.map((s) => `${s}:${actor.context.steps[s]!.status}`).join(' ');
}

describe('run machine', () => {
  test('a straight line runs each step once, in order, and succeeds', () => {
    const a = new RunActor('r1', created(['a', 'b', 'c']));
    assert.equal(a.state, 'queued');
    assert.equal(statuses(a), 'a:ready b:pending c:pending');
    const effects = drive(a, [start('a'), pass('a'), start('b'), pass('b'), start('c')]);
    assert.deepEqual(effects[0], [{ type: 'dispatch', step: 'a', attempt: 1 }]);
    assert.equal(a.state, 'running');
    drive(a, [pass('c')]);
    assert.equal(a.state, 'succeeded');
  });

  test('a step that breaks (no artifact) in a straight line stops the run naming the step, as in 1.x', () => {
    const a = new RunActor('r1', created(['a', 'b']));
    drive(a, [start('a'), fail('a')]);
    assert.equal(a.state, 'failed');
    assert.equal(a.context.error?.code, 'KW_ERR_NO_ROUTE');
    assert.match(a.context.error!.message, /"a" failed \(exit 1\)/);
    assert.equal(a.context.steps.b!.status, 'pending');
  });

  test('a straight line moves on after a failed verdict, runs to the end, and ends failed naming the step', () => {
    const a = new RunActor('r1', created(['make', 'verify', 'deliver']));
    drive(a, [start('make'), pass('make'), start('verify'), failed('verify')]);
    assert.equal(statuses(a), 'make:passed verify:failed deliver:ready');
    assert.equal(a.state, 'running');
    assert.equal(a.context.steps.deliver!.from, 'verify', 'the next step reads the failed verdict as @artifact@');
    drive(a, [start('deliver'), pass('deliver')]);
    assert.equal(a.state, 'failed');
    assert.equal(a.context.error?.code, 'KW_ERR_RAN_PAST_FAILURE');
    assert.match(a.context.error!.message, /step "verify" \(exit 1\) failed; the run went on to the end as in 1\.x/);
    assert.equal(a.context.steps.deliver!.status, 'passed');
  });

  test('a written always edge moves on after any failure; a fail edge that takes it leaves the run to succeed', () => {
    const a = new RunActor('r1', created(['a', 'b', 'c'], ['a>b', 'b>c']));
    drive(a, [start('a'), fail('a'), start('b'), failed('b'), start('c'), pass('c')]);
    assert.equal(a.context.error?.code, 'KW_ERR_RAN_PAST_FAILURE');
    assert.match(a.context.error!.message, /steps "a" \(exit 1\), "b" \(exit 1\) failed/);

    const h = new RunActor('r2', created(['a', 'b', 'c'], ['a>b:fail', 'a>c', 'b>c']));
    drive(h, [start('a'), failed('a'), start('b'), pass('b')]);
    assert.equal(statuses(h), 'a:failed b:passed c:ready');
    drive(h, [start('c'), pass('c')]);
    assert.equal(h.state, 'succeeded', 'the fail edge a → b took the failure');
  });

  test('written edges are the whole graph: every step with no forward edge in starts first', () => {
    const a = new RunActor('r1', created(['x', 'a', 'b', 'c'], ['x>a', 'b>c']));
    assert.equal(statuses(a), 'x:ready a:pending b:ready c:pending');
    drive(a, [start('x'), start('b'), pass('b')]);
    assert.equal(statuses(a), 'x:running a:pending b:passed c:ready', 'no a → b: c follows b alone');
    drive(a, [start('c'), pass('c'), pass('x'), start('a'), pass('a')]);
    assert.equal(a.state, 'succeeded');

    const j = new RunActor('r2', created(['a', 'b', 'c'], ['a>c', 'b>c']));
    assert.equal(statuses(j), 'a:ready b:ready c:pending');
    drive(j, [start('a'), start('b'), pass('a')]);
    assert.equal(j.context.steps.c!.status, 'pending', 'c joins a and b');
    drive(j, [pass('b'), start('c'), pass('c')]);
    assert.equal(j.state, 'succeeded');
  });

  test('a denial in a straight line stops the run', () => {
    const a = new RunActor('r1', created(['check', 'after'], [], { check: { approval: true, idempotent: true } }));
    drive(a, [{ type: 'approval.requested', step: 'check', reason: 'confirm_command', command: { argv: ['x'], cwd: '/', env: [] }, hash: 'h' }]);
    drive(a, [{ type: 'approval.denied', step: 'check', reason: 'no', by: 'operator' }]);
    assert.equal(a.state, 'failed');
    assert.equal(a.context.error?.code, 'KW_ERR_APPROVAL_DENIED');
    assert.equal(a.context.steps.after!.status, 'pending');
  });

  test('a fork runs both branches at once and the join waits for both', () => {
    const a = new RunActor('r1', created(['a', 'b', 'c', 'd'], ['a>b', 'a>c', 'b>d', 'c>d']));
    drive(a, [start('a'), pass('a')]);
    assert.equal(statuses(a), 'a:passed b:ready c:ready d:pending');
    drive(a, [start('b'), start('c'), pass('c')]);
    assert.equal(a.context.steps.d!.status, 'pending', 'the join must wait for b');
    drive(a, [pass('b')]);
    assert.equal(a.context.steps.d!.status, 'ready');
  });

  test('a join does not wait for a branch that can no longer reach it', () => {
    // a passes: b runs; c only runs when a fails; d joins both.
    const a = new RunActor('r1', created(['a', 'b', 'c', 'd'], ['a>b:pass', 'a>c:fail', 'b>d', 'c>d']));
    drive(a, [start('a'), pass('a')]);
    assert.equal(statuses(a), 'a:passed b:ready c:skipped d:pending');
    drive(a, [start('b'), pass('b')]);
    assert.equal(a.context.steps.d!.status, 'ready');
  });

  test('pass/fail routing sends a failure down the fail edge and the run can still succeed', () => {
    const a = new RunActor('r1', created(['check', 'fix', 'report'], ['check>fix:fail', 'check>report:pass']));
    drive(a, [start('check'), fail('check')]);
    assert.equal(statuses(a), 'check:failed fix:ready report:skipped');
    drive(a, [start('fix'), pass('fix')]);
    assert.equal(a.state, 'succeeded');
  });

  test('a loop-back edge re-runs its body with new attempt numbers until max_loops, then fails naming the loop', () => {
    const a = new RunActor('r1', created(['dev', 'test'], ['dev>test', 'test>dev:fail:2']));
    drive(a, [start('dev'), pass('dev'), start('test'), fail('test')]);
    assert.equal(statuses(a), 'dev:ready test:pending');
    assert.equal(a.context.steps.dev!.from, 'test', 'the loop target reads the failing step as @artifact@');
    drive(a, [start('dev', 2), pass('dev', 2), start('test', 2), fail('test', 2), start('dev', 3), pass('dev', 3), start('test', 3)]);
    assert.equal(a.context.steps.test!.attempts, 3);
    drive(a, [fail('test', 3)]);
    assert.equal(a.state, 'failed');
    assert.equal(a.context.error?.code, 'KW_ERR_LOOP_EXHAUSTED');
    assert.match(a.context.error!.message, /test → dev.*max_loops = 2/);
  });

  test('a loop that passes in time lets the run succeed', () => {
    const a = new RunActor('r1', created(['dev', 'test'], ['dev>test', 'test>dev:fail:2']));
    drive(a, [start('dev'), pass('dev'), start('test'), fail('test'), start('dev', 2), pass('dev', 2), start('test', 2), pass('test', 2)]);
    assert.equal(a.state, 'succeeded');
  });

  test('a loop re-runs only the steps on paths from its target to its source', () => {
    const a = new RunActor('r1', created(['a', 'b', 'c', 'd'], ['a>b', 'a>c', 'b>d', 'c>d', 'd>b:fail:1']));
    drive(a, [start('a'), pass('a'), start('b'), start('c'), pass('b'), pass('c'), start('d'), fail('d')]);
    assert.equal(statuses(a), 'a:passed b:ready c:passed d:pending');
    drive(a, [start('b', 2), pass('b', 2)]);
    assert.equal(a.context.steps.d!.status, 'ready', 'c kept its result, so the join only waits for b');
  });

  test('a step that needs approval cannot start before it is granted, and the grant binds to the shown hash', () => {
    const a = new RunActor('r1', created(['check'], [], { check: { approval: true, idempotent: true } }));
    assert.equal(a.send(start('check')).ok, false);
    const command = { argv: ['/bin/sh', '-c', 'make test'], cwd: '/p', env: ['PATH'] };
    drive(a, [{ type: 'approval.requested', step: 'check', reason: 'confirm_command', command, hash: 'h1' }]);
    assert.equal(a.state, 'awaiting_input');
    const forged = a.send({ type: 'approval.granted', step: 'check', hash: 'other', by: 'operator' });
    assert.equal(forged.ok, false);
    drive(a, [{ type: 'approval.granted', step: 'check', hash: 'h1', by: 'operator' }, start('check')]);
    assert.equal(a.context.steps.check!.approvedHash, 'h1');
  });

  test('deny fails the step with the reason and routes like a failure', () => {
    const a = new RunActor('r1', created(['check'], [], { check: { approval: true, idempotent: true } }));
    drive(a, [{ type: 'approval.requested', step: 'check', reason: 'confirm_command', command: { argv: ['x'], cwd: '/', env: [] }, hash: 'h' }]);
    drive(a, [{ type: 'approval.denied', step: 'check', reason: 'not on a Friday', by: 'operator' }]);
    assert.equal(a.state, 'failed');
    assert.equal(a.context.error?.code, 'KW_ERR_APPROVAL_DENIED');
    assert.match(a.context.error!.message, /not on a Friday/);
  });

  test('cancel ends the run and kills what runs', () => {
    const a = new RunActor('r1', created(['a', 'b', 'c'], ['a>b', 'a>c']));
    drive(a, [start('a'), pass('a'), start('b'), start('c')]);
    const [effects] = drive(a, [{ type: 'run.cancelled', reason: 'enough', by: 'operator' }]);
    assert.equal(a.state, 'cancelled');
    assert.deepEqual(effects, [{ type: 'kill', step: 'b', attempt: 1, reason: 'cancelled' }, { type: 'kill', step: 'c', attempt: 1, reason: 'cancelled' }]);
    assert.equal(a.send(pass('b')).ok, false, 'nothing follows the end of a run');
  });

  test('a failing branch fails the run and kills its sibling', () => {
    const a = new RunActor('r1', created(['a', 'b', 'c'], ['a>b', 'a>c']));
    drive(a, [start('a'), pass('a'), start('b'), start('c')]);
    const [effects] = drive(a, [fail('b')]);
    assert.equal(a.state, 'failed');
    assert.deepEqual(effects, [{ type: 'kill', step: 'c', attempt: 1, reason: 'run_failed' }]);
  });

  test('an interrupted idempotent step is ready again; an interrupted unsafe one waits for the operator', () => {
    const a = new RunActor('r1', created(['a', 'apply'], [], { apply: { approval: false, idempotent: false } }));
    drive(a, [start('a'), { type: 'step.interrupted', step: 'a', attempt: 1 }]);
    assert.equal(a.context.steps.a!.status, 'ready');
    drive(a, [start('a', 2), pass('a', 2), start('apply'), { type: 'step.interrupted', step: 'apply', attempt: 1 }]);
    assert.equal(a.context.steps.apply!.status, 'unknown');
    assert.equal(a.state, 'awaiting_input');
  });

  test('events that do not fit the state are refused with a reason', () => {
    const a = new RunActor('r1', created(['a', 'b']));
    const cases: [RunEvent, RegExp][] = [
      [start('b'), /step\.started for "b" attempt 1 is not accepted while the run is queued: the step is pending/],
      [start('a', 2), /expected next 1/],
      [pass('a'), /the step is ready/],
      [start('zzz'), /does not have/],
      [{ type: 'approval.granted', step: 'a', hash: 'h', by: 'x' }, /not waiting/],
      [{ type: 'run.created', hordeId: 'x', horde: miniHorde(['a']), policy: {}, input: {}, provenance: 't' }, /appears twice/],
    ];
    for (const [event, reason] of cases) {
      const r = a.send(event);
      assert.equal(r.ok, false, event.type);
      if (!r.ok) assert.match(r.reason, reason);
    }
  });

  test('folding a log gives the same state as living through it', () => {
    const c = created(['dev', 'test'], ['dev>test', 'test>dev:fail:2']);
    const events: RunEvent[] = [c, start('dev'), pass('dev'), start('test'), fail('test'), start('dev', 2)];
    const live = new RunActor('r1', c);
    drive(live, events.slice(1));
    const folded = foldRun('r1', events);
    assert.ok(folded.ok);
    if (folded.ok) {
      assert.equal(folded.actor.state, live.state);
      assert.deepEqual(folded.actor.context, live.context);
    }
    const broken = foldRun('r1', [c, start('dev'), start('test')]);
    assert.equal(broken.ok, false);
  });

  test('every event survives a JSON round trip unchanged', () => {
    const events: RunEvent[] = [
      created(['a']), start('a'), { type: 'step.spawned', step: 'a', attempt: 1, pgid: 123, token: 'tok' },
      { type: 'step.finished', step: 'a', attempt: 1, outcome: 'fail', artifact: 'a.md', summary: 's', error: { code: 'KW_ERR_STEP_TIMEOUT', message: 'm' }, durationMs: 5 },
      { type: 'step.interrupted', step: 'a', attempt: 1 },
      { type: 'approval.requested', step: 'a', reason: 'outcome_unknown', command: { argv: ['a'], cwd: '/', env: ['PATH'] }, hash: 'h' },
      { type: 'approval.granted', step: 'a', hash: 'h', by: 'operator' },
      { type: 'approval.denied', step: 'a', reason: 'no', by: 'operator' },
      { type: 'run.cancelled', reason: 'r', by: 'operator' },
    ];
    for (const e of events) assert.deepEqual(JSON.parse(JSON.stringify(e)), e);
    const a = new RunActor('r1', created(['a', 'b']));
    drive(a, [start('a'), pass('a')]);
    assert.deepEqual(JSON.parse(JSON.stringify(a.context)), a.context);
  });
});
