/**
 * `kowalski memory consolidate`: recent chat turns turned into facts by one traced call of
 * the default model, each kept as a memory note with origin `consolidate` (through the
 * engine's audited vault); and the command itself, run as a process, embedded and through a server.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { buildApi } from '../../api/index.js';
import { listen } from '../support/api.js';
import { chatSetup, profile } from '../../testkit/chat.js';
import { cli, cliSandbox, outputOf, stdoutJson } from '../../testkit/cli.js';
import type { FakeTurn } from '../../testkit/fake-models.js';
import { cleanups } from '../../testkit/cleanup.js';
import { AUTH, TEST_TOKEN, writeTestToken } from '../support/token.js';

const isConsolidation = (body: any): boolean => String(body?.messages?.[0]?.content ?? '').startsWith('You read conversations');

test('consolidation reads the recent turns of the agent asked for, keeps each fact the model lists as a memory note with its trace, and refuses an answer that is not a JSON list', async (t) => {
  let answer = '```json\n["The user lives in Gdańsk.", "The user lives in Gdańsk.", "The user keeps bees."]\n```';
  const s = await chatSetup(t, (body: any): FakeTurn => (isConsolidation(body) ? { text: answer } : { text: 'Nice.' }),
    { host: profile('host', 'tools = []\nmemories = 0'), other: profile('other', 'tools = []\nmemories = 0') });
  const a = s.engine.chat.create({ agent: 'host' }).id;
  await s.engine.chat.send(a, 'I live in Gdańsk and keep bees.').done;
  const b = s.engine.chat.create({ agent: 'other' }).id;
  await s.engine.chat.send(b, 'Secret of the other agent.').done;

  const out = await s.engine.chat.consolidate({ since: 0, agent: 'host' });
  assert.equal(out.turns, 1);
  assert.equal(out.leftOut, 0);
  const asked = s.server.requests.filter((r) => r.path === '/api/chat' && isConsolidation(r.body)).map((r) => r.body);
  assert.equal(asked.length, 1);
  assert.match(asked[0].messages[1].content, new RegExp(`^Session ${a}, turn 1 \\(host\\):\nUser: I live in Gdańsk and keep bees\\.\nAssistant: Nice\\.$`));
  const day = new Date().toISOString().slice(0, 10);
  assert.deepEqual(out.facts.map((f) => [f.fact, f.path]), [
    ['The user lives in Gdańsk.', `memory/${day}-the-user-lives-in-gdansk.md`],
    ['The user keeps bees.', `memory/${day}-the-user-keeps-bees.md`],
  ]);
  const trace = s.engine.getTrace(out.traceId!);
  assert.equal(trace.agent, 'consolidate');
  assert.equal(trace.completion, answer);
  assert.deepEqual(s.engine.vault.writes({}).map((w) => [w.by, w.agent, w.sessionId, w.traceId]), [['consolidate', 'consolidate', null, out.traceId], ['consolidate', 'consolidate', null, out.traceId]]);
  assert.equal(fs.readFileSync(path.join(s.home, 'vault', 'memory', `${day}-the-user-keeps-bees.md`), 'utf8'), '# The user keeps bees.\n\nThe user keeps bees.\n');

  // Nothing recent: no model call.
  const before = s.server.requests.length;
  assert.deepEqual(await s.engine.chat.consolidate({ since: Date.now() + 60_000 }), { turns: 0, leftOut: 0, traceId: null, facts: [] });
  assert.equal(s.server.requests.length, before);

  answer = 'Here are some facts: the user lives in Gdańsk';
  await assert.rejects(s.engine.chat.consolidate({ since: 0 }), { code: 'KW_ERR_MEMORY_CONSOLIDATE' });
  assert.equal(s.engine.vault.writes({}).length, 2, 'nothing written');

  // While a server owns the data directory, the command asks it (POST /api/memory/consolidate).
  const api = await buildApi(s.engine, { token: TEST_TOKEN, port: 0 });
  cleanups(t)(() => api.app.close());
  const { base } = await listen(api);
  writeTestToken(s.home);
  s.engine.announce(`${base}/`);
  answer = '["The user bakes bread on Sundays."]';
  const through = await cli(s.home, ['memory', 'consolidate', '--agent', 'other', '--json']);
  assert.equal(through.code, 0, outputOf(through));
  const result = stdoutJson<{ turns: number; facts: Array<{ path: string }> }>(through);
  assert.deepEqual([result.turns, result.facts.map((f) => f.path)], [1, [`memory/${day}-the-user-bakes-bread-on-sundays.md`]]);
  assert.equal(s.engine.vault.writes({}).length, 3);
  const bad = await api.app.inject({ method: 'POST', url: '/api/memory/consolidate', headers: { host: new URL(base).host, ...AUTH }, payload: { since: 'yesterday' } });
  assert.equal(bad.statusCode, 400);
});

test('kowalski memory consolidate: nothing recent says so and exits 0; a bad --since is a usage error', async (t) => {
  const { home } = cliSandbox(t);
  const none = await cli(home, ['memory', 'consolidate', '--since', '2h', '--json']);
  assert.equal(none.code, 0, outputOf(none));
  assert.deepEqual(stdoutJson(none), { turns: 0, leftOut: 0, traceId: null, facts: [] });
  const text = await cli(home, ['memory', 'consolidate']);
  assert.equal(text.code, 0, outputOf(text));
  assert.match(text.stdout, /^No chat turns finished in the last 24h: nothing to consolidate\.$/m);
  const bad = await cli(home, ['memory', 'consolidate', '--since', 'yesterday']);
  assert.equal(bad.code, 2, outputOf(bad));
  assert.match(bad.stderr, /--since takes a time back from now such as 30m, 24h or 7d, not "yesterday" \[KW_ERR_USAGE\]/);
});
