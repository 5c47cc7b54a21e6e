/** A coordinator asking many sub-agents at once: all answered, merged, and no listener-leak warning printed to the user's terminal. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatSetup, perAgent, profile } from '../../testkit/chat.js';
import { cleanups } from '../../testkit/cleanup.js';

const WIDTH = 12;

test(`a coordinator delegates to ${WIDTH} sub-agents at once: every answer merged, no MaxListenersExceededWarning`, async (t) => {
  const warnings: Error[] = [];
  const onWarning = (w: Error): void => void warnings.push(w);
  process.on('warning', onWarning);
  cleanups(t)(() => process.off('warning', onWarning));
  const s = await chatSetup(t, perAgent({
    boss: [{ toolCalls: Array.from({ length: WIDTH }, (_, i) => ({ name: 'delegate_to_agent', arguments: { agent: 'worker', task: `part ${i}` } })) }, { text: 'All merged.' }],
    worker: [{ text: 'part done', chunkDelayMs: 20 }],
  }), { boss: profile('boss', 'tools = ["delegate_to_agent"]\nmax_iterations = 20'), worker: profile('worker', 'tools = []') });
  const { id } = s.engine.chat.create({ agent: 'boss' });
  const out = await s.engine.chat.send(id, 'split it').done;
  assert.equal(out.stop, 'done');
  assert.equal(out.usage.calls, WIDTH + 2);
  assert.equal(s.server.requests.at(-1)!.body.messages.filter((m: any) => m.role === 'tool').length, WIDTH);
  // Warnings are emitted on the next tick.
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(warnings.map((w) => w.name), []);
});
