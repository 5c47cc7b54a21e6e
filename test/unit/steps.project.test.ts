/** The run's project folder as 1.x found it (steps/project.ts), and what a command's folder becomes with one. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { InputField, KowalskiError } from '../../core/index.js';
import { resolveCommand } from '../../steps/command.js';
import { checkProjectCwd, resolveProject } from '../../steps/project.js';
import { makeHorde, makeStep, tempDir } from '../fixtures/steps/build.js';

const field = (id: string, label = id, type: InputField['type'] = 'text'): InputField => ({ id, type, label, required: false });
const hordeWith = (...inputs: InputField[]) => makeHorde([makeStep({ name: 'check', kind: 'verify', verifyCommand: 'true' })], { inputs });

test('project_path wins; then an input labelled "Project path" (any case, as part of the label); ~/ is the home folder', () => {
  const h = hordeWith(field('repo', 'Project path (repo root)'), field('project_path'));
  assert.deepEqual(resolveProject(h, { repo: '/src/a', project_path: '/src/b' }), { path: '/src/b', input: 'project_path', from: 'id' });
  assert.deepEqual(resolveProject(h, { repo: '/src/a', project_path: '  ' }), { path: '/src/a', input: 'repo', from: 'label' });
  assert.deepEqual(resolveProject(hordeWith(field('where', 'PROJECT PATH')), { where: '~/code' }), { path: path.join(os.homedir(), 'code'), input: 'where', from: 'label' });
});

test('else the first absolute or ~/ folder that exists written in source text (a textarea, an undeclared answer), trimmed of quotes and punctuation as 1.x did', (t) => {
  const dir = tempDir(t);
  const h = hordeWith(field('task', 'Task', 'textarea'), field('cwd', 'Run in folder'), field('data', 'Data', 'path'));
  const text = `Please fix the tests in "${dir}", and ./relative or /no/such/folder are not it.`;
  assert.deepEqual(resolveProject(h, { task: text }), { path: dir, input: 'task', from: 'text' });
  assert.deepEqual(resolveProject(h, { question: `look at ${dir}` }), { path: dir, input: 'question', from: 'text' });
  assert.equal(resolveProject(h, { task: 'fix /no/such/folder please' }), undefined);
  assert.equal(resolveProject(h, { cwd: dir, data: dir }), undefined, 'a one-line text or path field is a value of its own, not source text');
  assert.equal(resolveProject(h, { trigger_path: dir }), undefined, 'what a trigger adds is not the operator\'s text');
  assert.equal(resolveProject(h, {}), undefined, 'no project folder: commands run in the workdir');
});

test('with a project folder, a command runs there and a relative verify_cwd is relative to it; absolute and {{workdir}} stay as written', () => {
  const project = { path: '/home/me/proj', input: 'project_path', from: 'id' as const };
  const ctx = { horde: hordeWith(field('project_path')), input: { project_path: '/home/me/proj' }, workdir: '/runs/r1/output', runDir: '/runs/r1', project };
  const cwd = (verifyCwd?: string): string => resolveCommand(makeStep({ name: 'check', kind: 'verify', verifyCommand: 'true', ...(verifyCwd === undefined ? {} : { verifyCwd }) }), ctx).cwd;
  assert.equal(cwd(), '/home/me/proj');
  assert.equal(cwd('app'), '/home/me/proj/app');
  assert.equal(cwd('{{workdir}}/x'), '/runs/r1/output/x');
  assert.equal(cwd('/elsewhere'), '/elsewhere');
});

test('before the command: a project that is not a folder is KW_ERR_PROJECT_NOT_FOUND naming the input; a relative verify_cwd leading out (.., a symlink) is KW_ERR_PATH_ESCAPES', (t) => {
  const base = tempDir(t);
  const project = path.join(base, 'proj');
  fs.mkdirSync(path.join(project, 'app'), { recursive: true });
  fs.symlinkSync(base, path.join(project, 'up'));
  const p = { path: project, input: 'project_path', from: 'id' as const };
  checkProjectCwd(p, path.join(project, 'app'), 'app', 'agents/check.md');
  checkProjectCwd(p, '/tmp', '/tmp', 'agents/check.md');
  for (const [cwd, rel] of [[base, '..'], [base, 'up']] as const) {
    assert.throws(() => checkProjectCwd(p, path.join(project, rel), rel, 'agents/check.md'), (err: KowalskiError) => {
      assert.equal(err.code, 'KW_ERR_PATH_ESCAPES');
      assert.deepEqual(err.where, { file: 'agents/check.md', key: 'verify_cwd' });
      return err.message.includes(cwd);
    });
  }
  fs.writeFileSync(path.join(base, 'file.txt'), 'x');
  for (const missing of [path.join(base, 'file.txt'), path.join(base, 'gone')]) {
    assert.throws(() => checkProjectCwd({ path: missing, input: 'repo', from: 'label' }, missing, '', 'agents/check.md'), (err: KowalskiError) => {
      assert.equal(err.code, 'KW_ERR_PROJECT_NOT_FOUND');
      assert.deepEqual(err.where, { file: 'agents/check.md', key: 'inputs.repo' });
      return err.message.includes('input `repo`');
    });
  }
});
