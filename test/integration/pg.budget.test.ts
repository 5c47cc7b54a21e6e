/**
 * A run's budget on a store shared by two nodes (issue 40, item 3): the traces of model
 * calls are in the shared store (Postgres migration 7), so a run's spend counts the calls of
 * both nodes, and each node lists them all. Two engines on one Postgres, each with its own
 * data folder, a fake Ollama for both.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { createEngine, openHistory } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import { openSyncPg } from '../../engine/store/pg/sync-pg.js';
import { chatSetup, perAgent, profile } from '../../testkit/chat.js';
import { cleanups } from '../../testkit/cleanup.js';
import { nodeArgsFor, testOwnCode } from '../../testkit/dist.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer } from '../../testkit/fake-models.js';
import { freshPostgresUrl } from '../../testkit/pg-store.js';
import { tempDir } from '../../testkit/tmp.js';
import { waitFor } from '../../testkit/wait.js';
import { ANSWER, writeModelConfig } from '../support/budget.js';
import { writeHorde } from '../support/engine.js';
import { pgTestEngine } from '../support/pg-engine.js';

/** A node: its own data folder, its config.toml naming the shared store and the fake Ollama. */
async function node(t: TestContext, home: string, store: { url: string; files: string }, ollama: string): Promise<Engine> {
  writeModelConfig(home, ollama, `[store]\nurl = "${store.url}"\nfiles = "${store.files}"\nlease_secs = 2\n`);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  cleanups(t)(() => engine.close());
  return engine;
}

const startedSteps = (engine: Engine, runId: string): string[] =>
  engine.events(runId).flatMap(({ event }) => (event.type === 'step.started' ? [event.step] : []));

/** The horde `spend` in `dir`: one model call (a), a step held until the gate opens, two more model calls (b, c); at most 2 model calls. */
function spendHorde(dir: string, gate: string): string {
  const model = 'kind = "process"\nprompt_file = "prompts/p.md"';
  const folder = writeHorde(path.join(dir, 'h'), 'id = "spend"\npipeline = ["a", "wait", "b", "c"]\nconfirm_commands = false\n[budget]\nmodel_calls = 2', {
    a: model, b: model, c: model,
    wait: `kind = "verify"\nverify_command = "while [ ! -f ${gate} ]; do sleep 0.05; done"`,
  });
  fs.mkdirSync(path.join(folder, 'prompts'));
  fs.writeFileSync(path.join(folder, 'prompts', 'p.md'), 'Say done.');
  return folder;
}

/** The run's state once it parks or finishes on `engine` (read from the store, which another node may be writing). */
async function settled(engine: Engine, runId: string): Promise<string> {
  await waitFor(() => ['awaiting_input', 'succeeded', 'failed'].includes(engine.getRun(runId).run.state), 'the run parked or finished', 30_000);
  return engine.getRun(runId).run.state;
}

/** A temp folder, the fake model, a fresh database with a shared files folder, and the spending horde whose step c waits for `gate`. */
async function spendScene(t: TestContext): Promise<{ dir: string; server: FakeModelServer; store: { url: string; files: string }; gate: string; folder: string }> {
  const dir = tempDir(t);
  const server = await startFakeOllama(() => ANSWER);
  cleanups(t)(() => server.close());
  const store = { url: await freshPostgresUrl(), files: path.join(dir, 'shared') };
  const gate = path.join(dir, 'gate');
  return { dir, server, store, gate, folder: spendHorde(dir, gate) };
}

test('a run handed from node A to node B counts the model calls made on A: it parks on B at the limit', async (t) => {
  const { dir, server, store, gate, folder } = await spendScene(t);

  const a = await node(t, path.join(dir, 'a'), store, server.url);
  const b = await node(t, path.join(dir, 'b'), store, server.url);
  const runId = await a.startRun((await a.resolveHorde(folder)).horde, {});
  await waitFor(() => a.getRun(runId).attempts.some((x) => x.step === 'wait'), 'A made its model call and started `wait`');
  assert.equal(server.requests.length, 1);
  assert.equal(a.getRun(runId).budget.spent.model_calls, 1);

  // A stops cleanly: its lease is given up and B takes the run over, running `wait` again.
  await a.close();
  fs.writeFileSync(gate, '');
  assert.equal(await settled(b, runId), 'awaiting_input', 'parked for its budget, not finished');

  // A's one call and B's one (b) reach the limit of 2 before c: c never started.
  assert.deepEqual(startedSteps(b, runId), ['a', 'wait', 'wait', 'b']);
  assert.equal(server.requests.length, 2);
  const view = b.getRun(runId).budget;
  assert.deepEqual(view.parked?.over, ['model_calls']);
  assert.equal(view.parked?.spent.model_calls, 2);
  assert.equal(view.parked?.spent.tokens, 300, 'the tokens of both nodes\' calls');
  assert.equal(view.spent.model_calls, 2);
  // The calls were made on two nodes: both traces are in the shared store, listed on either.
  assert.deepEqual(b.listTraces({ runId, limit: 10 }).map((x) => x.step), ['b', 'a'], "B lists A's trace beside its own");

  // A raise on B is checked against both nodes' calls.
  await assert.rejects(b.raiseBudget(runId, { model_calls: 2 }), { code: 'KW_ERR_BUDGET_TOO_LOW' });
  await b.raiseBudget(runId, { model_calls: 3 });
  await waitFor(() => b.getRun(runId).run.state === 'succeeded', 'the run finished on B', 30_000);
  assert.equal(b.getRun(runId).budget.spent.model_calls, 3);

  // What the store holds: every node's traces, once each (run_spend, which nodes shared sums in before, stays empty).
  const pg = openSyncPg(store.url);
  cleanups(t)(() => pg.close());
  assert.deepEqual(pg.all<{ step: string }>('SELECT step FROM traces WHERE run_id = $1 ORDER BY id', [runId]).map((r) => r.step), ['a', 'b', 'c']);
  assert.equal(pg.get<{ n: number }>('SELECT count(*) AS n FROM run_spend')!.n, 0);

  // Read with no server (`kowalski show`, `budget`) from A's folder: the shared traces, each once.
  const history = openHistory(path.join(dir, 'a'));
  assert.ok(history !== undefined);
  try {
    assert.equal(history.getRun(runId).budget.spent.model_calls, 3);
  } finally {
    history.close();
  }
});

test('a node killed mid-step: the node that adopts the run counts the calls the dead node made', async (t) => {
  const { dir, server, store, gate, folder } = await spendScene(t);
  // Node A in a child process (testkit/pg-node.ts: it starts one run of the horde), its model on the fake Ollama; leases of 1 s.
  const homeA = path.join(dir, 'a');
  writeModelConfig(homeA, server.url);
  const child = spawn(process.execPath, [...nodeArgsFor('testkit/pg-node.ts'), store.url, homeA, store.files, '1', folder], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups(t)(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const facts: Array<Record<string, unknown>> = [];
  readline.createInterface({ input: child.stdout! }).on('line', (line) => facts.push(JSON.parse(line) as Record<string, unknown>));
  await waitFor(() => facts.some((f) => 'run' in f), 'node A started the run', 30_000);
  const runId = facts.find((f) => 'run' in f)!.run as string;

  const b = await node(t, path.join(dir, 'b'), store, server.url);
  await waitFor(() => b.getRun(runId).attempts.some((x) => x.step === 'wait'), 'A made its model call and started `wait`');
  assert.equal(server.requests.length, 1);
  child.kill('SIGKILL');
  fs.writeFileSync(gate, '');

  // B adopts the run once A's lease has lapsed: `wait` again, then b; A's call and b's reach the limit before c.
  assert.equal(await settled(b, runId), 'awaiting_input', 'parked for its budget, not finished');
  assert.deepEqual(startedSteps(b, runId), ['a', 'wait', 'wait', 'b']);
  assert.deepEqual(b.getRun(runId).budget.parked?.over, ['model_calls']);
  assert.equal(b.getRun(runId).budget.spent.model_calls, 2);
  assert.equal(server.requests.length, 2);
});

test("an agent step's turn on node A — its calls in A's chat session, a delegation's and the tool calls included — counts the same on node B", async (t) => {
  const url = await freshPostgresUrl();
  const delegate = { name: 'delegate_to_agent', arguments: { agent: 'reader', task: 'read notes.txt' } };
  const a = await chatSetup(t, perAgent({
    lead: [{ toolCalls: [delegate] }, { text: '# Findings\n\nTea at four.', usage: { input: 40, output: 10 } }],
    reader: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'tea at four' }],
  }), {
    lead: profile('lead', 'tools = ["delegate_to_agent"]\nmax_iterations = 6'),
    reader: profile('reader', 'tools = ["read_file"]'),
  }, `[store]\nurl = "${url}"\n`);
  fs.writeFileSync(path.join(a.files, 'notes.txt'), 'tea at four');
  const folder = writeHorde(path.join(a.home, 'hordes', 'study'), 'id = "study"\npipeline = ["research"]', {
    research: 'kind = "agent"\nagent = "lead"\nprompt_file = "prompts/research.md"',
  });
  fs.mkdirSync(path.join(folder, 'prompts'));
  fs.writeFileSync(path.join(folder, 'prompts', 'research.md'), 'Find out what notes.txt says.');
  const runId = await a.engine.startRun((await a.engine.resolveHorde('study')).horde, {});
  assert.equal(await a.engine.waitForRun(runId), 'succeeded');
  const onA = a.engine.getRun(runId).budget.spent;
  assert.equal(onA.model_calls, 4);
  assert.equal(onA.tool_calls, 2, 'the delegation and the file read');

  const b = await pgTestEngine(t, { url });
  assert.deepEqual(b.engine.listTraces({ runId, limit: 10 }), a.engine.listTraces({ runId, limit: 10 }), "B lists the run's traces as A does");
  assert.equal(b.engine.listTraces({ runId, limit: 10 }).length, 4);
  assert.deepEqual(b.engine.getRun(runId).budget.spent, { ...onA, wall_secs: b.engine.getRun(runId).budget.spent.wall_secs });
});
