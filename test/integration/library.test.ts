/**
 * The library as a program that embeds kowalski uses it: a folder with the package in
 * its node_modules (a link, as `npm install <folder>` makes), a script that does
 * `import { openKowalski } from 'kowalski'` by name, run as a child process; the model a
 * scripted fake Ollama reached by the real `ollama` client.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openKowalski } from '../../lib/index.js';
import { perAgent, profile, writeTeam } from '../../testkit/chat.js';
import { REPO, verifyStep, writeHorde } from '../../testkit/cli.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeTurn } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';

/** tsx, located from here: the child runs in the user's folder, where `--import tsx` would not resolve. */
const TSX = import.meta.resolve('tsx');

/** The embedding program: two turns of one session, the tokens of the first, the team. */
const APP = `
import { openKowalski } from 'kowalski';
const k = await openKowalski({ dataDir: process.env.DATA, config: process.env.CONFIG });
const tokens = [];
const first = await k.chat('assistant', 'read the note', { onToken: (p) => tokens.push(p) });
const second = await k.chat('assistant', 'and again?', { sessionId: first.sessionId });
const agents = k.agents().map((a) => a.name);
await k.close();
process.stdout.write(JSON.stringify({ first, second, tokens, agents }));
`;

/** The assistant reads note.txt, then answers; a second message is answered at once. */
const script = (body: any): FakeTurn => {
  const messages: any[] = body.messages;
  if (messages.at(-1).content === 'and again?') return { text: 'Still hello.' };
  return messages.at(-1).role === 'tool' ? { text: 'The note says hello.' } : { toolCalls: [{ name: 'read_file', arguments: { path: 'note.txt' } }] };
};

function run(cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // kowalski-source: the package's TypeScript sources (tsx runs them) instead of the built dist/, same exports entry.
  const child = spawn(process.execPath, ['--conditions=kowalski-source', '--import', TSX, 'app.mjs'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('a program imports kowalski by name, chats with the assistant (a tool call, streamed tokens) and goes on with the session', async (t) => {
  const server = await startFakeOllama(script);
  cleanups(t)(() => server.close());
  const root = tempDir(t, 'kw-lib-');
  const app = path.join(root, 'app');
  const data = path.join(root, 'data');
  const files = path.join(root, 'files');
  fs.mkdirSync(path.join(app, 'node_modules'), { recursive: true });
  fs.mkdirSync(files);
  fs.writeFileSync(path.join(files, 'note.txt'), 'hello\n');
  fs.symlinkSync(REPO, path.join(app, 'node_modules', 'kowalski'), 'dir');
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', type: 'module', private: true }));
  fs.writeFileSync(path.join(app, 'app.mjs'), APP);
  writeTeam(data, { assistant: profile('assistant', 'tools = ["read_file"]') });
  const config = `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${server.url}"\n[tools]\nroot = "${files}"\n`;
  const env: NodeJS.ProcessEnv = { ...process.env, DATA: data, CONFIG: config };
  delete env.NODE_TEST_CONTEXT;
  delete env.KOWALSKI_CRASH_AT;

  const r = await run(app, env);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.first.stop, 'done');
  assert.equal(out.first.text, 'The note says hello.');
  assert.equal(out.first.turn, 1);
  assert.equal(out.first.usage.calls, 2);
  assert.equal(typeof out.first.traceId, 'number');
  assert.deepEqual(out.first.toolCalls.map((c: any) => [c.kind, c.name, c.status, c.result]), [['tool', 'read_file', 'done', 'hello\n']]);
  // The answer arrived in pieces, as the model wrote it, from the root agent.
  assert.ok(out.tokens.length > 1, `streamed in ${out.tokens.length} piece(s)`);
  assert.equal(out.tokens.map((p: any) => p.text).join(''), 'The note says hello.');
  assert.ok(out.tokens.every((p: any) => p.node === 'r' && p.agent === 'assistant'));
  // The same session, the next turn, which saw the first one.
  assert.equal(out.second.sessionId, out.first.sessionId);
  assert.equal(out.second.turn, 2);
  assert.equal(out.second.text, 'Still hello.');
  assert.deepEqual(out.second.toolCalls, []);
  const last = server.requests.at(-1)!.body.messages.map((m: any) => [m.role, m.content]);
  assert.deepEqual(last.slice(-3), [['user', 'read the note'], ['assistant', 'The note says hello.'], ['user', 'and again?']]);
  assert.ok(out.agents.includes('assistant') && out.agents.includes('researcher'), out.agents.join(', '));
});

test('openKowalski: a turn stopped by its budget goes on with continue; a session is kept to its agent; a horde runs', async (t) => {
  const server = await startFakeOllama(perAgent({
    boss: [{ toolCalls: [{ name: 'delegate_to_agent', arguments: { agent: 'helper', task: 'count' } }] }, { text: 'It is 3.' }],
    helper: [{ text: '3' }],
  }));
  cleanups(t)(() => server.close());
  const data = tempDir(t, 'kw-lib-');
  writeTeam(data, { boss: profile('boss', 'tools = ["delegate_to_agent"]\nmax_iterations = 2'), helper: profile('helper', 'tools = []') });
  const k = await openKowalski({ dataDir: data, config: `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${server.url}"\n` });
  cleanups(t)(() => k.close());

  const stopped = await k.chat('boss', 'count');
  assert.equal(stopped.stop, 'budget_exhausted');
  assert.deepEqual(stopped.undone?.map((u) => u.agent), ['boss']);
  await assert.rejects(k.chat('helper', 'hi', { sessionId: stopped.sessionId }), { code: 'KW_ERR_INPUT_INVALID', message: /is with the agent "boss", not "helper"/ });

  const done = await k.continue(stopped.sessionId, 1);
  assert.equal(done.stop, 'done');
  assert.equal(done.text, 'It is 3.');
  assert.equal(done.turn, stopped.turn);
  assert.deepEqual(done.toolCalls.map((c) => [c.kind, c.kind === 'delegation' ? c.agent : '', c.status]), [['delegation', 'helper', 'done']]);
  assert.equal(server.requests.length, 3, 'no model call made twice');

  const horde = writeHorde(path.join(data, 'hordes', 'check'), 'id = "check"\npipeline = ["ok"]', { ok: verifyStep('true') });
  const runId = await k.startRun(horde);
  assert.equal(await k.waitForRun(runId), 'awaiting_input', 'parked: the command waits for the operator');
  await k.engine.approve(runId);
  assert.equal(await k.waitForRun(runId), 'succeeded');
  assert.equal(k.engine.getRunRow(runId).provenance, 'library');
});
