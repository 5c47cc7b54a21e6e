/**
 * Durability of model steps: the built-in url-summarizer (ingest → process → deliver)
 * against a fake Ollama, killed with SIGKILL while the deliver step waits for its model,
 * then restarted. The fake server is the ledger outside the engine: it counts every
 * request, so a finished model step that was called again would show.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeTurn } from '../../testkit/fake-models.js';
import { servePage } from '../support/http.js';
import { tempDir } from '../../testkit/tmp.js';
import { acks, harness } from '../../testkit/crash/support.js';
import { cleanups } from '../../testkit/cleanup.js';

test('kill -9 while a model step streams, restart: the finished model step is not called again, the interrupted one is', async (t) => {
  const { port: pagePort } = await servePage(t, '<html><body><article><h1>Kettles</h1><p>Kettles boil water in about three minutes.</p></article></body></html>');

  let step: (kind: 'notes' | 'summary') => void = () => undefined;
  const summaryAsked = new Promise<void>((resolve) => {
    step = (kind) => {
      if (kind === 'summary') resolve();
    };
  });
  const calls = { notes: 0, summary: 0 };
  const server = await startFakeOllama((body): FakeTurn => {
    const kind = String(body.messages[0].content).includes('"# Key points"') ? 'notes' : 'summary';
    calls[kind] += 1;
    step(kind);
    if (kind === 'notes') return { text: '# Key points\n\n## Points\n\n- Kettles are quick — "about three minutes"' };
    // The first summary call streams slowly and never finishes: the process is killed during it.
    if (calls.summary === 1) return { text: 'never finished', chunkDelayMs: 60_000 };
    return { text: '# Summary\n\n## Answer\n\nAbout three minutes.\n\n## Key points\n\n- Kettles are quick' };
  });
  cleanups(t)(() => server.close());

  const home = tempDir(t, 'kw-crash-models-');
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${server.url}"\n`);
  const env = {
    KOWALSKI_TEST_INPUT: JSON.stringify({ url: `http://127.0.0.1:${pagePort}/kettles` }),
    KOWALSKI_TEST_FETCH_ALLOW: `127.0.0.1:${pagePort}`,
  };
  const first = await harness(home, ['start', 'url-summarizer', '1'], { env, killOn: summaryAsked });
  assert.equal(first.signal, 'SIGKILL', `killed while the summary was asked for (exit ${first.code}): ${first.stderr}`);
  const [runId] = acks(first);
  assert.ok(runId !== undefined, 'the run was acknowledged');
  assert.deepEqual(calls, { notes: 1, summary: 1 });

  const second = await harness(home, ['resume'], { env });
  assert.ok(second.lines.includes(`DONE ${runId} succeeded`), `${second.lines.join('\n')}\n${second.stderr}`);
  // The model was asked for the notes once in all, and for the summary once more.
  assert.deepEqual(calls, { notes: 1, summary: 2 });

  const db = new Database(path.join(home, 'kowalski.sqlite'), { readonly: true });
  cleanups(t)(() => db.close());
  const attempts = db.prepare('SELECT step, attempt, state FROM step_attempts WHERE run_id = ? ORDER BY step, attempt').all(runId);
  assert.deepEqual(attempts, [
    { step: 'fetch', attempt: 1, state: 'passed' },
    { step: 'notes', attempt: 1, state: 'passed' },
    { step: 'summary', attempt: 1, state: 'interrupted' },
    { step: 'summary', attempt: 2, state: 'passed' },
  ]);
  // One trace per call that ended: the killed call left none, the rest are there.
  const traces = db.prepare('SELECT step, attempt, seq FROM traces WHERE run_id = ? ORDER BY id').all(runId);
  assert.deepEqual(traces, [{ step: 'notes', attempt: 1, seq: 1 }, { step: 'summary', attempt: 2, seq: 1 }]);
  const workdir = path.join(home, 'runs', runId, 'output');
  assert.match(fs.readFileSync(path.join(workdir, 'summary.md'), 'utf8'), /About three minutes/);
  assert.match(fs.readFileSync(path.join(workdir, 'notes.md'), 'utf8'), /about three minutes/);
});
