import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { TestContext } from 'node:test';
import type { InputField } from '../../core/index.js';
import type { StepLimits, StepTask } from '../../steps/protocol.js';
import { createStepRunner } from '../../steps/runner.js';
import { comparable, makeHorde, makeStep, makeTask, runTask, tempDir } from '../fixtures/steps/build.js';
import { serveHttp } from '../support/http.js';

const runner = createStepRunner({ threads: 2 });
after(() => runner.close());

const inputs: InputField[] = [
  { id: 'question', type: 'textarea', label: 'Question', required: true },
  { id: 'data', type: 'path', label: 'Data folder', required: false },
  { id: 'ledger', type: 'file', label: 'Ledger', required: false },
  { id: 'site', type: 'url', label: 'Site', required: false },
];

function ingestTask(runDir: string, input: Record<string, string>, over: { isolation?: 'in_process' | 'process'; limits?: Partial<StepLimits> } = {}): StepTask {
  const step = makeStep({ name: 'collect', kind: 'ingest', output: 'collect.md', inputs });
  return makeTask({ horde: makeHorde([step]), step: 'collect', runDir, input, isolation: over.isolation ?? 'in_process', ...(over.limits === undefined ? {} : { limits: over.limits }) });
}

/** A folder to ingest: two levels of files, a symlink out to a secret, a symlink to a folder, a FIFO. */
function makeSource(t: TestContext): { root: string; ledger: string; secret: string } {
  const root = tempDir(t);
  const outside = tempDir(t);
  fs.mkdirSync(path.join(root, 'q1/deep'), { recursive: true });
  fs.writeFileSync(path.join(root, 'sales.csv'), 'month,total\njan,10\n');
  fs.writeFileSync(path.join(root, 'q1/jan.csv'), 'a,b\n1,2\n');
  fs.writeFileSync(path.join(root, 'q1/deep/notes.txt'), 'deep');
  const secret = path.join(outside, 'secret.txt');
  fs.writeFileSync(secret, 'TOP SECRET');
  fs.symlinkSync(secret, path.join(root, 'link-to-secret.txt'));
  fs.symlinkSync(outside, path.join(root, 'link-to-folder'));
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
  const ledger = path.join(outside, 'ledger.xlsx');
  fs.writeFileSync(ledger, Buffer.alloc(300, 7));
  return { root, ledger, secret };
}

test('ingest records the answers, copies path inputs by a bounded walk and fetches URLs, the same in a thread and a child', async (t) => {
  const { root, ledger } = makeSource(t);
  const { port } = await serveHttp(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('quarterly report');
  });
  const site = `http://127.0.0.1:${port}/report`;
  const input = { question: 'What changed\nsince January?', data: root, ledger, site };
  const dirs: string[] = [root];
  const runs = await Promise.all((['in_process', 'process'] as const).map(async (isolation) => {
    const dir = tempDir(t);
    dirs.push(dir);
    const task = ingestTask(dir, input, { isolation });
    task.fetchAllow = [`127.0.0.1:${port}`];
    return { task, o: await runTask(runner, task) };
  }));
  for (const { task, o } of runs) {
    assert.equal(o.result.outcome, 'pass', JSON.stringify(o.result));
    assert.equal(o.result.artifact, 'collect.md');
    assert.equal(o.result.summary, '4 answers, 4 files (331 bytes), 1 URL fetched');
    const inputsDir = path.join(task.workdir, 'inputs');
    // Copied, with the folder structure.
    assert.equal(fs.readFileSync(path.join(inputsDir, 'data/sales.csv'), 'utf8'), 'month,total\njan,10\n');
    assert.equal(fs.readFileSync(path.join(inputsDir, 'data/q1/jan.csv'), 'utf8'), 'a,b\n1,2\n');
    assert.equal(fs.readFileSync(path.join(inputsDir, 'data/q1/deep/notes.txt'), 'utf8'), 'deep');
    assert.equal(fs.statSync(path.join(inputsDir, 'ledger/ledger.xlsx')).size, 300);
    // Symlinks are not followed, special files not read.
    for (const skipped of ['link-to-secret.txt', 'link-to-folder', 'pipe']) assert.equal(fs.existsSync(path.join(inputsDir, 'data', skipped)), false);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(task.workdir, 'input.json'), 'utf8')), input);
    const md = fs.readFileSync(path.join(task.workdir, 'collect.md'), 'utf8');
    assert.ok(md.includes(`- **data** (path — Data folder): \`${root}\` → \`inputs/data/\` — 3 files, 31 bytes, 3 skipped`));
    assert.ok(md.includes(`- **site** (url — Site): <${site}> → \`inputs/site.md\` — text/plain, 16 bytes`), md);
    assert.equal(fs.readFileSync(path.join(inputsDir, 'site.md'), 'utf8'), `Source: <${site}>\n\n---\n\nquarterly report\n`);
    assert.ok(md.includes('    What changed\n    since January?'));
    assert.ok(md.includes('- `link-to-secret.txt`: symlink (not followed)'));
    assert.ok(md.includes('- `pipe`: not a regular file'));
    assert.ok(md.includes('2 paths: 4 files, 331 bytes; 1 URL fetched.'));
    assert.ok(!md.includes('TOP SECRET'));
  }
  assert.deepEqual(comparable(runs[0]!.o.result, ...dirs), comparable(runs[1]!.o.result, ...dirs));
});

test('each ingest limit fails the step naming the limit and the path, before anything is copied', async (t) => {
  const { root } = makeSource(t);
  const cases: Array<{ limits: Partial<StepLimits>; name: string; at: string }> = [
    { limits: { ingestFiles: 2 }, name: 'ingestFiles', at: root },
    { limits: { ingestBytes: 25 }, name: 'ingestBytes', at: root },
    { limits: { ingestDepth: 1 }, name: 'ingestDepth', at: path.join(root, 'q1/deep') },
  ];
  for (const c of cases) {
    const task = ingestTask(tempDir(t), { question: 'q', data: root }, { limits: c.limits });
    const { result } = await runTask(runner, task);
    assert.equal(result.outcome, 'fail');
    assert.equal(result.error?.code, 'KW_ERR_INGEST_LIMIT', JSON.stringify(result));
    assert.match(result.error?.message ?? '', new RegExp(`limit ${c.name}`));
    assert.ok(result.error?.message.includes(c.at), `${c.name}: names ${c.at}: ${result.error?.message}`);
    assert.equal(fs.existsSync(path.join(task.workdir, 'inputs')), false, `${c.name}: something was copied`);
  }
});

test('a missing path is KW_ERR_INGEST_SOURCE; a relative one is refused; an empty optional path is skipped', async (t) => {
  const dir = tempDir(t);
  const missing = await runTask(runner, ingestTask(tempDir(t), { question: 'q', data: path.join(dir, 'gone') }));
  assert.equal(missing.result.error?.code, 'KW_ERR_INGEST_SOURCE');
  assert.ok(missing.result.error?.message.includes(path.join(dir, 'gone')));
  const relative = await runTask(runner, ingestTask(tempDir(t), { question: 'q', data: 'data/x' }));
  assert.equal(relative.result.error?.code, 'KW_ERR_INPUT_INVALID');
  assert.match(relative.result.error?.message ?? '', /input `data`/);
  const empty = await runTask(runner, ingestTask(tempDir(t), { question: 'q', data: '' }));
  assert.equal(empty.result.outcome, 'pass');
  assert.equal(empty.result.summary, '2 answers, 0 files (0 bytes)');
});
