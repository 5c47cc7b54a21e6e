/** The engine's parts closed in reverse order of creation (engine/lifecycle.ts): past a part that fails to close, once, and from where a place was reserved. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Lifecycle } from '../../engine/lifecycle.js';

test('parts close the last made first, each once however often close is called, async ones awaited in turn', async () => {
  const life = new Lifecycle();
  const closed: string[] = [];
  const slow = (name: string) => async (): Promise<void> => {
    await new Promise((resolve) => setImmediate(resolve));
    closed.push(name);
  };
  life.add('lock', 'lock', () => closed.push('lock'));
  life.add('db', 'db', slow('db'));
  const runner = life.add('runner', { name: 'runner' }, (r) => closed.push(r.name));
  assert.equal(runner.name, 'runner', 'add hands the part back');
  life.add('chat', 'chat', slow('chat'));
  await Promise.all([life.close(), life.close()]);
  await life.close();
  assert.deepEqual(closed, ['chat', 'runner', 'db', 'lock']);
});

test('a part that fails to close does not keep the others from closing; the first failure is thrown, naming the part', async () => {
  const life = new Lifecycle();
  const closed: string[] = [];
  life.add('the lock', null, () => closed.push('lock'));
  life.add('the database', null, () => {
    throw new Error('disk gone');
  });
  life.add('the supervisor', null, () => Promise.reject(new Error('stuck')));
  life.add('the chat', null, () => closed.push('chat'));
  await assert.rejects(life.close(), (err: Error) => {
    assert.equal(err.message, 'closing the supervisor: stuck');
    assert.equal((err.cause as Error).message, 'stuck');
    return true;
  });
  assert.deepEqual(closed, ['chat', 'lock'], 'the lock was released after the two failures');
});

test('a reserved place closes its part where it was reserved; one never set closes nothing; nothing is added once closing', async () => {
  const life = new Lifecycle();
  const closed: string[] = [];
  life.add('postgres', null, () => closed.push('postgres'));
  const cluster = life.reserve<string>('the cluster', (c) => closed.push(c));
  life.reserve<string>('never made', (c) => closed.push(c));
  life.add('committer', null, () => closed.push('committer'));
  life.add('supervisor', null, () => closed.push('supervisor'));
  assert.equal(cluster.set('cluster'), 'cluster');
  const closing = life.close();
  assert.equal(life.closed, true);
  assert.throws(() => life.add('late', null, () => closed.push('late')), /late was made while the engine was closing/);
  await closing;
  assert.deepEqual(closed, ['supervisor', 'committer', 'cluster', 'postgres'], 'the cluster beats until the committer has flushed');
});
