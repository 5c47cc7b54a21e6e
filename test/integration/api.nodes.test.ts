/**
 * `GET /api/nodes` through real engines and APIs (inject()): with SQLite, this process alone;
 * with Postgres, two nodes on one database — each marked `self` on its own answer, the runs
 * and steps each holds, a parked run approved through the other node (a hand-over, released),
 * and a node that closed shown stopped.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { buildApi } from '../../api/index.js';
import type { Engine, NodesView } from '../../engine/index.js';
import { testApi } from '../support/api.js';
import { cleanups } from '../../testkit/cleanup.js';
import { writeHorde } from '../support/engine.js';
import { pgTestEngine } from '../support/pg-engine.js';
import { tempDir } from '../../testkit/tmp.js';
import { waitFor } from '../../testkit/wait.js';
import { AUTH, TEST_TOKEN } from '../support/token.js';

/** GET /api/nodes on `engine`'s own API. */
async function nodesOf(t: TestContext, engine: Engine): Promise<() => Promise<NodesView>> {
  const api = await buildApi(engine, { token: TEST_TOKEN, port: 8765 });
  cleanups(t)(() => api.app.close());
  return async () => {
    const res = await api.app.inject({ method: 'GET', url: '/api/nodes', headers: { host: '127.0.0.1:8765', ...AUTH } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as NodesView;
  };
}

describe('GET /api/nodes', () => {
  test('with SQLite: one node, this process, alive and marked self', async (t) => {
    const api = await testApi(t);
    const res = await api.call('GET', '/api/nodes');
    assert.equal(res.status, 200);
    assert.equal(res.json.store, 'sqlite');
    assert.deepEqual(res.json.handovers, []);
    assert.equal(res.json.nodes.length, 1);
    const [node] = res.json.nodes;
    assert.deepEqual([node.id, node.self, node.alive, node.stoppedAt, node.pid, node.runsHeld, node.stepsRunning, node.chatTurnsHeld], ['local', true, true, null, process.pid, 0, 0, 0]);
  });

  test('two nodes on one Postgres database: each marks itself; runs and steps held; a parked run approved through the other is handed over; a closed node is stopped', async (t) => {
    const shared = tempDir(t, 'kw-nodes-files-');
    // A lease long enough that a loaded machine's stalls never make a live node look dead; the hand-over here is by release, not expiry.
    const store = { files: shared, leaseSecs: 5 };
    const a = await pgTestEngine(t, { store });
    const b = await pgTestEngine(t, { url: a.url, store });
    const fromA = await nodesOf(t, a.engine);
    const fromB = await nodesOf(t, b.engine);

    const first = await fromA();
    assert.equal(first.store, 'postgres');
    assert.equal(first.nodes.length, 2);
    const selfA = first.nodes.find((n) => n.self)!;
    const selfB = (await fromB()).nodes.find((n) => n.self)!;
    assert.notEqual(selfA.id, selfB.id, 'each answer marks its own node');
    assert.deepEqual(first.nodes.find((n) => !n.self)!.id, selfB.id);
    for (const n of first.nodes) {
      assert.equal(n.alive, true);
      assert.equal(n.stoppedAt, null);
      assert.equal(n.pid, process.pid);
      assert.ok(n.heartbeatAgeMs >= 0 && n.heartbeatAgeMs < 5000, `heartbeat ${n.heartbeatAgeMs} ms ago`);
    }

    // A run on A: a step held on a file, then a command that needs approval.
    const dir = tempDir(t);
    const gate = path.join(dir, 'open');
    writeHorde(path.join(dir, 'h'), 'id = "handed"\npipeline = ["hold", "check", "last"]', {
      hold: 'kind = "gate"\n[[inputs]]\nid = "gate"\ntype = "text"', check: 'kind = "verify"\nverify_command = "true"', last: 'kind = "noop"',
    });
    const runId = await a.engine.startRun((await a.engine.resolveHorde(path.join(dir, 'h'))).horde, { gate });
    const rowOf = (view: NodesView, id: string) => view.nodes.find((n) => n.id === id)!;
    await waitFor(async () => rowOf(await fromA(), selfA.id).stepsRunning === 1, 'A running the held step');
    const holding = rowOf(await fromA(), selfA.id);
    assert.equal(holding.runsHeld, 1);
    // B sees A's lease at once, and its step count as of A's next heartbeat (a third of the lease).
    await waitFor(async () => rowOf(await fromB(), selfA.id).stepsRunning === 1, "A's heartbeat with one step, seen from B");
    assert.equal(rowOf(await fromB(), selfA.id).runsHeld, 1);
    assert.equal(rowOf(await fromB(), selfB.id).runsHeld, 0);

    fs.writeFileSync(gate, '');
    assert.equal(await a.engine.waitForRun(runId), 'awaiting_input');
    await waitFor(async () => rowOf(await fromB(), selfA.id).runsHeld === 0, 'the parked run released by A');
    assert.deepEqual((await fromB()).handovers, []);

    // The approval goes through B: B takes the run over from A.
    const apiB = await buildApi(b.engine, { token: TEST_TOKEN, port: 8765 });
    cleanups(t)(() => apiB.app.close());
    const approved = await apiB.app.inject({ method: 'POST', url: `/api/runs/${runId}/approve`, headers: { host: '127.0.0.1:8765', ...AUTH, 'content-type': 'application/json' }, payload: '{"step":"check"}' });
    assert.equal(approved.statusCode, 200, approved.body);
    assert.equal(await b.engine.waitForRun(runId), 'succeeded');
    const after = await fromA();
    assert.equal(after.handovers.length, 1);
    const [handover] = after.handovers;
    assert.deepEqual({ ...handover, at: undefined }, { runId, fromNode: selfA.id, toNode: selfB.id, epoch: 2, reason: 'released', at: undefined });
    assert.ok(Math.abs(handover!.at - Date.now()) < 60_000, 'at: ms since the epoch, by the database clock');

    // A closes cleanly: B shows it stopped and not alive.
    await a.engine.close();
    const last = await fromB();
    const stopped = rowOf(last, selfA.id);
    assert.equal(stopped.alive, false);
    assert.equal(typeof stopped.stoppedAt, 'number');
    assert.equal(stopped.runsHeld, 0);
    assert.equal(rowOf(last, selfB.id).alive, true);
    assert.deepEqual(last.handovers, after.handovers);
  });

  test('a node that stops cleanly in the middle of a step: its run is released, another node takes it over, and it shows stopped with no step running', async (t) => {
    const shared = tempDir(t, 'kw-nodes-files-');
    const store = { files: shared, leaseSecs: 1.5 };
    const a = await pgTestEngine(t, { store });
    const fromA = await nodesOf(t, a.engine);
    const idA = (await fromA()).nodes.find((n) => n.self)!.id;
    const dir = tempDir(t);
    const gate = path.join(dir, 'open');
    writeHorde(path.join(dir, 'h'), 'id = "held"\npipeline = ["hold"]', { hold: 'kind = "gate"\n[[inputs]]\nid = "gate"\ntype = "text"' });
    const runId = await a.engine.startRun((await a.engine.resolveHorde(path.join(dir, 'h'))).horde, { gate });
    const b = await pgTestEngine(t, { url: a.url, store });
    const fromB = await nodesOf(t, b.engine);
    // A's heartbeat says one step; then A stops with it still running.
    await waitFor(async () => (await fromB()).nodes.find((n) => n.id === idA)!.stepsRunning === 1, "A's heartbeat with its step");
    await a.engine.close();
    await waitFor(async () => (await fromB()).handovers.length === 1, 'B adopting the released run');
    const view = await fromB();
    const idB = view.nodes.find((n) => n.self)!.id;
    assert.deepEqual(view.handovers.map((h) => [h.runId, h.fromNode, h.toNode, h.epoch, h.reason]), [[runId, idA, idB, 2, 'released']]);
    const stopped = view.nodes.find((n) => n.id === idA)!;
    assert.deepEqual([stopped.alive, stopped.stepsRunning, stopped.runsHeld], [false, 0, 0]);
    fs.writeFileSync(gate, '');
    assert.equal(await b.engine.waitForRun(runId), 'succeeded');
  });
});
