/**
 * `kowalski nodes [--json]` against real servers: two `kowalski serve` on one Postgres
 * database (each its own data folder, the run folders shared) — each server's answer marks
 * itself; a run parked on one and approved through the other is a hand-over; a server that
 * stopped shows stopped; with no server, the nodes are read from the database without the
 * command becoming one. With SQLite and no server, it says there is no node to ask.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import type { NodesView } from '../../engine/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { approveLine, cli, cliSandbox, outputOf, startCli, stdoutJson, verifyStep, writeHorde } from '../../testkit/cli.js';
import type { RunningCli } from '../../testkit/cli.js';
import { freshPostgresUrl } from '../support/pg-engine.js';
import { writeTestToken } from '../support/token.js';

async function serve(t: TestContext, home: string): Promise<RunningCli> {
  writeTestToken(home);
  const server = startCli(home, ['serve', '--no-open', '--port', '0'], { limitMs: 180_000 });
  cleanups(t)(async () => {
    if (server.child.exitCode === null) server.child.kill('SIGTERM');
    await server.exited.catch(() => undefined);
  });
  await server.stderrLine(/^kowalski serving /);
  return server;
}

async function nodes(home: string): Promise<NodesView> {
  const r = await cli(home, ['nodes', '--json']);
  assert.equal(r.code, 0, outputOf(r));
  return stdoutJson<NodesView>(r);
}

describe('kowalski nodes', () => {
  test('with SQLite and no server: no node to ask, said so', async (t) => {
    const { home } = cliSandbox(t);
    const text = await cli(home, ['nodes']);
    assert.equal(text.code, 0, outputOf(text));
    assert.match(text.stdout, /no kowalski server answers for .*: with the SQLite store the only node is the server that owns the data folder/);
    assert.deepEqual(await nodes(home), { store: 'sqlite', nodes: [], handovers: [], wakeUps: null });
  });

  test('two servers on one Postgres database: each marks itself, a hand-over after an approval through the other, stopped servers, and read without a server', async (t) => {
    const { root } = cliSandbox(t);
    const url = await freshPostgresUrl();
    const files = path.join(root, 'files');
    const homes = [path.join(root, 'a'), path.join(root, 'b')];
    for (const home of homes) {
      fs.mkdirSync(home, { recursive: true });
      fs.writeFileSync(path.join(home, 'config.toml'), `[store]\nurl = ${JSON.stringify(url)}\nfiles = ${JSON.stringify(files)}\nlease_secs = 2\n`);
      writeHorde(path.join(home, 'hordes', 'gate'), 'id = "gate"\npipeline = ["check"]', { check: verifyStep('true') });
    }
    const [a, b] = homes as [string, string];
    const serverA = await serve(t, a);
    await serve(t, b);

    const fromA = await nodes(a);
    const fromB = await nodes(b);
    assert.equal(fromA.store, 'postgres');
    assert.equal(fromA.nodes.length, 2);
    const idA = fromA.nodes.find((n) => n.self)!.id;
    const idB = fromB.nodes.find((n) => n.self)!.id;
    assert.notEqual(idA, idB);
    assert.equal(fromA.nodes.find((n) => n.id === idA)!.pid, serverA.child.pid);
    assert.match(fromA.nodes.find((n) => n.id === idA)!.url ?? '', /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.deepEqual(fromA.nodes.map((n) => n.alive), [true, true]);

    // Parked on A, approved through B: B takes the run over.
    const run = await cli(a, ['run', 'gate']);
    assert.equal(run.code, 3, outputOf(run));
    const { runId, args } = approveLine(run.stdout);
    const approved = await cli(b, args);
    assert.equal(approved.code, 0, outputOf(approved));
    const after = await nodes(a);
    assert.deepEqual(after.handovers.map((h) => [h.runId, h.fromNode, h.toNode, h.epoch, h.reason]), [[runId, idA, idB, 2, 'released']]);

    const table = await cli(a, ['nodes']);
    assert.equal(table.code, 0, outputOf(table));
    assert.match(table.stdout, /^store: postgres, as the server at http:\/\/127\.0\.0\.1:\d+\/ sees them$/m);
    assert.match(table.stdout, /^\s+node\s+name\s+url\s+state\s+heartbeat\s+runs\s+steps\s+chat turns$/m);
    assert.match(table.stdout, new RegExp(`^\\*\\s+${idA}\\s+\\S+:${a}\\s+http://127\\.0\\.0\\.1:\\d+/\\s+alive\\s+\\d+\\.\\d s ago\\s+0\\s+0\\s+0$`, 'm'));
    assert.match(table.stdout, new RegExp(`^\\s+${idB}\\s+\\S+:${b}\\s+http://127\\.0\\.0\\.1:\\d+/\\s+alive\\s+`, 'm'));
    assert.match(table.stdout, /^\* this node \(the one that answered\)$/m);
    assert.match(table.stdout, new RegExp(`^hand-overs, newest first:\\n\\s+${runId}\\s+${idA} → ${idB}\\s+epoch 2\\s+released\\s+\\d{4}-\\d\\d-\\d\\dT`, 'm'));

    // A stops: B's answer shows it stopped; with neither running, the database is read directly.
    serverA.child.kill('SIGTERM');
    assert.equal((await serverA.exited).code, 0);
    const stopped = (await nodes(b)).nodes.find((n) => n.id === idA)!;
    assert.deepEqual([stopped.alive, typeof stopped.stoppedAt], [false, 'number']);
    const direct = await cli(a, ['nodes']);
    assert.equal(direct.code, 0, outputOf(direct));
    assert.match(direct.stdout, /^store: postgres, read from the database \(no server answers for this data folder\)$/m);
    assert.match(direct.stdout, new RegExp(`^\\s+${idA}\\s.*\\sstopped\\s`, 'm'));
    assert.doesNotMatch(direct.stdout, /^\*/m, 'the command itself is no node');
    const read = await nodes(a);
    assert.deepEqual(read.nodes.map((n) => n.id).sort(), [idA, idB].sort(), 'reading registered no node');
    assert.deepEqual(read.handovers, after.handovers);
  });
});
