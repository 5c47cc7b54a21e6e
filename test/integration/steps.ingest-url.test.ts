import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { TestContext } from 'node:test';
import type { InputField } from '../../core/index.js';
import type { StepTask } from '../../steps/protocol.js';
import { createStepRunner } from '../../steps/runner.js';
import { makeHorde, makeStep, makeTask, runTask, tempDir } from '../fixtures/steps/build.js';
import { serveHttp } from '../support/http.js';
import type { LocalServer } from '../support/http.js';

const runner = createStepRunner({ threads: 2 });
after(() => runner.close());

const inputs: InputField[] = [
  { id: 'question', type: 'text', label: 'Question', required: true },
  { id: 'site', type: 'url', label: 'Site', required: false },
  { id: 'extra', type: 'url', label: 'Extra', required: false },
];

const ARTICLE = `<!doctype html><html><head><title>Quarterly report</title><script>track()</script></head><body>
<nav><a href="/">Home</a></nav>
<article><h1>Quarterly report</h1>
<p>Revenue is up; see <a href="tables/q1.html">the tables</a> and <a href="../archive/">the archive</a>. ${'The quarter went well, with steady growth. '.repeat(25)}</p>
<p><img src="charts/revenue.png" alt="Revenue chart"></p>
<p>${'Costs stayed flat, margins widened, and cash grew. '.repeat(12)}</p></article></body></html>`;

function pages(t: TestContext): Promise<LocalServer> {
  return serveHttp(t, (req, res) => {
    if (req.url === '/latest') {
      res.writeHead(302, { location: '/reports/2024/q1.html' });
      res.end();
    } else if (req.url === '/reports/2024/q1.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(ARTICLE);
    } else if (req.url === '/notes.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('plain notes\n');
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no');
    }
  });
}

function ingestTask(runDir: string, input: Record<string, string>, fetchAllow: string[] | undefined, isolation: 'in_process' | 'process' = 'in_process'): StepTask {
  const step = makeStep({ name: 'collect', kind: 'ingest', output: 'collect.md', inputs });
  const task = makeTask({ horde: makeHorde([step]), step: 'collect', runDir, input, isolation });
  if (fetchAllow !== undefined) task.fetchAllow = fetchAllow;
  return task;
}

test('a URL input is fetched into inputs/<id>.md: the source at the top, the main content with absolute links', async (t) => {
  const { origin, port } = await pages(t);
  const task = ingestTask(tempDir(t), { question: 'How was Q1?', site: `${origin}/latest`, extra: `${origin}/notes.txt` }, [`127.0.0.1:${port}`]);
  const { result, progress } = await runTask(runner, task);
  assert.equal(result.outcome, 'pass', JSON.stringify(result));
  assert.equal(result.summary, '3 answers, 0 files (0 bytes), 2 URLs fetched');
  assert.ok(progress.includes(`fetching ${origin}/latest`), progress.join('\n'));

  const page = fs.readFileSync(path.join(task.workdir, 'inputs/site.md'), 'utf8');
  assert.ok(page.startsWith(`Source: <${origin}/latest>  \nFinal URL: <${origin}/reports/2024/q1.html>  \nTitle: Quarterly report\n\n---\n\n`), page);
  assert.ok(page.includes(`[the tables](${origin}/reports/2024/tables/q1.html)`), page);
  assert.ok(page.includes(`[the archive](${origin}/reports/archive/)`), page);
  assert.ok(page.includes(`![Revenue chart](${origin}/reports/2024/charts/revenue.png)`), page);
  assert.ok(!page.includes('track()'), page);
  assert.ok(!/\]\((?!https?:)/.test(page), `a relative link is left in:\n${page}`);
  assert.equal(fs.readFileSync(path.join(task.workdir, 'inputs/extra.md'), 'utf8'), `Source: <${origin}/notes.txt>\n\n---\n\nplain notes\n`);

  const md = fs.readFileSync(path.join(task.workdir, 'collect.md'), 'utf8');
  assert.ok(md.includes(`- **site** (url — Site): <${origin}/latest> → \`inputs/site.md\` — "Quarterly report", text/html, `), md);
  assert.ok(md.includes('0 paths: 0 files, 0 bytes; 2 URLs fetched.'), md);
  assert.ok(md.includes(`(HTTP 200, after 1 redirect to <${origin}/reports/2024/q1.html>)`), md);
  assert.ok(!md.includes('recorded, not fetched'), md);
});

test('a refused URL fails the step with KW_ERR_FETCH_BLOCKED naming the input and the URL, before anything is written', async (t) => {
  const { origin, port } = await pages(t);
  const cases: Array<{ url: string; allow: string[] | undefined; says: RegExp; isolation: 'in_process' | 'process' }> = [
    // Loopback without the test allowance: what every real run sees.
    { url: `${origin}/notes.txt`, allow: undefined, says: /127\.0\.0\.1 is loopback/, isolation: 'in_process' },
    { url: 'http://169.254.169.254/latest/meta-data/', allow: [`127.0.0.1:${port}`], says: /cloud metadata/, isolation: 'process' },
    { url: `http://127.0.0.1:${port + 1}/`, allow: [`127.0.0.1:${port}`], says: /127\.0\.0\.1 is loopback/, isolation: 'in_process' },
    { url: 'file:///etc/passwd', allow: undefined, says: /scheme file: is not fetched/, isolation: 'in_process' },
  ];
  for (const c of cases) {
    const task = ingestTask(tempDir(t), { question: 'q', site: c.url }, c.allow, c.isolation);
    const { result } = await runTask(runner, task);
    assert.equal(result.outcome, 'fail');
    assert.equal(result.error?.code, 'KW_ERR_FETCH_BLOCKED', JSON.stringify(result));
    assert.ok(result.error?.message.startsWith(`input \`site\` (${c.url}): `), result.error?.message);
    assert.match(result.error?.message ?? '', c.says);
    assert.equal(fs.existsSync(path.join(task.workdir, 'inputs')), false);
    assert.equal(fs.existsSync(path.join(task.workdir, 'collect.md')), false);
  }
});

test('a URL that answers an HTTP error fails the step with KW_ERR_FETCH_FAILED naming the status', async (t) => {
  const { origin, port } = await pages(t);
  const task = ingestTask(tempDir(t), { question: 'q', site: `${origin}/gone` }, [`127.0.0.1:${port}`]);
  const { result } = await runTask(runner, task);
  assert.equal(result.error?.code, 'KW_ERR_FETCH_FAILED', JSON.stringify(result));
  assert.equal(result.error?.message, `input \`site\` (${origin}/gone): ${origin}/gone answered HTTP 404 Not Found`);
});
