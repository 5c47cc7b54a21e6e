/**
 * Episodic memory's index: migration 8 indexes the turns finished before it (each turn's
 * last answer, after more budget), and a query from user text is always a safe FTS5 query.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { RecallIndex, recallTerms } from '../../engine/chat/recall.js';
import { MIGRATIONS } from '../../engine/schema/index.js';
import { openDatabase } from '../../engine/store/database.js';
import { recallQueries } from '../../engine/store/sql/recall.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';

test('migration 8 indexes the chat turns already finished: the message, the last answer of each turn, the agent', (t) => {
  const file = path.join(tempDir(t), 'k.sqlite');
  const old = openDatabase(file, { migrations: MIGRATIONS.slice(0, 7) });
  const add = old.prepare('INSERT INTO chat_events (session_id, seq, type, v, at, data) VALUES (?, ?, ?, 1, ?, ?)');
  const agent = { name: 'assistant', model: 'ollama:m', tools: [], prompt: 'p' };
  add.run('c1', 1, 'session.created', 10, JSON.stringify({ agent: 'assistant', title: '', by: 'cli' }));
  add.run('c1', 2, 'turn.started', 11, JSON.stringify({ turn: 1, text: 'Where is the walrus colony?', agent, budget: 1, by: 'cli' }));
  add.run('c1', 3, 'turn.finished', 12, JSON.stringify({ turn: 1, text: 'The budget ran out', stop: 'budget_exhausted', usage: {} }));
  add.run('c1', 4, 'budget.granted', 13, JSON.stringify({ turn: 1, extra: 2, by: 'cli' }));
  add.run('c1', 5, 'turn.finished', 14, JSON.stringify({ turn: 1, text: 'On the northern beach.', stop: 'done', usage: {} }));
  add.run('c1', 6, 'turn.started', 15, JSON.stringify({ turn: 2, text: 'And the penguins?', agent, budget: 1, by: 'cli' }));
  old.close();

  const db = openDatabase(file);
  cleanups(t)(() => db.close());
  const rows = db.prepare('SELECT session_id, turn, agent, at, user, assistant FROM chat_fts ORDER BY turn').all();
  assert.deepEqual(rows, [{ session_id: 'c1', turn: 1, agent: 'assistant', at: 14, user: 'Where is the walrus colony?', assistant: 'On the northern beach.' }]);
  const hits = new RecallIndex(recallQueries(db)).search('northern walrus');
  assert.deepEqual(hits.map((h) => [h.sessionId, h.turn, h.agent, h.title]), [['c1', 1, 'assistant', '']]);
  assert.deepEqual(new RecallIndex(recallQueries(db)).search('walrus', { exclude: 'c1' }), []);
});

test('a query from user text is its words, so FTS5 syntax in it is only text; a query with no word is refused', (t) => {
  assert.deepEqual(recallTerms('kiwi "tart* NEAR( AND -x kiwi'), ['kiwi', 'tart', 'near', 'and', 'x']);
  assert.deepEqual(recallTerms('Crème brûlée'), ['crème', 'brûlée']);
  assert.throws(() => recallTerms(' "*" () '), { code: 'KW_ERR_TOOL_ARGS' });
  const db = openDatabase(path.join(tempDir(t), 'k.sqlite'));
  cleanups(t)(() => db.close());
  const recall = new RecallIndex(recallQueries(db));
  recall.write({ session_id: 'c1', turn: 1, agent: 'a', at: 1, user: 'NEAR the "river"', assistant: 'yes' }, false);
  recall.write({ session_id: 'c1', turn: 1, agent: 'a', at: 2, user: 'NEAR the "river" again', assistant: 'yes, again' }, true);
  const hits = recall.search('near( river" OR*');
  assert.equal(hits.length, 1, 'a turn written again replaces its row');
  assert.match(hits[0]!.snippet, /\[NEAR\] the "\[river\]" again/);
});
