/**
 * A wide horde (1 MiB, 28,000 problems) through a real server on 127.0.0.1: uploaded as a
 * bundle, and dropped into `<data>/hordes/` for the hot reload. The server keeps answering
 * `/api/health` all the while (the work is done in worker threads), and what it answers
 * about the horde is bounded: the first problems of the file and a count of the rest.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import type { Engine } from '../../engine/index.js';
import { listen, testApi } from '../support/api.js';
import { wideBundle, wideHorde } from '../../testkit/wide-horde.js';
import { AUTH } from '../support/token.js';

/** GET /api/health one after another until `until` settles; each answer's time, ms. */
async function pollHealth(base: string, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.then(() => (done = true), () => (done = true));
  const times: number[] = [];
  while (!done || times.length < 20) {
    const started = performance.now();
    const res = await fetch(`${base}/api/health`, { headers: AUTH });
    const body = (await res.json()) as { ok?: boolean };
    times.push(performance.now() - started);
    assert.equal(res.status, 200);
    assert.equal(body.ok, true);
  }
  return times;
}

function p99(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
}

function report(t: TestContext, what: string, times: readonly number[]): void {
  const sorted = [...times].sort((a, b) => a - b);
  t.diagnostic(`${what}: ${times.length} health answers, median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms, p99 ${p99(times).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`);
}

function catalogChanged(engine: Engine): Promise<void> {
  return new Promise((resolve) => {
    const off = engine.on('catalog:changed', () => {
      off();
      resolve();
    });
  });
}

test('uploading a wide bundle: /api/health keeps answering, and the refusal lists the first 100 problems and counts the rest', async (t) => {
  const api = await testApi(t, { port: 0 });
  const { base } = await listen(api);
  const wide = wideHorde('wide');
  const bundle = wideBundle(wide, 'wide');
  t.diagnostic(`bundle: ${bundle.length} bytes, ${wide.problems} problems`);

  // Three uploads in a row (the first also starts the review thread), health polled throughout.
  const answers: { status: number; text: string; ms: number }[] = [];
  const uploads = (async () => {
    for (let i = 0; i < 3; i += 1) {
      const started = performance.now();
      const res = await fetch(`${base}/api/bundles`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/zip' }, body: bundle });
      answers.push({ status: res.status, text: await res.text(), ms: performance.now() - started });
    }
  })();
  const times = await pollHealth(base, uploads);
  await uploads;
  report(t, 'during 3 wide uploads', times);
  t.diagnostic(`upload answers: ${answers.map((a) => `${a.ms.toFixed(0)} ms, ${a.text.length} bytes`).join('; ')}`);
  assert.ok(p99(times) < 250, `p99 ${p99(times).toFixed(1)} ms`);

  for (const answer of answers) {
    assert.equal(answer.status, 422);
    assert.ok(answer.text.length < 64 * 1024, `the answer is bounded: ${answer.text.length} bytes`);
    const { error } = JSON.parse(answer.text) as { error: { code: string; message: string } };
    assert.equal(error.code, 'KW_ERR_BUNDLE_INVALID');
    assert.match(error.message, new RegExp(`^bundle refused: the horde in it is invalid \\(${wide.problems} errors\\):\n`));
    const lines = error.message.split('\n');
    assert.match(lines[1]!, /^agents\/wide\.md:6: timeout_secs: .* \[KW_ERR_KEY_TYPE\]$/);
    assert.match(lines[2]!, /^agents\/wide\.md:7: context_paths\[0\]: @step:gone-0-[a-z]+@ names step .* \[KW_ERR_KEY_VALUE\]$/);
    assert.equal(lines.filter((l) => l.includes('[KW_ERR_KEY_VALUE]')).length, 99);
    assert.match(lines[101]!, /^agents\/wide\.md: 27,900 more problems \(27,900 errors\) in this file are not listed.* \[KW_ERR_TOO_MANY_PROBLEMS\]$/);
    assert.equal(lines.at(-1), 'nothing was written');
  }
  assert.deepEqual(fs.readdirSync(path.join(api.home, 'tmp')), [], 'nothing was left in tmp/');
});

test('a wide horde folder dropped into <data>/hordes/: /api/health keeps answering through the hot reload, and the listing is bounded', async (t) => {
  const api = await testApi(t, { port: 0 });
  const { base } = await listen(api);
  await api.engine.triggers.start();
  const wide = wideHorde('wide');

  const changed = catalogChanged(api.engine);
  const reloads = (async () => {
    const dir = path.join(api.home, 'hordes', 'wide');
    for (const [rel, text] of Object.entries(wide.files)) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    }
    await changed;
    // And the listing itself, which reads the catalog each time, a few times over.
    for (let i = 0; i < 3; i += 1) await fetch(`${base}/api/hordes`, { headers: AUTH }).then((r) => r.arrayBuffer());
  })();
  const times = await pollHealth(base, reloads);
  await reloads;
  report(t, 'during the hot reload and 3 listings', times);
  assert.ok(p99(times) < 250, `p99 ${p99(times).toFixed(1)} ms`);

  const res = await fetch(`${base}/api/hordes`, { headers: AUTH });
  const text = await res.text();
  t.diagnostic(`GET /api/hordes: ${text.length} bytes`);
  assert.ok(text.length < 64 * 1024, `the listing is bounded: ${text.length} bytes`);
  const listed = (JSON.parse(text) as { hordes: { id: string; valid: boolean; problems: { code: string; line?: number; omitted?: { errors: number } }[] }[] }).hordes.find((h) => h.id === 'wide');
  assert.ok(listed !== undefined);
  assert.equal(listed.valid, false);
  assert.equal(listed.problems.length, 101);
  assert.deepEqual(listed.problems.slice(0, 2).map((p) => [p.code, p.line]), [['KW_ERR_KEY_TYPE', 6], ['KW_ERR_KEY_VALUE', 7]]);
  assert.deepEqual(listed.problems[100], { ...listed.problems[100], code: 'KW_ERR_TOO_MANY_PROBLEMS', omitted: { errors: wide.problems - 100, warnings: 0 } });
});
