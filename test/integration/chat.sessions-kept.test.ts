/**
 * A long-running server keeps only the recently used idle chat sessions in memory, and each
 * only for a while after its last use: after turns in 20 sessions, 16 are held; an idle one
 * leaves once its time is up; one that was let go goes on from its log with its whole
 * history, as if it had never left.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatSetup, profile } from '../../testkit/chat.js';
import { waitFor } from '../../testkit/wait.js';

/** The fake model answers with every user message it was sent, so an answer shows the history the turn had. */
const echo = (body: any): { text: string } => ({ text: `heard: ${(body.messages as { role: string; content: string }[]).filter((m) => m.role === 'user').map((m) => m.content).join(' | ')}` });

test('after turns in 20 sessions only the 16 most recently used are in memory; a session let go answers its next turn with its whole history', async (t) => {
  const s = await chatSetup(t, echo, { pal: profile('pal', 'tools = []') });
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const { id } = s.engine.chat.create({ agent: 'pal' });
    ids.push(id);
    assert.equal((await s.engine.chat.send(id, `first ${i}`).done).text, `heard: first ${i}`);
  }
  assert.equal(s.engine.chat.sessionsInMemory, 16);

  const second = await s.engine.chat.send(ids[0]!, 'second').done;
  assert.equal(second.stop, 'done');
  assert.equal(second.text, 'heard: first 0 | second', 'the session read back from its log has its first turn');
  const assistant = s.server.requests.at(-1)!.body.messages.filter((m: any) => m.role === 'assistant').map((m: any) => m.content);
  assert.deepEqual(assistant, ['heard: first 0']);
  assert.deepEqual(s.engine.chat.get(ids[0]!).transcript.map((turn) => turn.turn), [1, 2]);
  assert.equal(s.engine.chat.sessionsInMemory, 16);
});

test('an idle session leaves memory once its time is up (not while its turn runs), and its next turn has its whole history', async (t) => {
  const s = await chatSetup(t, echo, { pal: profile('pal', 'tools = []') }, '', undefined, { chatIdleSessionMs: 300 });
  const { id } = s.engine.chat.create({ agent: 'pal' });
  assert.equal((await s.engine.chat.send(id, 'one').done).text, 'heard: one');
  assert.equal(s.engine.chat.sessionsInMemory, 1);
  await waitFor(() => s.engine.chat.sessionsInMemory === 0, 'the idle session to leave memory');
  assert.equal((await s.engine.chat.send(id, 'two').done).text, 'heard: one | two');
  assert.equal(s.engine.chat.sessionsInMemory, 1, 'back in memory while it is used');
});
