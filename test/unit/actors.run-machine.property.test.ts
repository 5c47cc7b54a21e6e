/**
 * The run machine over random event sequences (seeded): what a state does not declare is
 * refused; what is accepted moves the machine to the state its steps add up to (what the
 * projection shows); folding the accepted events again gives the same run.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyStateNode } from 'xstate';
import { RunActor, foldRun, runMachine, runStateOf } from '../../actors/index.js';
import type { RunEvent, RunEventType } from '../../actors/index.js';
import { prng, randomCreated, randomEvent } from '../support/run-events.js';

const SEEDS = 600;
const STEPS = 50;

function declares(state: string, type: RunEventType): boolean {
  const node = (runMachine.root.states as Record<string, AnyStateNode>)[state];
  assert.ok(node !== undefined, `the machine has no state ${state}`);
  return node.transitions.has(type);
}

test('every state × every event: refused unless the state declares it; accepted ones land where the steps say', () => {
  const seen = new Set<string>();
  let accepted = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    const rand = prng(seed);
    const created = randomCreated(rand);
    const actor = new RunActor('r', created);
    const log: RunEvent[] = [created];
    for (let i = 0; i < STEPS; i++) {
      const event = randomEvent(rand, actor.context);
      const before = actor.state;
      const r = actor.send(event);
      seen.add(`${before} ${event.type} ${r.ok ? 'accepted' : 'refused'}`);
      if (!declares(before, event.type)) {
        assert.equal(r.ok, false, `seed ${seed}: ${before} does not declare ${event.type}, yet it was accepted`);
        continue;
      }
      if (!r.ok) continue;
      accepted += 1;
      log.push(event);
      assert.equal(actor.state, runStateOf(actor.context), `seed ${seed}: after ${event.type} the machine is ${actor.state}, the steps say ${runStateOf(actor.context)}`);
    }
    const folded = foldRun('r', log);
    assert.ok(folded.ok, `seed ${seed}: the accepted events do not fold again`);
    if (folded.ok) {
      assert.equal(folded.actor.state, actor.state);
      assert.deepEqual(folded.actor.context, actor.context);
      folded.actor.stop();
    }
    actor.stop();
  }
  assert.ok(accepted > 1000, `only ${accepted} events were accepted: the generator no longer exercises the machine`);
  // Every declared (state, event) pair was accepted at least once, and every final state refused something.
  for (const state of ['queued', 'running', 'awaiting_input'] as const) {
    const node = (runMachine.root.states as Record<string, AnyStateNode>)[state]!;
    for (const type of node.transitions.keys()) {
      assert.ok(seen.has(`${state} ${type} accepted`), `${state} × ${type} was never accepted in ${SEEDS} runs`);
    }
  }
  for (const state of ['succeeded', 'failed', 'cancelled']) assert.ok([...seen].some((k) => k.startsWith(`${state} `) && k.endsWith('refused')), `nothing was sent to a ${state} run`);
});

test('a final state refuses every event of the union', () => {
  const rand = prng(7);
  const created = randomCreated(rand);
  const types: RunEvent[] = [
    created,
    { type: 'step.started', step: created.horde.pipeline[0]!, attempt: 1 },
    { type: 'step.spawned', step: created.horde.pipeline[0]!, attempt: 1, pgid: 1, token: 't' },
    { type: 'step.finished', step: created.horde.pipeline[0]!, attempt: 1, outcome: 'pass', durationMs: 1 },
    { type: 'step.interrupted', step: created.horde.pipeline[0]!, attempt: 1 },
    { type: 'approval.requested', step: created.horde.pipeline[0]!, reason: 'confirm_command', command: { argv: ['x'], cwd: '/', env: [] }, hash: 'h' },
    { type: 'approval.granted', step: created.horde.pipeline[0]!, hash: 'h', by: 'o' },
    { type: 'approval.denied', step: created.horde.pipeline[0]!, reason: 'no', by: 'o' },
    { type: 'run.cancelled', reason: 'r', by: 'o' },
    { type: 'budget.exceeded', over: ['tokens'], spent: { model_calls: 1, tokens: 10, cost_usd: 0, tool_calls: 0, wall_secs: 1, unpriced: 0 }, limits: { tokens: 10 } },
    { type: 'budget.raised', limits: { tokens: 100 }, by: 'o' },
    { type: 'artifact.edited', step: created.horde.pipeline[0]!, path: 'a.md', before: 'h', after: 'e', diff: '', by: 'o' },
  ];
  const actor = new RunActor('r', created);
  assert.ok(actor.send({ type: 'run.cancelled', reason: 'stop', by: 'o' }).ok);
  assert.equal(actor.state, 'cancelled');
  for (const e of types) {
    const r = actor.send(e);
    assert.equal(r.ok, false, `${e.type} was accepted by a cancelled run`);
    if (!r.ok) assert.match(r.reason, /already ended \(cancelled\)/);
  }
});
