/** The websocket of one node follows runs another node of the same Postgres store executes. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { buildApi } from '../../api/index.js';
import { listen, TestSocket } from '../support/api.js';
import { cleanups } from '../support/cleanup.js';
import { writeHorde } from '../support/engine.js';
import { freshPostgresUrl, pgTestEngine } from '../support/pg-engine.js';
import { tempDir } from '../support/tmp.js';

test('a client of node B subscribed to a run node A executes gets every event of it, in order, as A commits them', { timeout: 60_000 }, async (t) => {
  const dir = tempDir(t);
  const url = await freshPostgresUrl();
  const gate = path.join(dir, 'gate');
  const folder = writeHorde(path.join(dir, 'h'), 'id = "far"\npipeline = ["a", "wait", "b"]\nconfirm_commands = false', {
    a: 'kind = "noop"', wait: `kind = "verify"\nverify_command = "while [ ! -f ${gate} ]; do sleep 0.05; done"`, b: 'kind = "noop"',
  });
  const a = await pgTestEngine(t, { url });
  const b = await pgTestEngine(t, { url });
  const api = await buildApi(b.engine, { port: 0 });
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
