/** The engine on the Postgres store: a real cluster, real worker threads and commands. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import { DEFAULT_CONFIG, createEngine, openHistory } from '../../engine/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { TEST_KINDS } from '../../testkit/kinds/index.js';
import { freshPostgresUrl } from '../../testkit/pg-store.js';
import { simulatedTime } from '../support/sim-time.js';
import { waitFor } from '../../testkit/wait.js';
import { tempDir } from '../../testkit/tmp.js';
import { writeHorde } from '../support/engine.js';
import { pgTestEngine } from '../support/pg-engine.js';
import { testOwnCode } from '../../testkit/dist.js';

describe('engine on Postgres', () => {
  test('runs finish, their events and projections are in Postgres, and a fold of the log gives the row', async (t) => {
    const dir = tempDir(t);
    const { engine } = await pgTestEngine(t);
    writeHorde(path.join(dir, 'h'), 'id = "pg"\npipeline = ["a", "b", "c"]\nconfirm_commands = false', {
      a: 'kind = "noop"', b: 'kind = "verify"\nverify_command = "true"', c: 'kind = "noop"',
    });
    const { horde } = await engine.resolveHorde(path.join(dir, 'h'));
    const ids = await Promise.all(Array.from({ length: 10 }, () => engine.startRun(horde, {})));
    assert.deepEqual(await Promise.all(ids.map((id) => engine.waitForRun(id))), ids.map(() => 'succeeded'));
    const view = engine.getRun(ids[0]!);
    assert.deepEqual(view.steps.map((s) => `${s.name}:${s.state}`), ['a:passed', 'b:passed', 'c:passed']);
    const events = engine.events(ids[0]!);
    assert.equal(events[0]!.event.type, 'run.created');
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1));
    const all = engine.eventsSince(0, 10_000);
    assert.deepEqual(all.map((e) => e.gseq), all.map((_, i) => i + 1), 'global sequence numbers have no gap');
    assert.equal(engine.listRuns({ status: 'succeeded' }).length, 10);
  });

  test('with no server, the runs of a folder configured for Postgres are read from Postgres, not from its SQLite file', async (t) => {
    const dir = tempDir(t);
    const home = path.join(dir, 'home');
    const { engine, url } = await pgTestEngine(t, { dataDir: home });
    writeHorde(path.join(dir, 'h'), 'id = "hist"\npipeline = ["a"]', { a: 'kind = "noop"' });
    const id = await engine.startRun((await engine.resolveHorde(path.join(dir, 'h'))).horde, {});
    assert.equal(await engine.waitForRun(id), 'succeeded');
    await engine.close();
    fs.writeFileSync(path.join(home, 'config.toml'), `[store]\nurl = "${url}"\n`);
    const history = openHistory(home);
    assert.ok(history !== undefined);
    try {
      assert.deepEqual(history.listRuns().map((r) => r.id), [id]);
      assert.equal(history.getRun(id).run.state, 'succeeded');
    } finally {
      history.close();
    }
  });

  test('an engine on a simulated clock that stands still keeps renewing its leases: they expire by the database\'s clock', async (t) => {
    const dir = tempDir(t);
    const url = await freshPostgresUrl();
    const gate = path.join(dir, 'gate');
    const time = simulatedTime(Date.parse('2026-06-01T00:00:00Z'));
    const engine = await createEngine({ ownCode: testOwnCode(),
      dataDir: path.join(dir, 'home'), clock: time.clock, timers: time.timers, extraStepKinds: TEST_KINDS,
      config: { ...DEFAULT_CONFIG, store: { ...DEFAULT_CONFIG.store, url, leaseSecs: 0.5 } },
    });
    cleanups(t)(() => engine.close());
    writeHorde(path.join(dir, 'h'), 'id = "held"\npipeline = ["wait"]\nconfirm_commands = false', {
      wait: `kind = "verify"\nverify_command = "while [ ! -f ${gate} ]; do sleep 0.05; done"`,
    });
    const id = await engine.startRun((await engine.resolveHorde(path.join(dir, 'h'))).horde, {});
    await waitFor(() => engine.getRun(id).attempts.length === 1, 'the step started');
    // Four leases long in real time, not a simulated millisecond.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ held: boolean; live: boolean; fresh: boolean }>(
        `SELECT l.node_id IS NOT NULL AS held, l.expires_at > kw_now() AS live, kw_now() - n.heartbeat_at < 500 AS fresh
         FROM run_leases l JOIN nodes n ON n.id = l.last_node WHERE l.run_id = $1`, [id]);
      assert.deepEqual(rows, [{ held: true, live: true, fresh: true }], 'the node\'s heartbeat and its lease on the running run were renewed');
    } finally {
      await client.end();
    }
    fs.writeFileSync(gate, '');
    assert.equal(await engine.waitForRun(id), 'succeeded');
    assert.deepEqual(engine.getRun(id).attempts.map((a) => `${a.attempt}:${a.state}`), ['1:passed'], 'the run was never taken from its own node');
  });
});
