/**
 * Several nodes on one Postgres store: a parked run approved through another node, an
 * action on a run another node executes, a dead node's runs adopted, a stopped node
 * fenced, one run per webhook delivery however many nodes receive it.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import type { Engine } from '../../engine/index.js';
import { openSyncPg } from '../../engine/store/pg/sync-pg.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testSyncPgModule } from '../../testkit/dist.js';
import { childNode as childNodeOf } from '../support/child-node.js';
import type { ChildNode } from '../support/child-node.js';
import { writeHorde } from '../support/engine.js';
import { freshPostgresUrl, pgTestEngine } from '../support/pg-engine.js';
import { tempDir } from '../../testkit/tmp.js';
import { waitFor } from '../../testkit/wait.js';

const selfId = (engine: Engine): string => engine.nodes().nodes.find((n) => n.self)!.id;

/** A node in a child process (testkit/pg-node.ts), and the facts it printed. */
function childNode(t: TestContext, args: { url: string; home: string; files: string; leaseSecs: number; horde: string }): ChildNode {
  return childNodeOf(t, 'testkit/pg-node.ts', [args.url, args.home, args.files, String(args.leaseSecs), args.horde]);
}

/** A horde `park` in `dir`: a noop step, then a verify step that asks first and, once approved, appends `echo`'s words to `log`. */
function parkingHorde(dir: string, echo: string): { log: string; folder: string } {
  const log = path.join(dir, 'log');
  const folder = writeHorde(path.join(dir, 'h'), 'id = "park"\npipeline = ["a", "check"]', { a: 'kind = "noop"', check: `kind = "verify"\nverify_command = "echo ${echo} >> ${log}"` });
  return { log, folder };
}

describe('nodes sharing a Postgres store', () => {
  test('a parked run stays parked when its node stops, and is approved and finished through another node', async (t) => {
    const dir = tempDir(t);
    const url = await freshPostgresUrl();
    const files = path.join(dir, 'shared');
    const { log, folder } = parkingHorde(dir, '$PWD');
    const a = await pgTestEngine(t, { url, store: { files } });
    const id = await a.engine.startRun((await a.engine.resolveHorde(folder)).horde, {});
    assert.equal(await a.engine.waitForRun(id), 'awaiting_input');
    const nodeA = selfId(a.engine);
    await a.engine.close();
    const b = await pgTestEngine(t, { url, store: { files } });
    assert.equal((await b.engine.recover()).parked, 1);
    assert.equal(b.engine.getRun(id).run.state, 'awaiting_input', 'still parked on the other node');
    await b.engine.approve(id);
    assert.equal(await b.engine.waitForRun(id), 'succeeded');
    assert.equal(fs.readFileSync(log, 'utf8').trim(), path.join(files, 'runs', id, 'output'), 'the step ran once, in the shared run folder');
    const view = b.engine.nodes();
    assert.equal(view.store, 'postgres');
    assert.deepEqual(view.handovers.map((h) => [h.runId, h.fromNode, h.toNode, h.reason]), [[id, nodeA, selfId(b.engine), 'released']]);
    assert.equal(view.nodes.find((n) => n.id === nodeA)?.alive, false, 'the stopped node is shown stopped');
  });

  test('a node that parked a run acts on what the log says after another node approved and finished it', async (t) => {
    const dir = tempDir(t);
    const url = await freshPostgresUrl();
    const files = path.join(dir, 'shared');
    const { log, folder } = parkingHorde(dir, 'ran');
    const a = await pgTestEngine(t, { url, store: { files } });
    const b = await pgTestEngine(t, { url, store: { files } });
    const { horde } = await a.engine.resolveHorde(folder);
    const id = await a.engine.startRun(horde, {});
    assert.equal(await a.engine.waitForRun(id), 'awaiting_input');
    await b.engine.approve(id);
    assert.equal(await b.engine.waitForRun(id), 'succeeded');
    // Node a still holds the run as it parked there; the log has moved on since.
    await assert.rejects(a.engine.approve(id), { code: 'KW_ERR_RUN_FINISHED' });
    const again = await a.engine.startRun(horde, {});
    assert.equal(await a.engine.waitForRun(again), 'awaiting_input', 'node a goes on working');
    await a.engine.approve(again);
    assert.equal(await a.engine.waitForRun(again), 'succeeded');
    assert.equal(fs.readFileSync(log, 'utf8'), 'ran\nran\n', 'each run\'s command ran once');
  });

  test('an action on a run another live node executes is carried out by that node, woken at once, its answer or its error passed back', async (t) => {
    const dir = tempDir(t);
    const url = await freshPostgresUrl();
    const gate = path.join(dir, 'gate');
    const log = path.join(dir, 'log');
    // `wait` and `check` run in parallel: while A executes `wait`, `check` waits for approval.
    const folder = writeHorde(path.join(dir, 'h'), 'id = "fwd"\npipeline = ["start", "wait", "check"]\n[[edges]]\nfrom = "start"\nto = "wait"\n[[edges]]\nfrom = "start"\nto = "check"', {
      start: 'kind = "noop"',
      wait: `kind = "verify"\nverify_command = "while [ ! -f ${gate} ]; do sleep 0.05; done"`,
      check: `kind = "verify"\nverify_command = "echo checked >> ${log}"`,
    });
    // Polls slowed to a minute and beats to 10 s: only the notifications can wake either node in time.
    const slow = { pollMs: { slow: 60_000 } };
    const a = await pgTestEngine(t, { url, store: { leaseSecs: 30 }, cluster: slow });
    const b = await pgTestEngine(t, { url, store: { leaseSecs: 30 }, cluster: slow });
    await waitFor(() => a.engine.nodes().wakeUps === 'notify' && b.engine.nodes().wakeUps === 'notify', 'both nodes listen');
    const id = await a.engine.startRun((await a.engine.resolveHorde(folder)).horde, {});
    assert.equal(await a.engine.waitForRun(id), 'awaiting_input');
    await a.engine.approve(id, { step: 'wait' });
    await waitFor(() => a.engine.getRun(id).attempts.some((x) => x.step === 'wait'), 'A runs `wait`');

    const t0 = performance.now();
    assert.deepEqual(await b.engine.approve(id, { step: 'check', by: 'ann' }), { step: 'check' });
    const took = performance.now() - t0;
    assert.ok(took < 2_500, `answered in ${Math.round(took)} ms, not at a poll`);
    await waitFor(() => fs.existsSync(log), 'the approved step ran');
    const granted = a.engine.events(id).find((e) => e.event.type === 'approval.granted' && e.event.step === 'check');
    assert.equal(granted?.event.type === 'approval.granted' ? granted.event.by : undefined, 'ann', 'recorded as the operator who approved through B');

    await assert.rejects(b.engine.deny(id, { step: 'wait', reason: 'no' }), (err: { code?: string; message?: string }) =>
      err.code === 'KW_ERR_NO_PENDING_APPROVAL' && err.message!.includes('"wait"'), 'the holder\'s refusal comes back with its code');
    await b.engine.cancel(id, { reason: 'enough' });
    assert.equal(await a.engine.waitForRun(id), 'cancelled');
    assert.equal(fs.existsSync(gate), false);
    const reader = openSyncPg(url, { module: testSyncPgModule() });
    t.after(() => reader.close());
    assert.equal(reader.get<{ n: number }>('SELECT count(*)::int AS n FROM node_requests')!.n, 0, 'every request was cleared once answered');
  });

  test('a holder that does not take a forwarded action in time: the action is refused naming it, withdrawn, and never performed', async (t) => {
    const dir = tempDir(t);
    const url = await freshPostgresUrl();
    const gate = path.join(dir, 'gate');
    const folder = writeHorde(path.join(dir, 'h'), 'id = "mute"\npipeline = ["wait"]\nconfirm_commands = false', {
      wait: `kind = "verify"\nverify_command = "while [ ! -f ${gate} ]; do sleep 0.05; done"`,
    });
    const a = childNode(t, { url, home: path.join(dir, 'a'), files: path.join(dir, 'shared'), leaseSecs: 60, horde: folder });
    const nodeA = await a.fact('node') as string;
    const id = await a.fact('run') as string;
    const b = await pgTestEngine(t, { url, store: { files: path.join(dir, 'shared'), leaseSecs: 60 }, cluster: { forwardWaitMs: 1_500 } });
    await waitFor(() => b.engine.getRun(id).attempts.some((x) => x.step === 'wait'), 'the step started on A');
    a.child.kill('SIGSTOP');
    await assert.rejects(b.engine.cancel(id), (err: { code?: string; message?: string }) =>
      err.code === 'KW_ERR_RUN_ELSEWHERE' && err.message!.includes(nodeA) && err.message!.includes('nothing was done'));
    const reader = openSyncPg(url, { module: testSyncPgModule() });
    t.after(() => reader.close());
    assert.equal(reader.get<{ n: number }>('SELECT count(*)::int AS n FROM node_requests')!.n, 0, 'the request was withdrawn');
    a.child.kill('SIGCONT');
    fs.writeFileSync(gate, '');
    assert.equal(await waitForState(b.engine, id, 'succeeded'), 'succeeded', 'the cancel was not performed when A woke');
  });

  test('a node killed mid-step: once its lease expires another node adopts the run and the step runs again there', async (t) => {
    const dir = tempDir(t);
    const url = await freshPostgresUrl();
    const files = path.join(dir, 'shared');
    const ledger = path.join(dir, 'ledger');
    const gate = path.join(dir, 'gate');
    const folder = writeHorde(path.join(dir, 'h'), 'id = "adopt"\npipeline = ["a", "wait", "b"]\nconfirm_commands = false', {
      a: `kind = "verify"\nverify_command = "echo a >> ${ledger}"`,
      wait: `kind = "verify"\nverify_command = "echo wait-start >> ${ledger}; while [ ! -f ${gate} ]; do sleep 0.05; done; echo wait-done >> ${ledger}"`,
      b: `kind = "verify"\nverify_command = "echo b >> ${ledger}"`,
    });
    const a = childNode(t, { url, home: path.join(dir, 'a'), files, leaseSecs: 1, horde: folder });
    const nodeA = await a.fact('node') as string;
    const id = await a.fact('run') as string;
    await waitFor(() => fs.existsSync(ledger) && fs.readFileSync(ledger, 'utf8').includes('wait-start'), 'the step started on A');
    a.child.kill('SIGKILL');
    const b = await pgTestEngine(t, { url, store: { files, leaseSecs: 1 } });
    fs.writeFileSync(gate, '');
    assert.equal(await waitForState(b.engine, id, 'succeeded'), 'succeeded');
    const attempts = b.engine.getRun(id).attempts.map((x) => `${x.step}:${x.attempt}:${x.state}`);
    assert.deepEqual(attempts, ['a:1:passed', 'wait:1:interrupted', 'wait:2:passed', 'b:1:passed']);
    assert.deepEqual(fs.readFileSync(ledger, 'utf8').trim().split('\n').filter((l) => l !== 'wait-start' && l !== 'wait-done'), ['a', 'b'], 'a passed step never ran again');
    assert.deepEqual(b.engine.nodes().handovers.map((h) => [h.fromNode, h.reason]), [[nodeA, 'expired']]);
  });

  test('a node restarted on the data folder of a node that was killed takes its runs back at once, not when their leases lapse; a node of another folder waits', async (t) => {
    const dir = tempDir(t);
    const url = await freshPostgresUrl();
    const files = path.join(dir, 'shared');
    const home = path.join(dir, 'a');
    const folder = writeHorde(path.join(dir, 'h'), 'id = "again"\npipeline = ["wait"]\nconfirm_commands = false', {
      wait: `kind = "verify"\nverify_command = "while [ ! -f ${path.join(dir, 'gate')} ]; do sleep 0.05; done"`,
    });
    // Leases of a minute: only the folder's own restart can take the run back within this test.
    const a = childNode(t, { url, home, files, leaseSecs: 60, horde: folder });
    const nodeA = await a.fact('node') as string;
    const id = await a.fact('run') as string;
    const other = await pgTestEngine(t, { url, store: { files, leaseSecs: 60 } });
    await waitFor(() => other.engine.getRun(id).attempts.some((x) => x.step === 'wait'), 'the step started on A');
    a.child.kill('SIGKILL');
    await once(a.child, 'exit');
    assert.deepEqual((await other.engine.recover()).resumed, [], 'another folder\'s node leaves the run to its lease');
    await other.engine.close(); // it would adopt the run at its next beat once the lease is gone
    const again = await pgTestEngine(t, { url, dataDir: home, store: { files, leaseSecs: 60 } });
    assert.deepEqual((await again.engine.recover()).resumed, [id], 'the restart took the run back at once');
    fs.writeFileSync(path.join(dir, 'gate'), '');
    assert.equal(await again.engine.waitForRun(id), 'succeeded');
    assert.deepEqual(again.engine.getRun(id).attempts.map((x) => `${x.step}:${x.attempt}:${x.state}`), ['wait:1:interrupted', 'wait:2:passed']);
    assert.deepEqual(again.engine.nodes().handovers.map((h) => [h.fromNode, h.toNode, h.reason]), [[nodeA, selfId(again.engine), 'expired']]);
  });

  test('a node stopped (SIGSTOP) past its lease: another node takes its run; woken, its next commit is refused by the fence and it stops', async (t) => {
    const dir = tempDir(t);
    const url = await freshPostgresUrl();
    const files = path.join(dir, 'shared');
    const gate = path.join(dir, 'gate');
    const folder = writeHorde(path.join(dir, 'h'), 'id = "fence"\npipeline = ["wait", "after"]\nconfirm_commands = false', {
      wait: `kind = "verify"\nverify_command = "while [ ! -f ${gate} ]; do sleep 0.05; done"`,
      after: 'kind = "noop"',
    });
    const a = childNode(t, { url, home: path.join(dir, 'a'), files, leaseSecs: 1, horde: folder });
    const id = await a.fact('run') as string;
    const b = await pgTestEngine(t, { url, store: { files, leaseSecs: 1 } });
    await waitFor(() => b.engine.getRun(id).attempts.some((x) => x.step === 'wait'), 'the step started on A');
    a.child.kill('SIGSTOP');
    // B adopts the run once A's lease has expired: the step's first attempt is interrupted, the second one runs on B.
    await waitFor(() => b.engine.getRun(id).attempts.some((x) => x.step === 'wait' && x.attempt === 2), 'B took the run over', 30_000);
    const before = b.engine.events(id).length;
    a.child.kill('SIGCONT');
    fs.writeFileSync(gate, '');
    // Stopped inside a transaction (likelier on a busy machine), its session was ended by the server
    // (idle_in_transaction_session_timeout, backend.ts) and rolled back: it stops as unavailable instead.
    const [stopped, why] = [await a.fact('stopped'), String(await a.fact('why'))];
    if (stopped !== 'KW_ERR_STORE_FENCED') {
      assert.equal(stopped, 'KW_ERR_STORE_UNAVAILABLE', why);
      assert.match(why, /idle-in-transaction|terminat/, 'only a session the server ended');
    }
    assert.equal(await waitForState(b.engine, id, 'succeeded'), 'succeeded');
    const events = b.engine.events(id);
    assert.ok(events.length > before);
    const finished = events.flatMap((e) => (e.event.type === 'step.finished' ? [`${e.event.step}:${e.event.attempt}:${e.event.outcome}`] : []));
    assert.deepEqual(finished, ['wait:2:pass', 'after:1:pass'], 'nothing of A\'s attempt reached the log after B took the run');
  });

  test('a node stopped by the fence stops renewing the leases it still holds: its other runs pass to another node and finish there', async (t) => {
    const dir = tempDir(t);
    const url = await freshPostgresUrl();
    const files = path.join(dir, 'shared');
    const gates = path.join(dir, 'gates'); // a run's step waits for the file named by its run id
    fs.mkdirSync(gates);
    const folder = writeHorde(path.join(dir, 'h'), 'id = "two"\npipeline = ["wait"]\nconfirm_commands = false', {
      wait: `kind = "verify"\nverify_command = "while [ ! -f ${gates}/$KOWALSKI_RUN_ID ]; do sleep 0.05; done"`,
    });
    const a = await pgTestEngine(t, { url, store: { files, leaseSecs: 1 } });
    const { horde } = await a.engine.resolveHorde(folder);
    const taken = await a.engine.startRun(horde, {});
    const kept = await a.engine.startRun(horde, {});
    await waitFor(() => [taken, kept].every((id) => a.engine.getRun(id).attempts.length === 1), 'both steps started on A');
    const stopped = new Promise<string>((resolve) => a.engine.on('engine:stopped', ({ error }) => resolve(error.code)));
    // One lease taken from A as if it had lapsed: B adopts that run; A's commit of its step is then refused by the fence.
    const db = openSyncPg(url, { module: testSyncPgModule() });
    cleanups(t)(() => db.close());
    db.run('UPDATE run_leases SET node_id = NULL, expires_at = 0 WHERE run_id = $1', [taken]);
    const b = await pgTestEngine(t, { url, store: { files, leaseSecs: 1 } });
    await waitFor(() => b.engine.getRun(taken).attempts.length === 2, 'B adopted the run taken from A');
    fs.writeFileSync(path.join(gates, taken), '');
    assert.equal(await stopped, 'KW_ERR_STORE_FENCED');
    fs.writeFileSync(path.join(gates, kept), '');
    assert.equal(await waitForState(b.engine, taken, 'succeeded'), 'succeeded');
    assert.equal(await waitForState(b.engine, kept, 'succeeded'), 'succeeded', 'the run A still held passed to B once A stopped renewing its lease');
    assert.deepEqual(b.engine.nodes().handovers.filter((h) => h.runId === kept).map((h) => [h.fromNode, h.toNode, h.reason]), [[selfId(a.engine), selfId(b.engine), 'expired']]);
  });

  test('one webhook delivery sent to two nodes at once starts one run', async (t) => {
    const dir = tempDir(t);
    const url = await freshPostgresUrl();
    const folder = writeHorde(path.join(dir, 'h'), 'id = "hook"\npipeline = ["a"]\nconfirm_commands = false\n[[triggers]]\nname = "in"\nkind = "webhook"\nenabled = true', { a: 'kind = "noop"' });
    const a = await pgTestEngine(t, { url });
    const b = await pgTestEngine(t, { url });
    for (const e of [a.engine, b.engine]) fs.cpSync(folder, path.join(e.paths.hordes, 'hook'), { recursive: true });
    await Promise.all([a.engine.triggers.refresh(), b.engine.triggers.refresh()]);
    const deliver = async (e: Engine) => e.triggers.webhook(await e.triggers.webhookTarget('hook', 'in'), { id: 'delivery-1', payload: '{}', contentType: 'application/json' });
    const results = await Promise.all([deliver(a.engine), deliver(b.engine), deliver(a.engine), deliver(b.engine)]);
    const runIds = new Set(results.map((r) => ('runId' in r ? r.runId : undefined)));
    assert.equal(runIds.size, 1, `every answer names one run: ${JSON.stringify(results)}`);
    assert.ok(results.some((r) => r.outcome === 'duplicate'), 'the node that came second was told it was a duplicate');
    assert.equal(a.engine.listRuns({}).length, 1, 'one run in the shared store');
  });
  test('a cron instant reached by every node\'s timer starts one run', async (t) => {
    const dir = tempDir(t);
    const url = await freshPostgresUrl();
    const folder = writeHorde(path.join(dir, 'h'), 'id = "tick"\npipeline = ["a"]\nconfirm_commands = false\n[[triggers]]\nname = "every"\nkind = "cron"\nschedule = "* * * * * *"\ntimezone = "UTC"\noverlap = "parallel"\nenabled = true', { a: 'kind = "noop"' });
    const nodes = [await pgTestEngine(t, { url }), await pgTestEngine(t, { url }), await pgTestEngine(t, { url })];
    for (const { engine } of nodes) fs.cpSync(folder, path.join(engine.paths.hordes, 'tick'), { recursive: true });
    await Promise.all(nodes.map(({ engine }) => engine.triggers.start()));
    await waitFor(() => nodes[0]!.engine.listRuns({}).length >= 4, 'four instants fired', 30_000);
    await Promise.all(nodes.map(({ engine }) => engine.triggers.close()));
    const runs = nodes[0]!.engine.listRuns({ limit: 1000 }).map((r) => r.id).sort();
    // Each started firing names its run; an instant fired twice would leave a run no firing names.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const firings = (await client.query<{ key: string; run_id: string }>("SELECT key, run_id FROM trigger_firings WHERE outcome = 'started'")).rows;
    await client.end();
    assert.deepEqual(firings.map((f) => f.run_id).sort(), runs, 'one run per instant, and one instant per run');
    assert.equal(new Set(firings.map((f) => f.key)).size, firings.length);
  });
});

/** The run's state once it is `want` (read from the store, which another node may be writing). */
async function waitForState(engine: Engine, id: string, want: string): Promise<string> {
  await waitFor(() => engine.getRun(id).run.state === want, `run ${id} ${want}`, 30_000);
  return engine.getRun(id).run.state;
}