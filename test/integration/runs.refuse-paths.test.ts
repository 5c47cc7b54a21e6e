/**
 * Bad paths are refused before a run exists, by the engine, so the API, the CLI and
 * triggers all refuse them alike: a `path` that does not exist, a `folder` that is a file,
 * a `file` that is a folder, a relative path, an unreadable one; the built-in
 * project-check with a missing folder (it used to park asking to approve `npm test`
 * there); a webhook trigger whose answer names a missing folder records a failed firing
 * with the reason and starts nothing. No run row, no run folder.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { testApi } from '../support/api.js';
import type { TestApi } from '../support/api.js';
import { writeHorde } from '../support/engine.js';
import { tempDir } from '../../testkit/tmp.js';

const PATHS_HORDE = `id = "paths"
pipeline = ["intake"]
[[triggers]]
name = "hook"
kind = "webhook"
input = { where = "/no/such/folder/anywhere" }`;

const INTAKE = `kind = "noop"

[[inputs]]
id = "data"
type = "path"
label = "Data"

[[inputs]]
id = "sheet"
type = "file"

[[inputs]]
id = "where"
type = "folder"
label = "Work folder"`;

async function setup(t: TestContext): Promise<{ api: TestApi; files: string; file: string }> {
  const api = await testApi(t);
  writeHorde(path.join(api.home, 'hordes', 'paths'), PATHS_HORDE, { intake: INTAKE });
  const files = fs.realpathSync(tempDir(t, 'kw-paths-'));
  const file = path.join(files, 'sales.csv');
  fs.writeFileSync(file, 'a,b\n1,2\n');
  return { api, files, file };
}

const noRuns = (api: TestApi): void => {
  assert.deepEqual(api.engine.listRuns(), [], 'no run row');
  assert.deepEqual(fs.readdirSync(api.engine.paths.runs), [], 'no run folder');
};

test('the API refuses missing, wrong-kind and relative paths with 400 KW_ERR_INPUT_INVALID naming each field; good ones start', async (t) => {
  const { api, files, file } = await setup(t);
  const cases: Array<[Record<string, string>, RegExp[]]> = [
    [{ data: path.join(files, 'gone') }, [/"data" \(Data\): \S+gone does not exist \(a file or folder is wanted\)/]],
    [{ where: file }, [/"where" \(Work folder\): \S+sales\.csv is not a folder/]],
    [{ sheet: files }, [/"sheet": \S+ is not a file/]],
    [{ data: 'sales.csv', where: path.join(files, 'nope') }, [/"data" \(Data\): "sales\.csv" must be an absolute path or start with ~\//, /"where" \(Work folder\): \S+nope does not exist \(a folder is wanted\)/]],
  ];
  for (const [input, want] of cases) {
    const r = await api.call('POST', '/api/hordes/paths/runs', { input });
    assert.equal(r.status, 400, JSON.stringify(r.json));
    assert.equal(r.json.error.code, 'KW_ERR_INPUT_INVALID');
    for (const re of want) assert.match(r.json.error.message, re);
  }
  noRuns(api);
  const ok = await api.call('POST', '/api/hordes/paths/runs', { input: { data: files, sheet: file, where: files } });
  assert.equal(ok.status, 201, JSON.stringify(ok.json));
  assert.equal(await api.engine.waitForRun(ok.json.runId), 'succeeded');
});

test('an unreadable folder is refused naming the field (skipped as root, who reads everything)', { skip: process.getuid?.() === 0 }, async (t) => {
  const { api, files } = await setup(t);
  const locked = path.join(files, 'locked');
  fs.mkdirSync(locked, { mode: 0o000 });
  t.after(() => fs.chmodSync(locked, 0o700));
  const r = await api.call('POST', '/api/hordes/paths/runs', { input: { where: locked } });
  assert.equal(r.status, 400);
  assert.match(r.json.error.message, /"where" \(Work folder\): \S+locked is not readable by kowalski/);
  noRuns(api);
});

test('project-check with a folder that does not exist is refused before any run exists; nothing asks for approval', async (t) => {
  const { api, files } = await setup(t);
  const missing = path.join(files, 'my-app');
  const r = await api.call('POST', '/api/hordes/project-check/runs', { input: { project: missing } });
  assert.equal(r.status, 400, JSON.stringify(r.json));
  assert.equal(r.json.error.code, 'KW_ERR_INPUT_INVALID');
  assert.ok(r.json.error.message.includes(`"project" (Project folder (checked where it is, not copied)): ${missing} does not exist (a folder is wanted)`), r.json.error.message);
  noRuns(api);
});

test('an input used as a whole verify_cwd must be an existing folder, whatever its type (a 1.x text field)', async (t) => {
  const { api, files } = await setup(t);
  writeHorde(path.join(api.home, 'hordes', 'cwd-text'), 'id = "cwd-text"\npipeline = ["intake", "check"]', {
    intake: 'kind = "noop"\n\n[[inputs]]\nid = "dir"\nrequired = true',
    check: 'kind = "verify"\nverify_command = "true"\nverify_cwd = "{{input.dir}}"',
  });
  const r = await api.call('POST', '/api/hordes/cwd-text/runs', { input: { dir: path.join(files, 'absent') } });
  assert.equal(r.status, 400, JSON.stringify(r.json));
  assert.match(r.json.error.message, /"dir": \S+absent does not exist \(a folder is wanted\)/);
  noRuns(api);
});

test('a webhook trigger whose answers name a missing folder starts nothing and records a failed firing with the reason', async (t) => {
  const { api } = await setup(t);
  const r = await api.call('POST', '/hooks/paths/hook', '{}');
  assert.equal(r.status, 400, JSON.stringify(r.json));
  assert.equal(r.json.error.code, 'KW_ERR_INPUT_INVALID');
  noRuns(api);
  const hook = (await api.engine.triggers.list()).find((v) => v.hordeId === 'paths' && v.name === 'hook');
  assert.equal(hook?.lastFiring?.outcome, 'failed');
  assert.match(hook?.lastFiring?.detail ?? '', /"where" \(Work folder\): \/no\/such\/folder\/anywhere does not exist/);
});
