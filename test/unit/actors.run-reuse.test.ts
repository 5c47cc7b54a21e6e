/** A re-run's reused steps in the pure run machine: no approval for the reused attempt, safe after a crash, and a later (loop) attempt asks as usual. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RunActor, reusesResult } from '../../actors/index.js';
import type { RunEvent, StepPolicy } from '../../actors/index.js';
import { miniHorde } from '../support/hordes.js';

const reuse = { run: 'rold', attempt: 1, outcome: 'fail' as const, artifact: 'check.md' };
/** `check` runs a command behind an approval and is not safe to repeat; the re-run reuses its (failed verdict) result; fix loops back to it. */
const POLICY: Record<string, StepPolicy> = {
  check: { approval: true, idempotent: false, reuse },
  fix: { approval: false, idempotent: true },
};

function created(): Extract<RunEvent, { type: 'run.created' }> {
  const horde = miniHorde(['check', 'fix'], ['check>fix:fail', 'fix>check:pass:2']);
  return { type: 'run.created', hordeId: horde.id, horde, policy: POLICY, input: {}, provenance: 'rerun:rold', rerun: { run: 'rold', from: 'fix', workdir: 'output', replayModels: false } };
}

function send(actor: RunActor, e: RunEvent): void {
  const r = actor.send(e);
  assert.ok(r.ok, `${e.type} refused: ${r.ok ? '' : r.reason}`);
}

describe('run machine: reused results', () => {
  test('the reused attempt starts with no approval, an interrupted one is ready again (not unknown), and a loop back to it needs the approval', () => {
    const a = new RunActor('rnew', created());
    assert.equal(reusesResult(a.context, 'check'), true);
    send(a, { type: 'step.started', step: 'check', attempt: 1 });
    send(a, { type: 'step.interrupted', step: 'check', attempt: 1 });
    assert.equal(a.context.steps.check!.status, 'ready', 'copying again is safe');
    send(a, { type: 'step.started', step: 'check', attempt: 2 });
    send(a, { type: 'step.finished', step: 'check', attempt: 2, outcome: 'fail', artifact: 'check.md', durationMs: 1, reusedFrom: { run: 'rold', attempt: 1, hash: 'h' } });
    assert.equal(reusesResult(a.context, 'check'), false, 'reused once');
    send(a, { type: 'step.started', step: 'fix', attempt: 1 });
    send(a, { type: 'step.finished', step: 'fix', attempt: 1, outcome: 'pass', durationMs: 1 });
    assert.equal(a.context.steps.check!.status, 'ready', 'the loop came back to check');
    const refused = a.send({ type: 'step.started', step: 'check', attempt: 3 });
    assert.equal(refused.ok, false, 'the real attempt needs the approval');
    send(a, { type: 'approval.requested', step: 'check', reason: 'confirm_command', command: { argv: ['x'], cwd: '/w', env: [] }, hash: 'abc' });
    assert.equal(a.state, 'awaiting_input');
  });

  test('without reuse the same step cannot start before its approval', () => {
    const c = created();
    const a = new RunActor('rnew', { ...c, policy: { ...POLICY, check: { approval: true, idempotent: false } } });
    assert.equal(a.send({ type: 'step.started', step: 'check', attempt: 1 }).ok, false);
  });
});
