/**
 * Chat sessions on a store shared by two nodes (issue 40): a session begun on node A is
 * listed, read and continued on node B, and its traces are listed on both; a node that
 * kept a session in memory reads it again when another node has gone on with it; a turn
 * is run by one node at a time (the other answers KW_ERR_CHAT_BUSY naming it); and a node
 * killed mid-turn has its turn finished by another once its lease lapses, with no
 * answered model call asked again; `recall` on one node finds what was said on the other.
 * Real engines (and a real child process) on one Postgres, one fake Ollama for all.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import Database from 'better-sqlite3';
import { buildApi } from '../../api/index.js';
import { RecallIndex } from '../../engine/chat/recall.js';
import { createEngine } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import { PgSession } from '../../engine/store/pg/session.js';
import { pgRecallQueries } from '../../engine/store/pg/sql/recall.js';
import { openSyncPg } from '../../engine/store/pg/sync-pg.js';
import { agentOf, profile, writeTeam } from '../../testkit/chat.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testOwnCode, testSyncPgModule } from '../../testkit/dist.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer, FakeScript } from '../../testkit/fake-models.js';
import { freshPostgresUrl } from '../../testkit/pg-store.js';
import { tempDir } from '../../testkit/tmp.js';
import { waitFor } from '../../testkit/wait.js';
import { listen, TestSocket } from '../support/api.js';
import { childNode } from '../support/child-node.js';
import { writeHorde } from '../support/engine.js';
import { TEST_TOKEN } from '../support/token.js';

/** The last user message of a request. */
const lastUser = (body: any): string => String([...(body?.messages ?? [])].reverse().find((m: any) => m.role === 'user')?.content ?? '');
/** Whether a request carries a tool's result (the call after a tool call). */
const afterTool = (body: any): boolean => (body?.messages ?? []).some((m: any) => m.role === 'tool');

/** A node's data folder: the team (helper, and reader, which reads files), its model on `server`, the shared store (run folders in `<dir>/shared`). */
function nodeHome(dir: string, name: string, server: FakeModelServer, url: string, files: string, leaseSecs = 1): string {
  const home = path.join(dir, name);
  writeTeam(home, { helper: profile('helper', ''), reader: profile('reader', 'tools = ["read_file"]'), rememberer: profile('rememberer', 'tools = ["recall"]') });
  fs.writeFileSync(path.join(home, 'config.toml'),
    `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${server.url}"\n[tools]\nroot = "${files}"\n[store]\nurl = "${url}"\nfiles = "${path.join(dir, 'shared')}"\nlease_secs = ${leaseSecs}\n`);
  return home;
}

async function node(t: TestContext, home: string): Promise<Engine> {
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  cleanups(t)(() => engine.close());
  return engine;
}

async function scene(t: TestContext, script: FakeScript): Promise<{ dir: string; server: FakeModelServer; url: string; files: string }> {
  const dir = tempDir(t);
  const server = await startFakeOllama(script);
  cleanups(t)(() => server.close());
  const files = path.join(dir, 'files');
  fs.mkdirSync(files);
  return { dir, server, url: await freshPostgresUrl(), files };
}

const selfOf = (engine: Engine): string => engine.nodes().nodes.find((n) => n.self)!.id;

test('a session begun on node A is listed, read and continued on node B; its traces are on both; A reads it again before its next turn', async (t) => {
  const { dir, server, url, files } = await scene(t, (body) => ({ text: `you said ${lastUser(body)}` }));
  const a = await node(t, nodeHome(dir, 'a', server, url, files));
  const b = await node(t, nodeHome(dir, 'b', server, url, files));

  const { id } = a.chat.create({ agent: 'helper', title: 'shared' });
  assert.equal((await a.chat.send(id, 'one').done).text, 'you said one');

  // B never saw the session: it lists it and reads it from the shared log.
  assert.deepEqual(b.chat.list().map((s) => [s.id, s.title, s.turns]), [[id, 'shared', 1]]);
  assert.deepEqual(b.chat.get(id).transcript.map((x) => x.text), ['one']);
  assert.equal((await b.chat.send(id, 'two').done).text, 'you said two');
  assert.equal(server.requests.at(-1)!.body.messages.filter((m: any) => m.role === 'user').length, 2, "B's turn carries A's turn as history");

  // A still holds its copy of the session (as of turn 1): it must see B's turn before its own.
  assert.deepEqual(a.chat.get(id).transcript.map((x) => x.text), ['one', 'two']);
  const third = a.chat.send(id, 'three');
  assert.equal(third.turn, 3);
  assert.equal((await third.done).text, 'you said three');
  assert.deepEqual(server.requests.at(-1)!.body.messages.filter((m: any) => m.role === 'user').map((m: any) => m.content), ['one', 'two', 'three']);
  assert.deepEqual(b.chat.get(id).transcript.map((x) => x.text), ['one', 'two', 'three']);
  assert.equal(b.chat.summary(id).lastSeq, a.chat.summary(id).lastSeq);

  // The traces of the three calls, made on two nodes, are listed alike on both.
  const onA = a.listTraces({ sessionId: id, limit: 10 });
  assert.equal(onA.length, 3);
  assert.deepEqual(b.listTraces({ sessionId: id, limit: 10 }), onA);
  assert.equal(b.getTrace(onA[0]!.id).completion, 'you said three');
});

test('a turn is run by one node at a time: node B asked for a turn while A runs one answers KW_ERR_CHAT_BUSY naming A', async (t) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const { dir, server, url, files } = await scene(t, (body) => (lastUser(body) === 'slow' ? { text: 'at last', heldUntil: held } : { text: 'quick' }));
  const a = await node(t, nodeHome(dir, 'a', server, url, files));
  const b = await node(t, nodeHome(dir, 'b', server, url, files));

  const { id } = a.chat.create({ agent: 'helper' });
  const slow = a.chat.send(id, 'slow');
  await waitFor(() => server.requests.length === 1, "A's model call is in flight");
  assert.throws(() => b.chat.send(id, 'meanwhile'), (err: any) => {
    assert.equal(err.code, 'KW_ERR_CHAT_BUSY');
    assert.match(err.message, new RegExp(`node ${selfOf(a)}`));
    return true;
  });
  assert.equal(b.chat.summary(id).state, 'running', 'B reads the turn under way');
  // What `kowalski nodes` and the Nodes screen show, asked of either node: A answers one chat turn, B none.
  const turns = (from: typeof a) => Object.fromEntries(from.nodes().nodes.map((n) => [n.id, n.chatTurnsHeld]));
  assert.deepEqual(turns(b), { [selfOf(a)]: 1, [selfOf(b)]: 0 });
  assert.deepEqual(turns(a), turns(b));

  release();
  assert.equal((await slow.done).text, 'at last');
  assert.deepEqual(turns(b), { [selfOf(a)]: 0, [selfOf(b)]: 0 }, "the turn's end gave its lease up");
  // The turn ended and its lease was given up: B takes the next one.
  assert.equal((await b.chat.send(id, 'next').done).text, 'quick');
  assert.equal(server.requests.length, 2);
});

test('a node killed mid-turn: another node finishes the turn once its lease lapses, asking no answered model call again', async (t) => {
  // The reader's turn: a model call that asks to read notes.txt (answered), then the call after the tool's result, which
  // the fake holds for as long as node A lives (A is killed while waiting for it), and answers when asked again.
  let aAlive = true;
  const { dir, server, url, files } = await scene(t, (body) => {
    if (agentOf(body) !== 'reader') return { status: 500, error: 'fake: unexpected agent' };
    if (!afterTool(body)) return { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] };
    return aAlive ? { hang: true } : { text: 'the notes say tea at four' };
  });
  fs.writeFileSync(path.join(files, 'notes.txt'), 'tea at four');
  const homeA = nodeHome(dir, 'a', server, url, files);
  const a = childNode(t, 'testkit/pg-chat-node.ts', [url, homeA, '1', 'reader', 'What do the notes say?']);
  const sessionId = await a.fact('session') as string;
  const nodeA = await a.fact('node') as string;
  await waitFor(() => server.requests.length === 2, "A's second model call is in flight", 30_000);
  assert.equal(server.requests[0]!.answered, true);

  const b = await node(t, nodeHome(dir, 'b', server, url, files));
  // While A lives, its turn is its own.
  assert.throws(() => b.chat.send(sessionId, 'hello?'), (err: any) => err.code === 'KW_ERR_CHAT_BUSY' && err.message.includes(nodeA));
  aAlive = false;
  a.child.kill('SIGKILL');

  await waitFor(() => b.chat.summary(sessionId).state === 'idle', 'node B finished the turn', 30_000);
  const turn = b.chat.get(sessionId).transcript.at(-1)!;
  assert.equal(turn.answer?.text, 'the notes say tea at four');
  assert.equal(turn.answer?.usage.calls, 2, "the turn counts A's answered call and B's");
  // The answered first call was replayed from the log, never asked again; only the call A never got an answer to was asked again.
  assert.equal(server.requests.filter((r) => !afterTool(r.body)).length, 1, 'the first model call was asked once');
  assert.equal(server.requests.length, 3);
  assert.equal(server.requests[2]!.answered, true);
  assert.equal(b.listTraces({ sessionId, limit: 10 }).length, 2, "A's answered call and B's");
});

test('a node stopped (SIGSTOP) past its lease mid-turn: another node finishes the turn; woken, its append is refused by the fence and it stops', async (t) => {
  let releaseA!: () => void;
  const heldA = new Promise<void>((resolve) => {
    releaseA = resolve;
  });
  // The reader's first call asks to read notes.txt; the call after the tool's result is held for A (the second request)
  // until the test lets it go, and answered at once for whoever asks it later.
  const { dir, server, url, files } = await scene(t, (body, index) => {
    if (!afterTool(body)) return { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] };
    return index === 1 ? { text: 'A was here', heldUntil: heldA } : { text: 'the notes say tea at four' };
  });
  fs.writeFileSync(path.join(files, 'notes.txt'), 'tea at four');
  const a = childNode(t, 'testkit/pg-chat-node.ts', [url, nodeHome(dir, 'a', server, url, files), '1', 'reader', 'What do the notes say?']);
  const sessionId = await a.fact('session') as string;
  await waitFor(() => server.requests.length === 2, "A's second model call is in flight", 30_000);
  const b = await node(t, nodeHome(dir, 'b', server, url, files));

  a.child.kill('SIGSTOP');
  await waitFor(() => b.chat.summary(sessionId).state === 'idle', 'node B took the turn over and finished it', 30_000);
  assert.equal(b.chat.get(sessionId).transcript.at(-1)!.answer?.text, 'the notes say tea at four');
  const lastSeq = b.chat.summary(sessionId).lastSeq;

  // A wakes and gets its answer: the append that would record it is refused, and A stops.
  a.child.kill('SIGCONT');
  releaseA();
  assert.equal(await a.fact('stopped'), 'KW_ERR_STORE_FENCED');
  assert.equal(b.chat.summary(sessionId).lastSeq, lastSeq, 'A wrote nothing into the session');
  assert.deepEqual(b.chat.get(sessionId).transcript.map((x) => x.answer?.text), ['the notes say tea at four']);
  assert.equal(server.requests.filter((r) => !afterTool(r.body)).length, 1, 'the first model call was asked once');
});

test("an agent step's session is found on any node; the store's recall index holds both turns, a consolidation's window only the chat turn", async (t) => {
  const { dir, server, url, files } = await scene(t, (body) => ({ text: `answered: ${lastUser(body).slice(0, 40)}` }));
  const homeA = nodeHome(dir, 'a', server, url, files);
  const a = await node(t, homeA);
  const b = await node(t, nodeHome(dir, 'b', server, url, files));
  const folder = writeHorde(path.join(homeA, 'hordes', 'study'), 'id = "study"\npipeline = ["research"]', {
    research: 'kind = "agent"\nagent = "helper"\nprompt_file = "prompts/research.md"',
  });
  fs.mkdirSync(path.join(folder, 'prompts'));
  fs.writeFileSync(path.join(folder, 'prompts', 'research.md'), 'Find out about tea.');
  const runId = await a.startRun((await a.resolveHorde('study')).horde, {});
  assert.equal(await a.waitForRun(runId), 'succeeded');
  const { id } = a.chat.create({ agent: 'helper' });
  await a.chat.send(id, 'tea please').done;

  // B finds the step's session through the run, and reads its turn.
  const [link] = b.getRun(runId).agentTurns ?? [];
  assert.equal(link?.step, 'research');
  assert.equal(b.chat.get(link!.sessionId).run?.runId, runId);
  assert.match(b.chat.get(link!.sessionId).transcript[0]?.answer?.text ?? '', /^answered: You are the step "research"/);
  assert.equal(b.listTraces({ runId, limit: 10 }).length, 1, "the step's call, listed through its run");

  // The episodic memory's index is the store's: both turns are found, a consolidation's window reads only the chat turn.
  const pg = openSyncPg(url, { module: testSyncPgModule() });
  cleanups(t)(() => pg.close());
  const recall = new RecallIndex(pgRecallQueries(new PgSession(pg)));
  assert.deepEqual(recall.since({ at: 0 }, 10).map((r) => r.session_id), [id]);
  assert.deepEqual(recall.search('answered').map((h) => h.sessionId).sort(), [id, link!.sessionId].sort());
  const db = new Database(path.join(homeA, 'kowalski.sqlite'), { readonly: true });
  cleanups(t)(() => db.close());
  assert.equal(db.prepare('SELECT count(*) FROM chat_fts').pluck().get(), 0, "A's data folder indexes nothing of the store's");
});

test('recall on node B finds what was said in a session node A answered: the episodic memory is the store\'s', async (t) => {
  // rememberer recalls the words of its message, then answers with what the tool found.
  const { dir, server, url, files } = await scene(t, (body) => {
    if (agentOf(body) !== 'rememberer') return { text: `noted: ${lastUser(body)}` };
    if (!afterTool(body)) return { toolCalls: [{ name: 'recall', arguments: { query: lastUser(body) } }] };
    return { text: String([...body.messages].reverse().find((m: any) => m.role === 'tool')?.content ?? '') };
  });
  const a = await node(t, nodeHome(dir, 'a', server, url, files));
  const b = await node(t, nodeHome(dir, 'b', server, url, files));
  const told = a.chat.create({ agent: 'helper', title: 'tea talk' });
  await a.chat.send(told.id, 'I drink oolong tea at four').done;

  const asking = b.chat.create({ agent: 'rememberer' });
  const answer = (await b.chat.send(asking.id, 'oolong').done).text;
  assert.match(answer, new RegExp(`^- session ${told.id} "tea talk", turn 1, .* helper: I drink \\[oolong\\] tea at four`));
  // And the other way round: A recalls what B's session said (its own session left out).
  const back = a.chat.create({ agent: 'rememberer' });
  assert.match((await a.chat.send(back.id, 'oolong').done).text, new RegExp(`^- session ${asking.id} "oolong", turn 1, .* rememberer: \\[oolong\\]`));
});

test("a node killed mid-way through an agent step's turn: the node that adopts the run goes on with the turn, asking no answered model call again", async (t) => {
  let aAlive = true;
  const { dir, server, url, files } = await scene(t, (body) => {
    if (!afterTool(body)) return { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] };
    return aAlive ? { hang: true } : { text: '# Notes\n\nTea at four.' };
  });
  fs.writeFileSync(path.join(files, 'notes.txt'), 'tea at four');
  const folder = writeHorde(path.join(dir, 'h'), 'id = "study"\npipeline = ["research"]', {
    research: 'kind = "agent"\nagent = "reader"\nprompt_file = "prompts/research.md"',
  });
  fs.mkdirSync(path.join(folder, 'prompts'));
  fs.writeFileSync(path.join(folder, 'prompts', 'research.md'), 'What do the notes say?');
  const a = childNode(t, 'testkit/pg-node.ts', [url, nodeHome(dir, 'a', server, url, files), path.join(dir, 'shared'), '1', folder]);
  const runId = await a.fact('run') as string;
  await waitFor(() => server.requests.length === 2, "A's second model call is in flight", 30_000);
  const b = await node(t, nodeHome(dir, 'b', server, url, files));
  aAlive = false;
  a.child.kill('SIGKILL');

  assert.equal(await b.waitForRun(runId), 'succeeded');
  const [link] = b.getRun(runId).agentTurns ?? [];
  const turns = b.chat.get(link!.sessionId).transcript;
  assert.deepEqual(turns.map((x) => [x.turn, x.answer?.text]), [[1, '# Notes\n\nTea at four.']], 'one turn, gone on with on B');
  assert.equal(server.requests.filter((r) => !afterTool(r.body)).length, 1, 'the first model call was asked once');
  assert.equal(server.requests.length, 3);
  assert.equal(b.getRun(runId).budget.spent.model_calls, 2, "A's answered call and B's");
});

test('a node stopped cleanly mid-turn gives its turn up at once: another node goes on with it', async (t) => {
  let first = true;
  const { dir, server, url, files } = await scene(t, () => {
    if (!first) return { text: 'answered on B' };
    first = false;
    return { hang: true };
  });
  // Leases of 5 s: what B does before they could lapse, it does because A gave the turn up.
  const a = await node(t, nodeHome(dir, 'a', server, url, files, 5));
  const b = await node(t, nodeHome(dir, 'b', server, url, files, 5));
  const { id } = a.chat.create({ agent: 'helper' });
  void a.chat.send(id, 'hello').done.catch(() => undefined);
  await waitFor(() => server.requests.length === 1, "A's model call is in flight");
  const stoppedAt = Date.now();
  await a.close();
  await waitFor(() => b.chat.summary(id).state === 'idle', 'node B went on with the turn');
  assert.ok(Date.now() - stoppedAt < 4000, 'at once, not when the lease would have lapsed');
  assert.equal(b.chat.get(id).transcript.at(-1)!.answer?.text, 'answered on B');
});

/** Nodes A and B, a session begun on A (its log up to `lastSeq`), and a websocket client of B's API following it (synced, live from now on). */
async function followedFromB(t: TestContext, dir: string, server: FakeModelServer, url: string, files: string): Promise<{ a: Engine; id: string; lastSeq: number; ws: TestSocket }> {
  const a = await node(t, nodeHome(dir, 'a', server, url, files));
  const b = await node(t, nodeHome(dir, 'b', server, url, files));
  const api = await buildApi(b, { token: TEST_TOKEN, port: 0 });
  cleanups(t)(() => api.app.close());
  const { wsUrl } = await listen(api);
  const { id, lastSeq } = a.chat.create({ agent: 'helper' });
  const ws = await TestSocket.open(t, wsUrl);
  await ws.next((f) => f.type === 'hello');
  ws.send({ type: 'chat-follow', sessionId: id, after: lastSeq });
  await ws.next((f) => f.type === 'chat-synced');
  return { a, id, lastSeq, ws };
}

test('a client of node B following a session sees the answer node A is streaming, token by token, before the turn ends', async (t) => {
  const answer = 'The tea is oolong, brewed at four, in the blue pot.';
  const { dir, server, url, files } = await scene(t, () => ({ text: answer, chunkDelayMs: 40 }));
  const { a, id, ws } = await followedFromB(t, dir, server, url, files);

  const sent = a.chat.send(id, 'which tea?');
  // Live: the first tokens reach B's client while A's model is still writing.
  await ws.next((f) => f.type === 'chat-token');
  assert.equal(server.requests[0]!.answered, false, 'the answer is not all written yet');
  await sent.done;
  await ws.next((f) => f.type === 'chat-event' && f.event.type === 'turn.finished');
  const frames = ws.frames.filter((f) => f.type === 'chat-token' || f.type === 'chat-event');
  const tokens = frames.filter((f) => f.type === 'chat-token');
  assert.equal(tokens.map((f) => f.text).join(''), answer, 'every token once, in order');
  assert.ok(tokens.length > 1, `token by token (${tokens.length} frames)`);
  assert.deepEqual([...new Set(tokens.map((f) => `${f.sessionId} ${f.turn} ${f.node} ${f.agent}`))], [`${id} 1 r helper`]);
  const finished = frames.findIndex((f) => f.type === 'chat-event' && f.event.type === 'model.finished');
  assert.ok(frames.findLastIndex((f) => f.type === 'chat-token') < finished, "the tokens come before the events committed after them");
});

test("a client of node B following a session gets the events of the turn node A runs, in order, as A commits them", async (t) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const { dir, server, url, files } = await scene(t, () => ({ text: 'far away', heldUntil: held }));
  const { a, id, lastSeq, ws } = await followedFromB(t, dir, server, url, files);

  const sent = a.chat.send(id, 'hello from afar');
  // Live, not read back later: the model's answer is held until B's client has seen the turn start.
  await ws.next((f) => f.type === 'chat-event' && f.event.type === 'turn.started');
  release();
  await sent.done;
  const finished = await ws.next((f) => f.type === 'chat-event' && f.event.type === 'turn.finished');
  assert.equal(finished.event.text, 'far away');
  assert.equal(finished.state, 'idle');
  const got = ws.frames.filter((f) => f.type === 'chat-event');
  assert.deepEqual(got.map((f) => [f.seq, f.event]), a.chat.events(id).slice(lastSeq).map((s) => [s.seq, s.event]), 'every event once, in order');
});
