import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { threadExecArgv } from '../../steps/own-code.js';

// `node --max-old-space-size=4096 dist/bin/kowalski.js serve`: the step threads inherit the
// process's flags, and a Worker given a V8 flag refuses to start, so the first step failed.
test('a step thread starts whatever V8 and process flags kowalski itself was started with', async () => {
  const given = ['--expose-gc', '--max-old-space-size=4096', '--import', 'data:text/javascript,', '--stack-trace-limit=50', '--title=kw', '--conditions=dev', '--no-experimental-require-module', '--enable-source-maps'];
  const kept = threadExecArgv(given);
  assert.deepEqual(kept, ['--import', 'data:text/javascript,', '--conditions=dev', '--no-experimental-require-module', '--enable-source-maps']);
  assert.throws(() => new Worker('', { eval: true, execArgv: given }), { code: 'ERR_WORKER_INVALID_EXEC_ARGV' });
  const worker = new Worker('require("node:worker_threads").parentPort.postMessage("started")', { eval: true, execArgv: kept });
  const [message] = await once(worker, 'message') as [string];
  assert.equal(message, 'started');
  await worker.terminate();
});
