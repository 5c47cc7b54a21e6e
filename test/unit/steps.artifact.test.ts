import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fence, readContext, resolveContextRef, writeArtifact } from '../../steps/artifact.js';
import type { StepTask } from '../../steps/protocol.js';
import { makeHorde, makeStep, makeTask, tempDir } from '../fixtures/steps/build.js';

function taskIn(runDir: string, over: { output?: string; attempt?: number; previousOutput?: string } = {}): StepTask {
  const horde = makeHorde([
    makeStep({ name: 'draft', kind: 'noop', output: 'drafts/draft.md' }),
    makeStep({ name: 'report', kind: 'noop', output: over.output ?? 'reports/summary.md' }),
  ]);
  return makeTask({
    horde, step: 'report', runDir, attempt: over.attempt ?? 1,
    ...(over.previousOutput === undefined ? {} : { previousOutput: over.previousOutput }),
  });
}

function thrown(fn: () => unknown): { code?: string; where?: unknown; message: string } {
  try {
    fn();
  } catch (err) {
    return err as { code?: string; where?: unknown; message: string };
  }
  assert.fail('expected a throw');
}

test('writeArtifact writes the output (creating folders) and keeps every attempt\'s copy', (t) => {
  const runDir = tempDir(t);
  const first = taskIn(runDir, { attempt: 1 });
  assert.equal(writeArtifact(first, '# one\n'), 'reports/summary.md');
  const second = taskIn(runDir, { attempt: 2 });
  writeArtifact(second, '# two\n');
  assert.equal(fs.readFileSync(path.join(runDir, 'output/reports/summary.md'), 'utf8'), '# two\n');
  assert.equal(fs.readFileSync(path.join(runDir, 'attempts/report/1/reports/summary.md'), 'utf8'), '# one\n');
  assert.equal(fs.readFileSync(path.join(runDir, 'attempts/report/2/reports/summary.md'), 'utf8'), '# two\n');
  // An attempt's copy is never overwritten.
  assert.equal(thrown(() => writeArtifact(first, '# again\n')).code, 'KW_ERR_INTERNAL');
  assert.equal(fs.readFileSync(path.join(runDir, 'attempts/report/1/reports/summary.md'), 'utf8'), '# one\n');
});

test('writeArtifact replaces a symlink at the output instead of writing through it, and refuses a folder that leads out', (t) => {
  const runDir = tempDir(t);
  const outside = tempDir(t);
  const victim = path.join(outside, 'victim.txt');
  fs.writeFileSync(victim, 'keep me');
  const task = taskIn(runDir);
  fs.mkdirSync(path.join(task.workdir, 'reports'), { recursive: true });
  fs.symlinkSync(victim, path.join(task.workdir, 'reports/summary.md'));
  writeArtifact(task, '# report\n');
  assert.equal(fs.readFileSync(victim, 'utf8'), 'keep me');
  assert.equal(fs.lstatSync(path.join(task.workdir, 'reports/summary.md')).isSymbolicLink(), false);

  fs.symlinkSync(outside, path.join(task.workdir, 'escape'));
  const err = thrown(() => writeArtifact(taskIn(runDir, { output: 'escape/x.md', attempt: 2 }), '# x\n'));
  assert.equal(err.code, 'KW_ERR_PATH_ESCAPES');
  assert.deepEqual(err.where, { file: 'agents/report.md', key: 'output' });
  assert.equal(fs.existsSync(path.join(outside, 'x.md')), false);
});

test('context references resolve inside the workdir only', (t) => {
  const runDir = tempDir(t);
  const outside = tempDir(t);
  const task = taskIn(runDir, { previousOutput: 'drafts/draft.md' });
  fs.mkdirSync(path.join(task.workdir, 'drafts'), { recursive: true });
  fs.writeFileSync(path.join(task.workdir, 'drafts/draft.md'), '# draft\n');
  fs.writeFileSync(path.join(task.workdir, 'notes.md'), 'notes\n');

  assert.equal(resolveContextRef(task, '@artifact@'), path.join(task.workdir, 'drafts/draft.md'));
  assert.equal(resolveContextRef(task, '@step:draft@'), path.join(task.workdir, 'drafts/draft.md'));
  assert.equal(readContext(task, 'notes.md').text, 'notes\n');
  assert.equal(readContext(task, '@artifact@').text, '# draft\n');

  assert.equal(thrown(() => resolveContextRef(task, '../secret')).code, 'KW_ERR_PATH_ESCAPES');
  assert.equal(thrown(() => resolveContextRef(task, '/etc/passwd')).code, 'KW_ERR_PATH_ESCAPES');
  fs.writeFileSync(path.join(outside, 'secret'), 'no');
  fs.symlinkSync(path.join(outside, 'secret'), path.join(task.workdir, 'link.md'));
  const viaLink = thrown(() => readContext(task, 'link.md'));
  assert.equal(viaLink.code, 'KW_ERR_PATH_ESCAPES');
  assert.deepEqual(viaLink.where, { file: 'agents/report.md', key: 'context_paths' });

  const unknown = thrown(() => resolveContextRef(task, '@step:nope@'));
  assert.equal(unknown.code, 'KW_ERR_CONTEXT_MISSING');
  assert.match(unknown.message, /no step `nope`/);
  assert.equal(thrown(() => resolveContextRef(taskIn(runDir), '@artifact@')).code, 'KW_ERR_CONTEXT_MISSING');
  assert.equal(thrown(() => readContext(task, 'missing.md')).code, 'KW_ERR_CONTEXT_MISSING');
});

test('fence: text holding backticks cannot close the block early', () => {
  assert.equal(fence('plain', 'text'), '```text\nplain\n```');
  const tricky = 'a\n```\nrm -rf\n````\n';
  const block = fence(tricky);
  assert.ok(block.startsWith('`````\n'));
  assert.ok(block.endsWith('\n`````'));
  assert.equal(block.slice(6, -5), tricky);
});
