/**
 * The episodic memory's index on a Postgres store (`chat_recall`, migration 10), through
 * the same RecallIndex the engine uses: migration 10 indexes the turns finished before it
 * (each turn's last answer), a query from user text is only its words (search syntax in it
 * is text), a turn finished again replaces its row, the asking session is left out, and a
 * consolidation's window reads the chat turns oldest first, page after page, never an agent
 * step's. The same cases as SQLite's (test/unit/chat.recall.test.ts, chat.recent-turns.test.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { RecallIndex } from '../../engine/chat/recall.js';
import { migratePg } from '../../engine/store/pg/migrate.js';
import { PG_MIGRATIONS } from '../../engine/store/pg/schema/index.js';
import { PgSession } from '../../engine/store/pg/session.js';
import { pgRecallQueries } from '../../engine/store/pg/sql/recall.js';
import { openSyncPg } from '../../engine/store/pg/sync-pg.js';
import type { SyncPg } from '../../engine/store/pg/sync-pg.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testSyncPgModule } from '../../testkit/dist.js';
import { freshPostgresUrl } from '../../testkit/pg-store.js';

async function database(t: TestContext, migrations = PG_MIGRATIONS): Promise<{ pg: SyncPg; url: string }> {
  const url = await freshPostgresUrl();
  const pg = openSyncPg(url, { module: testSyncPgModule() });
  cleanups(t)(() => pg.close());
  migratePg(pg, url, migrations);
  return { pg, url };
}

test('migration 10 indexes the chat turns already finished: the message, the last answer of each turn, the agent', async (t) => {
  const { pg, url } = await database(t, PG_MIGRATIONS.slice(0, 9));
  const add = (seq: number, type: string, at: number, data: unknown): number =>
    pg.run('INSERT INTO chat_events (session_id, seq, type, v, at, data) VALUES ($1, $2, $3, 1, $4, $5)', ['c1', seq, type, at, JSON.stringify(data)]);
  const agent = { name: 'assistant', model: 'ollama:m', tools: [], prompt: 'p' };
  add(1, 'session.created', 10, { agent: 'assistant', title: '', by: 'cli' });
  add(2, 'turn.started', 11, { turn: 1, text: 'Where is the walrus colony?', agent, budget: 1, by: 'cli' });
  add(3, 'turn.finished', 12, { turn: 1, text: 'The budget ran out', stop: 'budget_exhausted', usage: {} });
  add(4, 'budget.granted', 13, { turn: 1, extra: 2, by: 'cli' });
  add(5, 'turn.finished', 14, { turn: 1, text: 'On the northern beach.', stop: 'done', usage: {} });
  add(6, 'turn.started', 15, { turn: 2, text: 'And the penguins?', agent, budget: 1, by: 'cli' });
  migratePg(pg, url);

  const rows = pg.all('SELECT session_id, turn, agent, at::integer AS at, user_text, assistant_text FROM chat_recall ORDER BY turn');
  assert.deepEqual(rows, [{ session_id: 'c1', turn: 1, agent: 'assistant', at: 14, user_text: 'Where is the walrus colony?', assistant_text: 'On the northern beach.' }]);
  const recall = new RecallIndex(pgRecallQueries(new PgSession(pg)));
  assert.deepEqual(recall.search('northern walrus').map((h) => [h.sessionId, h.turn, h.agent, h.at, h.title]), [['c1', 1, 'assistant', 14, '']]);
  assert.deepEqual(recall.search('walrus', { exclude: 'c1' }), []);
});

test('a query from user text is only its words; a turn written again replaces its row; the best match first, the matched words marked', async (t) => {
  const { pg } = await database(t);
  const recall = new RecallIndex(pgRecallQueries(new PgSession(pg)));
  recall.write({ session_id: 'c1', turn: 1, agent: 'a', at: 1, user: 'NEAR the "river"', assistant: 'yes' }, false);
  recall.write({ session_id: 'c1', turn: 1, agent: 'a', at: 2, user: 'NEAR the "river" again', assistant: 'yes, again' }, true);
  recall.write({ session_id: 'c2', turn: 1, agent: 'a', at: 3, user: 'Only the river', assistant: 'flows' }, false);
  const hits = recall.search("near( river\" OR* ') | !x");
  assert.deepEqual(hits.map((h) => [h.sessionId, h.turn, h.at]), [['c1', 1, 2], ['c2', 1, 3]], 'one row for the turn written again; both words before one');
  assert.match(hits[0]!.snippet, /\[NEAR\] the "\[river\]" again/);
  assert.deepEqual(recall.search('river', { limit: 1 }).length, 1);
  assert.throws(() => recall.search(' "*" () '), { code: 'KW_ERR_TOOL_ARGS' });
});

test("a consolidation's window: chat turns oldest first, page after page, an agent's only when asked, never an agent step's", async (t) => {
  const { pg } = await database(t);
  const s = new PgSession(pg);
  pg.run("INSERT INTO step_sessions (session_id, run_id, step, agent, created_at) VALUES ('cstep', 'r1', 'consolidate', 'archivist', 1)");
  const recall = new RecallIndex(pgRecallQueries(s));
  recall.write({ session_id: 'cstep', turn: 1, agent: 'archivist', at: 50, user: 'Consolidate.', assistant: '# Memory' }, false);
  for (let i = 1; i <= 5; i++) recall.write({ session_id: i % 2 === 0 ? 'ca' : 'cb', turn: i, agent: i === 5 ? 'host' : 'assistant', at: 100 + i, user: `Message ${i}.`, assistant: `Answer ${i}.` }, false);
  const first = recall.since({ at: 0 }, 3);
  assert.deepEqual(first.map((r) => [r.session_id, r.turn, r.user]), [['cb', 1, 'Message 1.'], ['ca', 2, 'Message 2.'], ['cb', 3, 'Message 3.']]);
  assert.equal(first[0]!.assistant, 'Answer 1.');
  assert.equal(recall.countSince({ at: 0 }), 5);
  const last = first.at(-1)!;
  const after = { at: last.at, sessionId: last.session_id, turn: last.turn };
  assert.deepEqual(recall.since({ at: 0, after }, 10).map((r) => r.turn), [4, 5]);
  assert.equal(recall.countSince({ at: 0, after }), 2);
  assert.deepEqual(recall.since({ at: 0, agent: 'host' }, 10).map((r) => r.turn), [5]);
  assert.deepEqual(recall.since({ at: 104 }, 10).map((r) => r.turn), [4, 5]);
  assert.deepEqual(recall.search('consolidate').map((h) => h.sessionId), ['cstep'], 'recall finds it, as on one node');
});
