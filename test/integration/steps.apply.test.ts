import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { TestContext } from 'node:test';
import type { ApplyMode } from '../../core/index.js';
import type { StepTask } from '../../steps/protocol.js';
import { createStepRunner } from '../../steps/runner.js';
import { comparable, makeHorde, makeStep, makeTask, runTask, tempDir } from '../fixtures/steps/build.js';

const runner = createStepRunner({ threads: 2 });
after(() => runner.close());

const APP = "function greet(name) {\n  return 'Hello ' + name;\n}\n\nmodule.exports = { greet };\n";

const GOOD = [
  'The fix, in two parts.',
  '',
  '```text',
  '--- a/README.md',
  '+++ b/README.md',
  '(an example in prose: not a diff block, never applied)',
  '```',
  '',
  '```diff',
  'diff --git a/src/app.js b/src/app.js',
  'index 1111111..2222222 100755',
  '--- a/src/app.js',
  '+++ b/src/app.js',
  '@@ -1,3 +1,3 @@',
  ' function greet(name) {',
  "-  return 'Hello ' + name;",
  '+  return `Hello, ${name}!`;',
  ' }',
  '```',
  '',
  '```patch',
  '--- /dev/null',
  '+++ b/src/util/math.js',
  '@@ -0,0 +1,2 @@',
  '+exports.add = (a, b) => a + b;',
  '+exports.sub = (a, b) => a - b;',
  '--- a/old.txt',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-remove me',
  '```',
  '',
].join('\n');

interface Setup { task: StepTask; project: string; workdir: string }

function setup(t: TestContext, proposal: string, mode: ApplyMode, isolation: 'in_process' | 'process' = 'in_process'): Setup {
  const project = tempDir(t);
  fs.mkdirSync(path.join(project, 'src'));
  fs.writeFileSync(path.join(project, 'src/app.js'), APP, { mode: 0o755 });
  fs.writeFileSync(path.join(project, 'README.md'), '# Demo\n\nOld text.\n');
  fs.writeFileSync(path.join(project, 'old.txt'), 'remove me\n');
  const dev = makeStep({ name: 'dev', kind: 'process', output: 'dev/proposal.md' });
  const apply = makeStep({ name: 'patch', kind: 'apply', output: 'apply.md', verifyCwd: project, applyMode: mode });
  const runDir = tempDir(t);
  const task = makeTask({ horde: makeHorde([dev, apply]), step: 'patch', runDir, previousOutput: 'dev/proposal.md', isolation });
  fs.mkdirSync(path.join(task.workdir, 'dev'), { recursive: true });
  fs.writeFileSync(path.join(task.workdir, 'dev/proposal.md'), proposal);
  return { task, project, workdir: task.workdir };
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const abs = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, abs)] = fs.readFileSync(abs, 'utf8');
  }
  return out;
}

test('dry-run checks every hunk and writes nothing; execute writes changes, new files and deletions (thread and child alike)', async (t) => {
  const dirs: string[] = [];
  const runs = await Promise.all((['dry-run', 'execute'] as const).flatMap((mode) => (['in_process', 'process'] as const).map(async (isolation) => {
    const s = setup(t, GOOD, mode, isolation);
    dirs.push(s.project, s.task.runDir);
    return { mode, s, before: snapshot(s.project), o: await runTask(runner, s.task) };
  })));
  for (const { mode, s, before, o } of runs) {
    assert.equal(o.result.outcome, 'pass', JSON.stringify(o.result));
    assert.equal(o.result.artifact, 'apply.md');
    const md = fs.readFileSync(path.join(s.workdir, 'apply.md'), 'utf8');
    if (mode === 'dry-run') {
      assert.equal(o.result.summary, 'dry run: 3 files would change');
      assert.deepEqual(snapshot(s.project), before);
      assert.ok(md.includes('- `src/app.js` — would be modified: 1 hunk, +1 −1 lines'));
      assert.ok(md.includes('- `src/util/math.js` — would be created: 1 hunk, +2 −0 lines'));
      assert.ok(md.includes('- `old.txt` — would be deleted: 1 hunk, +0 −1 lines'));
      assert.ok(md.includes('nothing was written'));
    } else {
      assert.equal(o.result.summary, 'applied: 3 files changed');
      assert.deepEqual(snapshot(s.project), {
        'README.md': '# Demo\n\nOld text.\n',
        'src/app.js': APP.replace("'Hello ' + name", '`Hello, ${name}!`'),
        'src/util/math.js': 'exports.add = (a, b) => a + b;\nexports.sub = (a, b) => a - b;\n',
      });
      assert.equal(fs.statSync(path.join(s.project, 'src/app.js')).mode & 0o777, 0o755, 'the file mode is kept');
      assert.ok(md.includes('**APPLIED** — 3 files changed.'));
      assert.ok(md.includes('- `old.txt` — deleted'));
    }
  }
  for (const mode of ['dry-run', 'execute']) {
    const pair = runs.filter((r) => r.mode === mode).map((r) => comparable(r.o.result, ...dirs));
    assert.deepEqual(pair[0], pair[1]);
  }
});

test('a conflict anywhere fails the step, names each failing hunk, and writes nothing', async (t) => {
  const conflicting = GOOD.replace('```patch', [
    '```diff',
    '--- a/README.md',
    '+++ b/README.md',
    '@@ -1,3 +1,3 @@',
    ' # Demo',
    ' ',
    '-Text that is not there.',
    '+New text.',
    '```',
    '',
    '```patch',
  ].join('\n'));
  for (const mode of ['dry-run', 'execute'] as const) {
    const s = setup(t, conflicting, mode);
    const before = snapshot(s.project);
    const { result } = await runTask(runner, s.task);
    assert.equal(result.outcome, 'fail');
    assert.equal(result.error?.code, 'KW_ERR_PATCH_CONFLICT');
    assert.match(result.error?.message ?? '', /README\.md/);
    assert.deepEqual(snapshot(s.project), before, `${mode}: the project changed`);
    const md = fs.readFileSync(path.join(s.workdir, 'apply.md'), 'utf8');
    assert.ok(md.includes('- `README.md` (diff block 2 hunk 1 (`@@ -1,3 +1,3 @@`)): the lines it changes are not in the file as it is'), md);
    assert.ok(md.includes('**CONFLICT** — 1 conflict; nothing was written.'));
  }
});

test('a diff creating a file that exists, or changing one that does not, is a conflict', async (t) => {
  const creates = ['```diff', '--- /dev/null', '+++ b/README.md', '@@ -0,0 +1 @@', '+hi', '```', ''].join('\n');
  const changes = ['```diff', '--- a/missing.txt', '+++ b/missing.txt', '@@ -1 +1 @@', '-a', '+b', '```', ''].join('\n');
  for (const [proposal, reason] of [[creates, 'already exists'], [changes, 'does not exist']] as const) {
    const s = setup(t, proposal, 'execute');
    const { result } = await runTask(runner, s.task);
    assert.equal(result.error?.code, 'KW_ERR_PATCH_CONFLICT');
    assert.match(result.error?.message ?? '', new RegExp(reason));
  }
});

test('paths that are absolute, climb out with .., or lead out through a symlink are refused; nothing is written', async (t) => {
  const outside = tempDir(t);
  fs.writeFileSync(path.join(outside, 'target.txt'), 'a\n');
  const diffFor = (file: string): string => ['```diff', `--- ${file}`, `+++ ${file}`, '@@ -1 +1 @@', '-a', '+pwned', '```', ''].join('\n');
  const cases = [
    diffFor(path.join(outside, 'target.txt')),
    diffFor('a/../../target.txt'),
    diffFor('b/escape/target.txt'),
  ];
  for (const proposal of cases) {
    const s = setup(t, GOOD + proposal, 'execute');
    fs.symlinkSync(outside, path.join(s.project, 'escape'));
    const before = snapshot(s.project);
    const { result } = await runTask(runner, s.task);
    assert.equal(result.outcome, 'fail');
    assert.equal(result.error?.code, 'KW_ERR_PATCH_INVALID', JSON.stringify(result.error));
    assert.deepEqual(result.error?.where, { file: 'dev/proposal.md', line: GOOD.split('\n').length });
    assert.deepEqual(snapshot(s.project), before);
    assert.equal(fs.readFileSync(path.join(outside, 'target.txt'), 'utf8'), 'a\n');
  }
});

test('no diff block is KW_ERR_PATCH_NONE; a block that does not parse is KW_ERR_PATCH_INVALID', async (t) => {
  const none = await runTask(runner, setup(t, 'I would change greet() to add a comma.\n', 'execute').task);
  assert.equal(none.result.error?.code, 'KW_ERR_PATCH_NONE');
  assert.match(none.result.error?.message ?? '', /dev\/proposal\.md/);
  const broken = ['```diff', '--- a/README.md', '+++ b/README.md', '@@ -1,2 +1,2 @@', ' # Demo', 'garbage line', '```', ''].join('\n');
  const bad = await runTask(runner, setup(t, broken, 'execute').task);
  assert.equal(bad.result.error?.code, 'KW_ERR_PATCH_INVALID');
  assert.match(bad.result.error?.message ?? '', /does not parse/);
});

test('an apply step whose mode changed after approval is refused and writes nothing', async (t) => {
  const s = setup(t, GOOD, 'dry-run');
  const before = snapshot(s.project);
  const escalated: StepTask = { ...s.task, step: { ...s.task.step, applyMode: 'execute' } };
  const { result } = await runTask(runner, escalated);
  assert.equal(result.error?.code, 'KW_ERR_APPROVAL_MISMATCH');
  assert.deepEqual(snapshot(s.project), before);
});

test('with a project folder (1.x project_path) and no verify_cwd, apply writes into the project folder', async (t) => {
  const project = tempDir(t);
  fs.mkdirSync(path.join(project, 'src'));
  fs.writeFileSync(path.join(project, 'src/app.js'), APP);
  fs.writeFileSync(path.join(project, 'old.txt'), 'remove me\n');
  const dev = makeStep({ name: 'dev', kind: 'process', output: 'dev/proposal.md' });
  const apply = makeStep({ name: 'patch', kind: 'apply', output: 'apply.md', applyMode: 'execute' });
  const task = makeTask({
    horde: makeHorde([dev, apply]), step: 'patch', runDir: tempDir(t), previousOutput: 'dev/proposal.md',
    project: { path: project, input: 'project_path', from: 'id' },
  });
  assert.equal(task.command?.cwd, project, 'the approval shows the project folder');
  fs.mkdirSync(path.join(task.workdir, 'dev'), { recursive: true });
  fs.writeFileSync(path.join(task.workdir, 'dev/proposal.md'), GOOD);
  const { result } = await runTask(runner, task);
  assert.equal(result.outcome, 'pass', JSON.stringify(result.error));
  assert.match(fs.readFileSync(path.join(project, 'src/app.js'), 'utf8'), /Hello, \$\{name\}!/);
  assert.equal(fs.existsSync(path.join(task.workdir, 'src')), false, 'nothing was written into the workdir');
});
