/**
 * Webhook deliveries that share a commit are still each answered only after it: a server
 * with the committer's intake hold on (2 ms, so commits are held while deliveries stream
 * in) is SIGKILLed while 50 connections deliver — at its 8th commit, right before the
 * write (an answer sent ahead of its commit would be lost there), or by the client as
 * soon as 60 answers have arrived — and every delivery that was answered has its run,
 * with its delivery id, on disk after the restart.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { Pool } from 'undici';
import { DEFAULT_CONFIG, createEngine } from '../../engine/index.js';
import { TEST_KINDS, writeHorde } from '../support/engine.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { childStoreEnv, testStoreConfig } from '../../testkit/pg-store.js';
import { AUTH, TEST_TOKEN } from '../support/token.js';
import { nodeArgsFor, testOwnCode } from '../../testkit/dist.js';

const SERVER = nodeArgsFor('testkit/crash/hook-server.ts');
// Enough that a server batching many deliveries per commit (a loaded machine) is still killed with some in flight.
const DELIVERIES = 400;
const CONNECTIONS = 50;
/** The client kills once this many answers have arrived: deliveries are then answered, in commit, and on their way all at once. */
const KILL_AFTER = 60;

interface Kill {
  /** KOWALSKI_CRASH_AT for the server, or the client kills it after KILL_AFTER answers. */
  crashAt?: string;
}

async function deliverAndKill(t: TestContext, kill: Kill): Promise<void> {
  const home = tempDir(t, 'kw-hook-crash-');
  writeHorde(path.join(home, 'hordes', 'hooked'), 'id = "hooked"\npipeline = ["work"]\n[[triggers]]\nname = "in"\nkind = "webhook"\noverlap = "parallel"', { work: 'kind = "noop"' });
  const store = await childStoreEnv(home);
  const env = kill.crashAt === undefined ? { ...process.env, ...store } : { ...process.env, ...store, KOWALSKI_CRASH_AT: kill.crashAt };
  const child = spawn(process.execPath, [...SERVER, home, '2000', TEST_TOKEN], { stdio: ['ignore', 'pipe', 'pipe'], env });
  const exited = once(child, 'exit');
  cleanups(t)(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /LISTENING (\d+)/.exec(out);
      if (m !== null) resolve(Number(m[1]));
    });
    child.once('exit', () => reject(new Error(`the server exited early:\n${stderr}`)));
  });

  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONNECTIONS, pipelining: 1 });
  cleanups(t)(() => pool.destroy());
  const answered = new Map<string, string>();
  let killed = false;
  let next = 0;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (next < DELIVERIES && !killed) {
      const id = `d-${next++}`;
      let answer: { status: number; body: { runId?: string } };
      try {
        const res = await pool.request({ path: '/hooks/hooked/in', method: 'POST', body: JSON.stringify({ id }), headers: { ...AUTH, 'content-type': 'application/json', 'x-request-id': id } });
        answer = { status: res.statusCode, body: await res.body.json() as { runId?: string } };
      } catch (err) {
        if (!killed && kill.crashAt === undefined) throw err;
        killed = true;
        return; // the server is gone: this delivery was not answered
      }
      assert.equal(answer.status, 202, JSON.stringify(answer.body));
      answered.set(id, answer.body.runId!);
      if (kill.crashAt === undefined && answered.size === KILL_AFTER) {
        killed = true;
        child.kill('SIGKILL');
      }
    }
  }));
  const [, signal] = await exited;
  assert.equal(signal, 'SIGKILL');
  assert.ok(answered.size >= (kill.crashAt === undefined ? KILL_AFTER : 1), `${answered.size} answers`);
  assert.ok(answered.size < DELIVERIES, 'the server died while deliveries were in flight');

  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home, config: { ...DEFAULT_CONFIG, store: await testStoreConfig(home) }, extraStepKinds: TEST_KINDS });
  cleanups(t)(() => engine.close());
  for (const [id, runId] of answered) {
    const row = engine.getRunRow(runId);
    assert.equal(row.input.trigger_delivery, id, `run ${runId} of delivery ${id}`);
    assert.equal(row.provenance, 'trigger:in');
  }
}

test('kill -9 at a commit while batched deliveries stream in: every answered delivery has its run after the restart', (t) => deliverAndKill(t, { crashAt: 'before-commit:8' }));

test('kill -9 right after the first 60 answers of batched deliveries: every answered delivery has its run after the restart', (t) => deliverAndKill(t, {}));
