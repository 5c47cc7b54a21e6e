/**
 * 1.x hordes run where 1.x ran them, through the real engine, the API (inject), real
 * commands and the scripted fake Ollama: the project folder of `project_path` (verify runs
 * there, `verify_cwd` is relative to it, the approval shows it), `fs_tool` confined to it,
 * an unknown input type, an app.md-only folder, an absolute workdir, a placeholder
 * delivery_root_rel and config_on_startup. The hordes are fixtures written the 1.x way
 * (test/fixtures/hordes/v1-*).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { buildApi } from '../../api/index.js';
import { exportBundle } from '../../bundles/index.js';
import { createEngine } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import { FIXTURES } from '../fixtures/hordes/temp-horde.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer, FakeScript } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { AUTH, TEST_TOKEN } from '../support/token.js';
import { testOwnCode } from '../../testkit/dist.js';

interface Setup {
  engine: Engine;
  home: string;
  server: FakeModelServer;
  call(method: 'GET' | 'POST', url: string, body?: unknown): Promise<{ status: number; json: any }>;
  /** inject() with a raw body of its own content type. */
  inject(method: 'GET' | 'POST', url: string, payload: Uint8Array, contentType: string): Promise<{ status: number; json: any }>;
}

/** An engine over a data folder holding the named fixtures in hordes/, the fake Ollama as its model, and its API. */
async function setup(t: TestContext, fixtures: string[], script: FakeScript = []): Promise<Setup> {
  const server = await startFakeOllama(script);
  cleanups(t)(() => server.close());
  const home = fs.realpathSync(tempDir(t, 'kw-v1-'));
  const files = fs.realpathSync(tempDir(t, 'kw-v1-files-'));
  for (const name of fixtures) fs.cpSync(path.join(FIXTURES, name), path.join(home, 'hordes', name), { recursive: true });
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\ntool_calling = "native"\n[providers.ollama]\nhost = "${server.url}"\n[tools]\nroot = "${files}"\n`);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  cleanups(t)(() => engine.close());
  const api = await buildApi(engine, { token: TEST_TOKEN, port: 8765 });
  cleanups(t)(() => api.app.close());
  return {
    engine, home, server,
    async call(method, url, body) {
      const res = await api.app.inject({
        method, url,
        headers: { host: '127.0.0.1:8765', ...AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
      return { status: res.statusCode, json: JSON.parse(res.body) };
    },
    async inject(method, url, payload, contentType) {
      const res = await api.app.inject({ method, url, headers: { host: '127.0.0.1:8765', ...AUTH, 'content-type': contentType }, payload: Buffer.from(payload) });
      return { status: res.statusCode, json: JSON.parse(res.body) };
    },
  };
}

async function startRun(s: Setup, horde: string, input: Record<string, string>): Promise<string> {
  const started = await s.call('POST', `/api/hordes/${horde}/runs`, { input });
  assert.equal(started.status, 201, JSON.stringify(started.json));
  return started.json.runId as string;
}

const runDir = (s: Setup, runId: string): string => path.join(s.home, 'runs', runId);

test('a 1.x coder horde: verify runs in the project folder (asked first, showing it), fails, loops back to fix, which writes the fix into the project through fs_tool, and passes', async (t) => {
  const project = fs.realpathSync(tempDir(t, 'kw-v1-project-'));
  fs.mkdirSync(path.join(project, 'app'));
  fs.writeFileSync(path.join(project, 'app', 'README.md'), '# app\n');
  const s = await setup(t, ['v1-coder'], [
    // fix, attempt 1: looks around (1.x argument names) but changes nothing.
    { toolCalls: [{ name: 'get_file_first_lines', arguments: { path: 'app/README.md', num_lines: 1 } }] },
    { text: '# Fix\n\nI read app/README.md; nothing changed yet.' },
    // fix, attempt 2 (after the failed check): writes the fix, once by an absolute path inside the project as 1.x allowed.
    { toolCalls: [{ name: 'mkdir', arguments: { path: 'app' } }, { name: 'write_file', arguments: { path: path.join(project, 'app', 'ok.txt'), content: 'fixed\n' } }] },
    { text: '# Fix\n\nWrote app/ok.txt.' },
    // deliver
    { text: '# Coder handoff\n\nThe check passes now.' },
  ]);

  const detail = await s.call('GET', '/api/hordes/v1-coder');
  assert.equal(detail.status, 200);
  assert.deepEqual(detail.json.problems, [], 'a 1.x coder horde loads without a problem');

  const runId = await startRun(s, 'v1-coder', { project_path: project, task_spec: 'Make the check pass' });
  assert.equal(await s.engine.waitForRun(runId), 'awaiting_input');
  const parked = await s.call('GET', `/api/runs/${runId}`);
  assert.equal(parked.json.pending.length, 1);
  assert.equal(parked.json.pending[0].step, 'test-verify');
  assert.equal(parked.json.pending[0].command.cwd, path.join(project, 'app'), 'the approval shows the project folder the check runs in');
  assert.deepEqual(parked.json.pending[0].command.argv, ['/bin/sh', '-c', 'test -f ok.txt && grep -q fixed ok.txt']);
  assert.equal(fs.existsSync(path.join(project, 'app', 'ok.txt')), false);

  const approved = await s.call('POST', `/api/runs/${runId}/approve`, { step: 'test-verify' });
  assert.equal(approved.status, 200, JSON.stringify(approved.json));
  assert.equal(await s.engine.waitForRun(runId), 'succeeded');

  assert.equal(fs.readFileSync(path.join(project, 'app', 'ok.txt'), 'utf8'), 'fixed\n', 'the fix was written into the project, not the tools folder');
  const view = s.engine.getRun(runId);
  const attempts = view.steps.map((st) => [st.name, st.attempt]);
  assert.deepEqual(attempts, [['ingest', 1], ['fix', 2], ['test-verify', 2], ['deliver', 1]]);
  const first = fs.readFileSync(path.join(runDir(s, runId), 'attempts', 'test-verify', '1', 'debug', 'stage-test-verify.md'), 'utf8');
  assert.match(first, /\*\*FAIL\*\*/);
  assert.ok(first.includes(`- cwd: \`${path.join(project, 'app')}\``), first);
  const last = fs.readFileSync(path.join(runDir(s, runId), 'output', 'debug', 'stage-test-verify.md'), 'utf8');
  assert.match(last, /\*\*PASS\*\*/);
  assert.match(fs.readFileSync(path.join(runDir(s, runId), 'output', 'HANDOFF.md'), 'utf8'), /The check passes now/);

  // The fix step was offered 1.x's fs_tool set, and the first call read the project's file.
  const chats = s.server.requests.filter((r) => r.path === '/api/chat');
  assert.deepEqual(chats[0]!.body.tools.map((tool: any) => tool.function.name), ['list_dir', 'read_file', 'get_file', 'write_file', 'mkdir', 'get_file_first_lines']);
  const toolAnswer = chats[1]!.body.messages.find((m: any) => m.role === 'tool');
  assert.equal(toolAnswer.content, '# app');
  assert.equal(chats[4]!.body.tools, undefined, 'deliver lists no tools and is offered none');
});

test('fs_tool stays inside the project folder: .., absolute paths outside it and a symlink out are refused back to the model', async (t) => {
  const project = fs.realpathSync(tempDir(t, 'kw-v1-project-'));
  const outside = fs.realpathSync(tempDir(t, 'kw-v1-outside-'));
  fs.mkdirSync(path.join(project, 'app'));
  fs.symlinkSync(outside, path.join(project, 'app', 'out'));
  const s = await setup(t, ['v1-coder'], (body: any) => {
    const tools = body.messages.filter((m: any) => m.role === 'tool').length;
    if (body.tools === undefined) return { text: '# Handoff' };
    if (tools === 0) {
      return { toolCalls: [
        { name: 'write_file', arguments: { path: '../escape.txt', content: 'x' } },
        { name: 'write_file', arguments: { path: path.join(outside, 'abs.txt'), content: 'x' } },
        { name: 'write_file', arguments: { path: 'app/out/link.txt', content: 'x' } },
        { name: 'write_file', arguments: { path: 'app/ok.txt', content: 'fixed' } },
      ] };
    }
    return { text: '# Fix\n\ndone' };
  });
  const runId = await startRun(s, 'v1-coder', { project_path: project, task_spec: 'x' });
  assert.equal(await s.engine.waitForRun(runId), 'awaiting_input');
  await s.call('POST', `/api/runs/${runId}/approve`, { step: 'test-verify' });
  assert.equal(await s.engine.waitForRun(runId), 'succeeded');
  assert.deepEqual(fs.readdirSync(outside), [], 'nothing was written outside the project');
  assert.equal(fs.existsSync(path.join(path.dirname(project), 'escape.txt')), false);
  const answers = s.server.requests.filter((r) => r.path === '/api/chat')[1]!.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content as string);
  assert.equal(answers.length, 4);
  for (const refused of answers.slice(0, 3)) assert.match(refused, /project folder/);
  assert.match(answers[3]!, /Wrote 5 bytes to "app\/ok\.txt"/);
});

test('a project_path that is not a folder is refused before a run exists (400 KW_ERR_INPUT_INVALID naming the input); the verify step would not be asked', async (t) => {
  const file = path.join(fs.realpathSync(tempDir(t, 'kw-v1-file-')), 'notes.txt');
  fs.writeFileSync(file, 'a file, not a project folder');
  const s = await setup(t, ['v1-coder'], [{ text: '# Fix\n\nnothing' }]);
  for (const [value, why] of [[file, 'is not a folder'], [`${file}-gone`, 'does not exist']] as const) {
    const refused = await s.call('POST', '/api/hordes/v1-coder/runs', { input: { project_path: value, task_spec: 'x' } });
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error.code, 'KW_ERR_INPUT_INVALID');
    assert.ok(refused.json.error.message.includes(`"project_path"`), refused.json.error.message);
    assert.ok(refused.json.error.message.includes(`${value} ${why}`), refused.json.error.message);
  }
  assert.equal(s.engine.listRuns().length, 0, 'no run was created');
  assert.equal(s.server.requests.length, 0, 'no model was called');
});

test('an input of type "number" (1.x) loads with a warning naming file, key and line, and runs as text', async (t) => {
  const s = await setup(t, ['v1-number-input']);
  const detail = await s.call('GET', '/api/hordes/v1-number-input');
  assert.equal(detail.json.valid, true);
  assert.deepEqual(detail.json.problems.map((p: any) => [p.code, p.file, p.key, p.line]), [['KW_WARN_INPUT_TYPE_UNKNOWN', 'agents/intake.md', 'inputs[0].type', 8]]);
  assert.equal(detail.json.inputs[0].type, 'text');
  const runId = await startRun(s, 'v1-number-input', { count: '3' });
  assert.equal(await s.engine.waitForRun(runId), 'succeeded');
  const low = await startRun(s, 'v1-number-input', { count: '1' });
  assert.equal(await s.engine.waitForRun(low), 'failed', 'the value reaches the command as written');
});

test('an app.md-only folder (1.x) is in the catalog with a warning, and runs', async (t) => {
  const s = await setup(t, ['v1-app-md']);
  const list = await s.call('GET', '/api/hordes');
  const entry = list.json.hordes.find((h: any) => h.id === 'v1-app-md');
  assert.ok(entry, 'the catalog finds an app.md folder');
  assert.equal(entry.valid, true);
  assert.deepEqual(entry.problems.map((p: any) => [p.code, p.file]), [['KW_WARN_MANIFEST_APP_MD', 'app.md']]);
  const runId = await startRun(s, 'v1-app-md', { topic: 'penguins' });
  assert.equal(await s.engine.waitForRun(runId), 'succeeded');
  assert.equal(fs.readFileSync(path.join(runDir(s, runId), 'output', 'topic.txt'), 'utf8'), 'penguins');
});

test('an absolute workdir (1.x) is a warning: the run works in its own output folder and writes nothing to the absolute one', async (t) => {
  const written = '/tmp/kowalski-v1-abs-workdir-fixture/out';
  fs.rmSync(path.dirname(written), { recursive: true, force: true });
  const s = await setup(t, ['v1-abs-workdir']);
  const detail = await s.call('GET', '/api/hordes/v1-abs-workdir');
  assert.deepEqual(detail.json.problems.map((p: any) => [p.code, p.file, p.key, p.line]), [['KW_WARN_WORKDIR_ABSOLUTE', 'horde.md', 'workdir', 6]]);
  const runId = await startRun(s, 'v1-abs-workdir', {});
  assert.equal(await s.engine.waitForRun(runId), 'succeeded');
  assert.equal(fs.readFileSync(path.join(runDir(s, runId), 'output', 'made.txt'), 'utf8'), 'made\n');
  assert.equal(fs.existsSync(path.dirname(written)), false);
});

test('a placeholder delivery_root_rel (1.x "String") falls back to HANDOFF.md with a warning', async (t) => {
  const s = await setup(t, ['v1-delivery']);
  const detail = await s.call('GET', '/api/hordes/v1-delivery');
  assert.deepEqual(detail.json.problems.map((p: any) => [p.code, p.file, p.key, p.line]), [['KW_WARN_DELIVERY_FALLBACK', 'horde.md', 'delivery_root_rel', 6]]);
  const { horde } = await s.engine.resolveHorde('v1-delivery');
  assert.equal(horde.deliveryRootRel, 'HANDOFF.md');
  const runId = await startRun(s, 'v1-delivery', {});
  assert.equal(await s.engine.waitForRun(runId), 'succeeded');
  assert.equal(fs.readFileSync(path.join(runDir(s, runId), 'output', horde.deliveryRootRel), 'utf8'), '# Done\n');
});

test('clean_on_startup / config_on_startup (1.x): every run starts in a clean workdir, also after a restart', async (t) => {
  const s = await setup(t, ['v1-clean-on-startup']);
  const detail = await s.call('GET', '/api/hordes/v1-clean-on-startup');
  assert.deepEqual(detail.json.problems, [], 'the key is known to 1.x and kept, never a problem');
  const first = await startRun(s, 'v1-clean-on-startup', {});
  assert.equal(await s.engine.waitForRun(first), 'succeeded');
  const second = await startRun(s, 'v1-clean-on-startup', {});
  assert.equal(await s.engine.waitForRun(second), 'succeeded', "the second run does not see the first run's debug/leftover.md");
  await s.engine.close();
  const again = await createEngine({ ownCode: testOwnCode(), dataDir: s.home });
  cleanups(t)(() => again.close());
  const { horde } = await again.resolveHorde('v1-clean-on-startup');
  const third = await again.startRun(horde, {});
  assert.equal(await again.waitForRun(third), 'succeeded');
  for (const id of [first, second, third]) assert.equal(fs.readFileSync(path.join(runDir(s, id), 'output', 'debug', 'leftover.md'), 'utf8'), 'left\n');
});

test('an app.md-only horde goes through a bundle: export, review, install under a new id (its app.md rewritten), and it runs', async (t) => {
  const s = await setup(t, ['v1-app-md']);
  const bundle = await exportBundle(path.join(s.home, 'hordes', 'v1-app-md'), 'v1-app-md', { knownKinds: new Set(s.engine.kinds.keys()) });
  const review = await s.inject('POST', '/api/bundles', bundle, 'application/zip');
  assert.equal(review.status, 201, JSON.stringify(review.json));
  assert.equal(review.json.horde.id, 'v1-app-md');
  assert.deepEqual(review.json.manifest.files.map((f: any) => f.path), ['agents/check.md', 'agents/intake.md', 'app.md']);
  const installed = await s.call('POST', `/api/bundles/${review.json.reviewId}/install`, { id: 'v1-app-copy' });
  assert.equal(installed.status, 201, JSON.stringify(installed.json));
  const copy = path.join(s.home, 'hordes', 'v1-app-copy');
  assert.equal(fs.existsSync(path.join(copy, 'horde.md')), false);
  assert.match(fs.readFileSync(path.join(copy, 'app.md'), 'utf8'), /^id = "v1-app-copy"$/m);
  const runId = await startRun(s, 'v1-app-copy', { topic: 'imported' });
  assert.equal(await s.engine.waitForRun(runId), 'awaiting_input', 'an imported horde always asks before a command');
  await s.call('POST', `/api/runs/${runId}/approve`, { step: 'check' });
  assert.equal(await s.engine.waitForRun(runId), 'succeeded');
});
