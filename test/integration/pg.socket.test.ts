/** The websocket of one node follows runs another node of the same Postgres store executes: woken by notifications, polling while they are cut off. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { buildApi } from '../../api/index.js';
import { listen, TestSocket } from '../support/api.js';
import { openSyncPg } from '../../engine/store/pg/sync-pg.js';
import { testSyncPgModule } from '../../testkit/dist.js';
import { cleanups } from '../../testkit/cleanup.js';
import { writeHorde } from '../support/engine.js';
import { freshPostgresUrl, pgTestEngine } from '../support/pg-engine.js';
import { tempDir } from '../../testkit/tmp.js';
import { waitFor } from '../../testkit/wait.js';
import { TEST_TOKEN } from '../support/token.js';

test('a client of node B subscribed to a run node A executes gets every event of it, in order, as A commits them', { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const url = await freshPostgresUrl();
  const gate = path.join(dir, 'gate');
  const folder = writeHorde(path.join(dir, 'h'), 'id = "far"\npipeline = ["a", "wait", "b"]\nconfirm_commands = false', {
    a: 'kind = "noop"', wait: `kind = "verify"\nverify_command = "while [ ! -f ${gate} ]; do sleep 0.05; done"`, b: 'kind = "noop"',
  });
  const a = await pgTestEngine(t, { url });
  const b = await pgTestEngine(t, { url });
  const api = await buildApi(b.engine, { token: TEST_TOKEN, port: 0 });
  cleanups(t)(() => api.app.close());
  const { wsUrl } = await listen(api);
  const runId = await a.engine.startRun((await a.engine.resolveHorde(folder)).horde, {});
  const ws = await TestSocket.open(t, wsUrl);
  ws.send({ type: 'subscribe', runId });
  // Live, not only the catch-up from the log: the step is held until the client has seen it start.
  await ws.next((f) => f.type === 'event' && f.event.type === 'step.spawned' && f.event.step === 'wait');
  fs.writeFileSync(gate, '');
  await ws.next((f) => f.type === 'event' && f.state === 'succeeded');
  const got = ws.frames.filter((f) => f.type === 'event');
  const stored = a.engine.events(runId);
  assert.deepEqual(got.map((f) => [f.gseq, f.seq, f.event]), stored.map((s) => [s.gseq, s.seq, s.event]), 'exactly the committed events, in order, none twice');
});

test('wake-ups: with its polls slowed to a minute node B still follows A\'s runs at once (notifications); with its listener cut off it falls back to polling, then listens again', { timeout: 90_000 }, async (t) => {
  const dir = tempDir(t);
  const url = await freshPostgresUrl();
  const folder = writeHorde(path.join(dir, 'h'), 'id = "near"\npipeline = ["a", "b"]', { a: 'kind = "noop"', b: 'kind = "noop"' });
  const a = await pgTestEngine(t, { url });
  // Polls slowed to a minute while B listens; once cut off, B waits 3 s before it reconnects, and polls every 100 ms meanwhile.
  const b = await pgTestEngine(t, { url, cluster: { pollMs: { slow: 60_000, fast: 100 }, relistenMs: 3_000 } });
  const api = await buildApi(b.engine, { token: TEST_TOKEN, port: 0 });
  cleanups(t)(() => api.app.close());
  const { wsUrl } = await listen(api);
  const ws = await TestSocket.open(t, wsUrl);
  ws.send({ type: 'subscribe' });
  await waitFor(() => b.engine.nodes().wakeUps === 'notify', 'B listens');
  const horde = (await a.engine.resolveHorde(folder)).horde;
  /** A run on A, and how long after its end B's client heard of it. */
  const lag = async (): Promise<number> => {
    const from = ws.frames.length;
    const runId = await a.engine.startRun(horde, {});
    assert.equal(await a.engine.waitForRun(runId), 'succeeded');
    const done = performance.now();
    await ws.next((f) => f.type === 'event' && f.runId === runId && f.state === 'succeeded', from);
    return performance.now() - done;
  };
  const heard = await lag();
  assert.ok(heard < 2_000, `heard ${Math.round(heard)} ms after the run ended: by notification, not at a poll a minute away`);

  // Cut B's listener off: it polls until it reconnects.
  const admin = openSyncPg(url, { module: testSyncPgModule() });
  t.after(() => admin.close());
  const nodeB = b.engine.nodes().nodes.find((n) => n.self)!.id;
  const cut = (): number => admin.all('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [`kowalski ${nodeB} listener`]).length;
  assert.equal(cut(), 1, 'B\'s listening connection found and ended');
  await waitFor(() => b.engine.nodes().wakeUps === 'polling', 'B knows it is polling');
  const polled = await lag();
  assert.ok(polled < 1_000, `heard ${Math.round(polled)} ms after the run ended, by polling`);
  assert.equal(b.engine.nodes().wakeUps, 'polling', 'still cut off: it was the poll that carried it');
  await waitFor(() => b.engine.nodes().wakeUps === 'notify', 'B listens again', 15_000);
  const again = await lag();
  assert.ok(again < 2_000, `heard ${Math.round(again)} ms after the run ended, by notification again`);
});

test('a client of every run on node A gets every event both nodes commit, each once, in gseq order with no gap, while both commit at once', { timeout: 90_000 }, async (t) => {
  const dir = tempDir(t);
  const url = await freshPostgresUrl();
  const folder = writeHorde(path.join(dir, 'h'), 'id = "both"\npipeline = ["a", "b", "c"]', { a: 'kind = "noop"', b: 'kind = "noop"', c: 'kind = "noop"' });
  const a = await pgTestEngine(t, { url });
  const b = await pgTestEngine(t, { url });
  const api = await buildApi(a.engine, { token: TEST_TOKEN, port: 0 });
  cleanups(t)(() => api.app.close());
  const { wsUrl } = await listen(api);
  const ws = await TestSocket.open(t, wsUrl);
  ws.send({ type: 'subscribe' });
  await waitFor(() => a.engine.nodes().wakeUps === 'notify' && b.engine.nodes().wakeUps === 'notify', 'both nodes listen');
  const from = a.engine.lastGseq();
  const horde = (await a.engine.resolveHorde(folder)).horde;
  // Both nodes start runs together, so their commits interleave: A commits right after B's commits it has not yet read.
  const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).engine.startRun(horde, {})));
  for (const id of ids) assert.equal(await (ids.indexOf(id) % 2 === 0 ? a : b).engine.waitForRun(id), 'succeeded');
  const last = a.engine.lastGseq();
  await waitFor(() => ws.frames.some((f) => f.type === 'event' && f.gseq === last), 'the client got the last event', 30_000);
  const got = ws.frames.filter((f) => f.type === 'event' && f.gseq > from).map((f) => f.gseq as number);
  const all = Array.from({ length: last - from }, (_, i) => from + 1 + i);
  assert.deepEqual(got, all, 'every event of both nodes, once each, in order');
});
