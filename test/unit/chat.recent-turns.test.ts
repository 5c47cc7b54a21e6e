/**
 * The `recent_turns` tool over a real episodic index (migrated SQLite): the turns of chat
 * sessions only, never an agent step's (step_sessions); oldest first, page by page with the
 * cursor its answer names, what is left out counted; one agent's; long turns cut; a bad
 * cursor refused. `kowalski memory consolidate` reads through the same function.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { RecallIndex } from '../../engine/chat/recall.js';
import { createRecentTurnsTool } from '../../engine/chat/memory-tools.js';
import { MAX_TURN_SIDE_CHARS, readRecentTurns } from '../../engine/chat/recent-turns.js';
import { openDatabase } from '../../engine/store/database.js';
import { recallQueries } from '../../engine/store/sql/recall.js';
import type { NoteWrite } from '../../engine/vault/types.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';

const NOW = Date.parse('2026-12-05T08:00:00Z');
const HOUR = 3_600_000;
const ctx = { signal: new AbortController().signal };

function index(t: TestContext): RecallIndex {
  const db = openDatabase(path.join(tempDir(t), 'k.sqlite'));
  cleanups(t)(() => db.close());
  // An agent step's session: its turns are a horde's, never read.
  db.prepare('INSERT INTO step_sessions (session_id, run_id, step, agent, created_at) VALUES (?, ?, ?, ?, ?)').run('cstep', 'r1', 'consolidate', 'archivist', NOW - HOUR);
  const recall = new RecallIndex(recallQueries(db));
  recall.write({ session_id: 'cold', turn: 1, agent: 'assistant', at: NOW - 30 * HOUR, user: 'Last week I said something old.', assistant: 'Old.' }, false);
  recall.write({ session_id: 'cstep', turn: 1, agent: 'archivist', at: NOW - 2 * HOUR, user: 'Consolidate.', assistant: '# Memory consolidation\n\n## Kept\n\n- The user keeps bees.' }, false);
  for (let i = 1; i <= 45; i++) {
    recall.write({ session_id: i % 2 === 0 ? 'ca' : 'cb', turn: i, agent: i === 45 ? 'host' : 'assistant', at: NOW - 3 * HOUR + i * 1000, user: `Message ${i}.`, assistant: `Answer ${i}.` }, false);
  }
  return recall;
}

test('recent_turns gives the chat turns of the window oldest first, 40 an answer, and the cursor that reads on; never an agent step\'s turns', async (t) => {
  const recall = index(t);
  const tool = createRecentTurnsTool({ recall, writesOf: () => [], now: () => NOW });
  assert.equal(tool.idempotent, true);
  const first = await tool.call({}, ctx);
  assert.match(first.content, /^40 chat turns finished since 2026-12-04 08:00 UTC, oldest first \(the turns of horde steps are left out\):\n\nSession cb, turn 1 \(assistant\):\nUser: Message 1\.\nAssistant: Answer 1\.\n\nSession ca, turn 2/);
  assert.doesNotMatch(first.content, /Consolidate|Memory consolidation|cstep|Last week/);
  const next = (first.meta as { next: string }).next;
  assert.ok(first.content.endsWith(`5 more turns not shown: call recent_turns again with since_hours 24 and after "${next}".`), first.content.slice(-200));
  assert.deepEqual((first.meta as { turns: unknown[] }).turns.at(-1), { sessionId: 'ca', turn: 40 });

  const second = await tool.call({ after: next }, ctx);
  assert.match(second.content, /^5 chat turns finished since .* after the ones read/);
  assert.deepEqual((second.meta as { turns: Array<{ turn: number }> }).turns.map((x) => x.turn), [41, 42, 43, 44, 45]);
  assert.ok(second.content.endsWith('That is all of them.'));
  // Read-only: the same call answers the same.
  assert.deepEqual(await tool.call({ after: next }, ctx), second);

  const wider = await tool.call({ since_hours: 48, agent: 'assistant' }, ctx);
  assert.match(wider.content, /^40 chat turns answered by assistant finished since 2026-12-03 08:00 UTC/);
  assert.match(wider.content, /Session cold, turn 1 \(assistant\):\nUser: Last week I said something old\./);
  assert.match(wider.content, /5 more turns not shown: call recent_turns again with since_hours 48, agent "assistant" and after "/);

  const none = await tool.call({ since_hours: 1 }, ctx);
  assert.equal(none.content, 'No chat turn finished since 2026-12-05 07:00 UTC.');
  await assert.rejects(async () => tool.call({ after: 'yesterday' }, ctx), (err: any) => {
    assert.equal(err.code, 'KW_ERR_TOOL_ARGS');
    assert.match(err.message, /"after" takes the value an earlier recent_turns answer gave/);
    return true;
  });
});

test('the read is bounded in characters as well as turns, a long message cut with a note; what is left out is counted', (t) => {
  const recall = index(t);
  recall.write({ session_id: 'clong', turn: 1, agent: 'assistant', at: NOW - 1000, user: 'x'.repeat(MAX_TURN_SIDE_CHARS + 50), assistant: 'Long.' }, false);
  const read = readRecentTurns(recall, { at: NOW - 2000 }, { maxTurns: 10, maxChars: 100 });
  assert.equal(read.turns.length, 1);
  assert.match(read.blocks[0]!, /x… \[50 more characters left out\]\nAssistant: Long\.$/);
  assert.equal(read.leftOut, 0);
  const page = readRecentTurns(recall, { at: NOW - 3 * HOUR }, { maxTurns: 10, maxChars: 200 });
  assert.equal(page.turns.length, 2, 'past 200 characters the next turn waits for the next page');
  assert.equal(page.leftOut, 44);
  assert.deepEqual(page.last, { at: NOW - 3 * HOUR + 2000, sessionId: 'ca', turn: 2 });
});

test('recent_turns lists the facts remember kept in the sessions it gives: not a reverted or failed write, nor a note outside memory/', async (t) => {
  const recall = index(t);
  const write = (over: Partial<NoteWrite>): NoteWrite => ({
    writeId: 1, at: NOW - HOUR, op: 'create', path: 'memory/2026-12-05-the-user-keeps-bees.md', bytesBefore: 0, bytesAfter: 1, content: '# The user keeps bees.\n\nThe user keeps bees.\n',
    sha256Before: null, sha256After: 'x', sessionId: 'ca', agent: 'assistant', traceId: 1, by: 'agent', state: 'done', error: null, reverts: null, revertedBy: null, ...over,
  });
  const asked: string[] = [];
  const writesOf = (id: string): NoteWrite[] => {
    asked.push(id);
    return id !== 'ca' ? [] : [
      write({ writeId: 5, at: NOW - 10, op: 'append', content: '\nThe user keeps three hives.\n' }),
      write({ writeId: 4, path: 'projects/bees.md', content: '# Bees\n\nHives.\n' }),
      write({ writeId: 3, content: '# Old\n\nThe user keeps wasps.\n', revertedBy: 6 }),
      write({ writeId: 2, content: '# Lost\n\nThe user keeps ants.\n', state: 'failed' }),
      write({ writeId: 1 }),
    ];
  };
  const tool = createRecentTurnsTool({ recall, writesOf, now: () => NOW });
  const out = await tool.call({ after: `${NOW - 3 * HOUR + 40_000}:ca:40` }, ctx);
  assert.deepEqual(asked.sort(), ['ca', 'cb']);
  assert.ok(out.content.endsWith([
    'Facts already kept with remember in these sessions (do not keep them again):',
    '- The user keeps bees. (memory/2026-12-05-the-user-keeps-bees.md, session ca)',
    '- The user keeps three hives. (memory/2026-12-05-the-user-keeps-bees.md, session ca)',
    '',
    'That is all of them.',
  ].join('\n')), out.content);
});
