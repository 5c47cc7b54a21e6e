/**
 * "Re-run from here" in a real browser (Debian's chromium through playwright-core) against a
 * real API over a real engine whose model steps talk to a fake Ollama that counts its calls:
 * a step that never ran (parked before it, or waiting for its review) has no button; the button on a step starts a new run from that step with the recorded model answers
 * reused, the app opens the new run, its model calls are marked replayed, and the model was
 * not called. Waits are bounded waits on page state, never sleeps.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { buildApi } from '../../api/index.js';
import { createEngine } from '../../engine/index.js';
import { listen } from '../support/api.js';
import { WAIT_MS, browserForFile, cleanups, openPage, shot, testId } from '../support/browser.js';
import { writeHorde } from '../support/engine.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { TEST_TOKEN } from '../support/token.js';
import { testOwnCode } from '../../testkit/dist.js';

const browser = browserForFile();

test('the button on a step that ran (none on one that never did) starts a re-run from it, with the model answers replayed: the app opens the new run, its calls say "replayed", the model was not called', async (t) => {
  const defer = cleanups(t);
  const server = await startFakeOllama((body) => ({ text: `# Note\n\nAnswer ${body.messages.length}.` }));
  defer(() => server.close());
  const home = fs.realpathSync(tempDir(t, 'kw-e2e-rerun-'));
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${server.url}"\n`);
  const dir = writeHorde(path.join(home, 'hordes', 'notes'), 'id = "notes"\npipeline = ["intake", "draft", "final"]', {
    intake: 'kind = "ingest"\n[[inputs]]\nid = "topic"\ntype = "text"',
    draft: 'kind = "process"\nprompt_file = "prompts/draft.md"',
    final: 'kind = "process"\nprompt_file = "prompts/final.md"',
  });
  fs.mkdirSync(path.join(dir, 'prompts'));
  fs.writeFileSync(path.join(dir, 'prompts', 'draft.md'), 'Draft a note about the topic.');
  fs.writeFileSync(path.join(dir, 'prompts', 'final.md'), 'Make the draft final.');
  // A run that parks at a review: the step after it, and the review itself, never ran.
  const gated = writeHorde(path.join(home, 'hordes', 'gated'), 'id = "gated"\npipeline = ["draft", "check", "final"]', {
    draft: 'kind = "process"\nprompt_file = "prompts/draft.md"', check: 'kind = "review"', final: 'kind = "process"\nprompt_file = "prompts/draft.md"',
  });
  fs.cpSync(path.join(dir, 'prompts'), path.join(gated, 'prompts'), { recursive: true });
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  defer(() => engine.close());
  const api = await buildApi(engine, { token: TEST_TOKEN, port: 0, onInternalError: (err) => t.diagnostic(`internal: ${String(err)}`) });
  defer(() => api.app.close());
  const { base } = await listen(api);
  const old = await engine.startRun((await engine.resolveHorde('notes')).horde, { topic: 'sky' });
  assert.equal(await engine.waitForRun(old), 'succeeded', JSON.stringify(engine.getRun(old).steps));
  const calls = (): number => server.requests.filter((r) => r.path === '/api/chat').length;
  assert.equal(calls(), 2);

  const { page, pageErrors } = await openPage(browser(), defer);
  defer(() => assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page'));
  const parked = await engine.startRun((await engine.resolveHorde('gated')).horde, {});
  assert.equal(await engine.waitForRun(parked), 'awaiting_input');
  const asked = calls();
  await page.goto(`${base}/#/runs/${parked}`);
  await testId(page, 'rerun-draft').waitFor({ timeout: WAIT_MS });
  await testId(page, 'step-state-check').waitFor({ timeout: WAIT_MS });
  assert.deepEqual([await testId(page, 'rerun-check').count(), await testId(page, 'rerun-final').count()], [0, 0], 'no re-run from a step that never ran');

  await page.goto(`${base}/#/runs/${old}`);
  await testId(page, 'rerun-draft').click();
  const panel = testId(page, 'rerun-panel-draft');
  assert.equal(await testId(panel, 'rerun-replay').isChecked(), true, 'replaying model answers is the default');
  await shot(panel, 'rerun-panel');
  await testId(panel, 'rerun-start').click();

  await page.waitForURL((u) => /^#\/runs\/r[0-9a-z]+$/.test(u.hash) && u.hash !== `#/runs/${old}`, { timeout: WAIT_MS });
  const id = new URL(page.url()).hash.slice('#/runs/'.length);
  assert.equal(await engine.waitForRun(id), 'succeeded');
  assert.equal(engine.getRunRow(id).provenance, `rerun:${old}`);
  await testId(page, 'step-state-final').filter({ hasText: /passed/i }).waitFor({ timeout: WAIT_MS });
  await testId(page, 'trace-replayed').nth(1).waitFor({ timeout: WAIT_MS });
  assert.equal(await testId(page, 'trace-replayed').count(), 2, 'both model calls were replayed');
  assert.equal(calls(), asked, 'the model was not called again');
  await shot(page, 'rerun-replayed');
});
