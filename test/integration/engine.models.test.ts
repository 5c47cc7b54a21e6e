/**
 * Model steps through the whole engine: config.toml names the model and the fake Ollama
 * host, steps run in pool threads and in isolated children, their tool calls travel to
 * the engine's registry and back, every provider call becomes a trace row, and what
 * `auto` learns is remembered across runs.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { buildApi } from '../../api/index.js';
import { createEngine } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import { startFakeGemini } from '../support/fake-gemini.js';
import type { FakeModelServer, FakeScript } from '../../testkit/fake-models.js';
import { writeHorde } from '../support/engine.js';
import { EVERYTHING, startEverythingHttp } from '../support/mcp.js';
import { servePage } from '../support/http.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { AUTH, TEST_TOKEN } from '../support/token.js';
import { testOwnCode } from '../../testkit/dist.js';

/** Resolve once `condition` holds (checked every 5 ms; the test's own timeout bounds it). */
function until(condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (condition()) {
        clearInterval(timer);
        resolve();
      }
    }, 5);
  });
}

interface Setup {
  engine: Engine;
  home: string;
  files: string;
  server: FakeModelServer;
}

/** The default model is Ollama's qwen2.5:7b on a fake Ollama, or with `gemini`, gemini-2.5-flash on a fake Gemini. */
async function setup(t: TestContext, script: FakeScript, options: { extraConfig?: string; fetchAllow?: string[]; noModel?: boolean; gemini?: boolean } = {}): Promise<Setup> {
  const server = options.gemini === true ? await startFakeGemini(script, { apiKey: 'AIza-engine-test' }) : await startFakeOllama(script);
  cleanups(t)(() => server.close());
  const home = tempDir(t, 'kw-models-');
  const files = tempDir(t, 'kw-files-'); // outside the data dir: file tools never touch that
  const model = options.noModel === true ? '' : `[model]\ndefault = "${options.gemini === true ? 'gemini:gemini-2.5-flash' : 'ollama:qwen2.5:7b'}"\n`;
  const provider = options.gemini === true
    ? `[providers.gemini]\napi_key = "AIza-engine-test"\nbase_url = "${server.url}"\n`
    : `[providers.ollama]\nhost = "${server.url}"\n`;
  fs.writeFileSync(path.join(home, 'config.toml'), `${model}${provider}[tools]\nroot = "${files}"\n${options.extraConfig ?? ''}`);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home, ...(options.fetchAllow === undefined ? {} : { testOnlyFetchAllow: options.fetchAllow }) });
  cleanups(t)(() => engine.close());
  return { engine, home, files, server };
}

/** A horde in the data dir's hordes/: ingest, then one model step per entry of `steps`. */
async function runHorde(s: Setup, id: string, steps: Record<string, string>, input: Record<string, string> = {}): Promise<{ runId: string; state: string }> {
  const dir = path.join(s.home, 'hordes', id);
  writeHorde(dir, `id = "${id}"\npipeline = ["intake", ${Object.keys(steps).map((n) => `"${n}"`).join(', ')}]`, {
    intake: 'kind = "ingest"\n[[inputs]]\nid = "topic"\ntype = "text"',
    ...steps,
  });
  fs.mkdirSync(path.join(dir, 'prompts'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'prompts', 'p.md'), 'Write about the topic in the input.');
  const { horde } = await s.engine.resolveHorde(id);
  const runId = await s.engine.startRun(horde, input);
  return { runId, state: await s.engine.waitForRun(runId) };
}

test('the built-in url-summarizer runs end to end against a fake Ollama: page fetched, two model calls traced, documents shaped', async (t) => {
  const { port } = await servePage(t, '<html><head><title>Widgets</title></head><body><article><h1>Widgets</h1><p>Widgets are up 12% this quarter. <a href="/q3">Q3 details</a></p></article></body></html>');
  const s = await setup(t, [
    { text: '# Key points\n\n## Points\n\n- Widgets grew — "up 12% this quarter"', usage: { input: 120, output: 20 } },
    { text: '```markdown\n# Summary\n\n## Answer\n\nWidgets grew 12%.\n```', usage: { input: 80, output: 10 } },
  ], { fetchAllow: [`127.0.0.1:${port}`] });
  const { horde } = await s.engine.resolveHorde('url-summarizer');
  const runId = await s.engine.startRun(horde, { url: `http://127.0.0.1:${port}/news`, question: 'How are widgets doing?' });
  assert.equal(await s.engine.waitForRun(runId), 'succeeded');

  const view = s.engine.getRun(runId);
  const workdir = view.workdir;
  // The page reached the model, with its link made absolute, and the question too.
  const notesPrompt = s.server.requests[0]!.body.messages[1].content as string;
  assert.match(notesPrompt, /Widgets are up 12% this quarter/);
  assert.ok(notesPrompt.includes(`(http://127.0.0.1:${port}/q3)`), notesPrompt);
  assert.match(notesPrompt, /question: How are widgets doing\?/);
  // The deliver step's answer was unfenced and given its missing section.
  const summary = fs.readFileSync(path.join(workdir, 'summary.md'), 'utf8');
  assert.equal(summary, '# Summary\n\n## Answer\n\nWidgets grew 12%.\n\n## Key points\n\n_(the model wrote nothing for this section)_\n');
  const summaryStep = view.steps.find((x) => x.name === 'summary');
  assert.match(summaryStep?.summary ?? '', /^ollama:qwen2\.5:7b, 1 model call, 80 tokens in, 10 out, \$0; sections missing from the answer: Key points$/);

  const traces = s.engine.listTraces({ runId, limit: 10 });
  assert.deepEqual(traces.map((x) => [x.step, x.attempt, x.seq, x.model, x.inputTokens, x.outputTokens, x.costUsd]).reverse(), [
    ['notes', 1, 1, 'qwen2.5:7b', 120, 20, 0],
    ['summary', 1, 1, 'qwen2.5:7b', 80, 10, 0],
  ]);
  const detail = s.engine.getTrace(traces[0]!.id);
  assert.match(detail.completion, /Widgets grew 12%/);
  assert.equal(detail.messages[0]!.role, 'system');

  // The same through the API.
  const api = await buildApi(s.engine, { token: TEST_TOKEN, port: 8765 });
  cleanups(t)(() => api.app.close());
  const list = await api.app.inject({ url: `/api/traces?run=${runId}`, headers: { host: '127.0.0.1:8765', ...AUTH } });
  assert.equal(list.statusCode, 200);
  assert.equal((list.json() as { traces: unknown[] }).traces.length, 2);
  const one = await api.app.inject({ url: `/api/traces/${traces[1]!.id}`, headers: { host: '127.0.0.1:8765', ...AUTH } });
  assert.match((one.json() as { completion: string }).completion, /Key points/);
  const missing = await api.app.inject({ url: '/api/traces/999999', headers: { host: '127.0.0.1:8765', ...AUTH } });
  assert.equal(missing.statusCode, 404);
  assert.equal((missing.json() as { error: { code: string } }).error.code, 'KW_ERR_TRACE_NOT_FOUND');
});

test('a model step calls a tool through the engine, from a pool thread and from an isolated process', async (t) => {
  const script: FakeScript = (body) => {
    const last = body.messages[body.messages.length - 1];
    return last.role === 'tool'
      ? { text: `# Done\n\nThe file said: ${last.content}` }
      : { toolCalls: [{ name: 'read_file', arguments: { path: 'facts.txt' } }] };
  };
  const s = await setup(t, script);
  fs.writeFileSync(path.join(s.files, 'facts.txt'), 'the sky is green today');
  const step = (isolation: string): string => `kind = "process"\nprompt_file = "prompts/p.md"\ntools = ["read_file"]\nisolation = "${isolation}"`;
  const { runId, state } = await runHorde(s, 'tooly', { inthread: step('in_process'), inchild: step('process') }, { topic: 'sky' });
  assert.equal(state, 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));
  const workdir = s.engine.getRun(runId).workdir;
  for (const name of ['inthread', 'inchild']) {
    assert.match(fs.readFileSync(path.join(workdir, `${name}.md`), 'utf8'), /The file said: .*the sky is green today/);
  }
  const withTools = s.engine.listTraces({ runId, limit: 10 }).filter((x) => x.toolCalls > 0);
  assert.equal(withTools.length, 2);
  const call = s.engine.getTrace(withTools[0]!.id).calls[0]!;
  assert.deepEqual([call.name, call.arguments], ['read_file', { path: 'facts.txt' }]);
  assert.match(call.result, /the sky is green today/);
});

test('a gemini: model step runs end to end, in a pool thread and an isolated process: its tool call goes through the engine, each call is traced with tokens and cost', async (t) => {
  const script: FakeScript = (body) => {
    const last = body.contents[body.contents.length - 1];
    const result = last.parts[0].functionResponse?.response.output;
    return result === undefined
      ? { toolCalls: [{ name: 'read_file', arguments: { path: 'facts.txt' } }], usage: { input: 100, output: 10 } }
      : { text: `# Done\n\nThe file said: ${result}`, usage: { input: 200, output: 20 } };
  };
  const s = await setup(t, script, { gemini: true });
  fs.writeFileSync(path.join(s.files, 'facts.txt'), 'the sky is green today');
  const step = (isolation: string): string => `kind = "process"\nprompt_file = "prompts/p.md"\ntools = ["read_file"]\nisolation = "${isolation}"`;
  const { runId, state } = await runHorde(s, 'gemini-horde', { inthread: step('in_process'), inchild: step('process') }, { topic: 'sky' });
  assert.equal(state, 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));
  const view = s.engine.getRun(runId);
  for (const name of ['inthread', 'inchild']) {
    assert.match(fs.readFileSync(path.join(view.workdir, `${name}.md`), 'utf8'), /The file said: .*the sky is green today/);
    assert.match(view.steps.find((x) => x.name === name)?.summary ?? '', /^gemini:gemini-2\.5-flash, 2 model calls, 300 tokens in, 30 out, \$0\.0002, 1 tool call$/);
  }
  assert.ok(s.server.requests.every((r) => r.path === '/v1beta/models/gemini-2.5-flash:streamGenerateContent' && r.headers['x-goog-api-key'] === 'AIza-engine-test'));
  const traces = s.engine.listTraces({ runId, limit: 10 }).reverse();
  assert.deepEqual(traces.map((x) => [x.step, x.seq, x.provider, x.model, x.inputTokens, x.outputTokens, x.costUsd, x.attempts, x.toolCalls]).sort(), [
    ['inchild', 1, 'gemini', 'gemini-2.5-flash', 100, 10, (100 * 0.3 + 10 * 2.5) / 1e6, 1, 1],
    ['inchild', 2, 'gemini', 'gemini-2.5-flash', 200, 20, (200 * 0.3 + 20 * 2.5) / 1e6, 1, 0],
    ['inthread', 1, 'gemini', 'gemini-2.5-flash', 100, 10, (100 * 0.3 + 10 * 2.5) / 1e6, 1, 1],
    ['inthread', 2, 'gemini', 'gemini-2.5-flash', 200, 20, (200 * 0.3 + 20 * 2.5) / 1e6, 1, 0],
  ]);
  const call = s.engine.getTrace(traces.find((x) => x.toolCalls > 0)!.id).calls[0]!;
  assert.deepEqual([call.name, call.arguments], ['read_file', { path: 'facts.txt' }]);
  assert.match(call.result, /the sky is green today/);
});

test('a step listing a tool that nothing provides fails naming it, before any model call', async (t) => {
  const s = await setup(t, []);
  const { runId, state } = await runHorde(s, 'ghost', { think: 'kind = "process"\nprompt_file = "prompts/p.md"\ntools = ["read_file", "crm.lookup"]' });
  assert.equal(state, 'failed');
  const think = s.engine.getRun(runId).steps.find((x) => x.name === 'think');
  assert.equal(think?.error?.code, 'KW_ERR_TOOL_UNKNOWN');
  assert.match(think?.error?.message ?? '', /no tool provides "crm\.lookup" \(built-in tools: web_fetch, web_search, list_dir, read_file, write_file, list_notes, read_note, search_notes, create_note, append_note, recall, remember, recent_turns, rookery_example_draft, rookery_get_draft, rookery_set_horde, rookery_set_step, rookery_remove_step, rookery_set_edges, rookery_validate_draft, rookery_give_birth, run_horde; no MCP servers are configured\)/);
  assert.equal(s.server.requests.length, 0);
});

test('an ask step with no question in the form asks the horde\'s default_question', async (t) => {
  const s = await setup(t, [{ text: '# Answer\n\nParis.' }]);
  const dir = path.join(s.home, 'hordes', 'asker');
  writeHorde(dir, 'id = "asker"\npipeline = ["intake", "answer"]\ndefault_question = "What is the capital of France?"', {
    intake: 'kind = "ingest"\n[[inputs]]\nid = "topic"\ntype = "text"',
    answer: 'kind = "ask"',
  });
  const { horde } = await s.engine.resolveHorde('asker');
  const runId = await s.engine.startRun(horde, { topic: 'geography' });
  assert.equal(await s.engine.waitForRun(runId), 'succeeded', JSON.stringify(s.engine.getRun(runId).steps.map((x) => x.error)));
  const prompt = s.server.requests[0]!.body.messages[1].content as string;
  assert.match(prompt, /## Question\n\nWhat is the capital of France\?/);
});

test('no model anywhere: the model step fails with KW_ERR_NO_MODEL and says what to set', async (t) => {
  const s = await setup(t, [], { noModel: true });
  const { runId, state } = await runHorde(s, 'nomodel', { think: 'kind = "process"\nprompt_file = "prompts/p.md"' });
  assert.equal(state, 'failed');
  const think = s.engine.getRun(runId).steps.find((x) => x.name === 'think');
  assert.equal(think?.error?.code, 'KW_ERR_NO_MODEL');
  assert.match(think?.error?.message ?? '', /set \[model\] default in config\.toml/);
});

test('auto tool calling remembers a model that writes its calls as text: the next run asks it in text from the start', async (t) => {
  const script: FakeScript = (body) => {
    const last = body.messages[body.messages.length - 1];
    return String(last.content).startsWith('<tool_result')
      ? { text: '# Answer\n\ndone' }
      : { text: '<tool_call>{"name": "list_dir", "arguments": {}}</tool_call>' };
  };
  const s = await setup(t, script);
  const step = { look: 'kind = "process"\nprompt_file = "prompts/p.md"\ntools = ["list_dir"]' };
  assert.equal((await runHorde(s, 'learner', step)).state, 'succeeded');
  assert.ok(Array.isArray(s.server.requests[0]!.body.tools), 'the first run offers tools natively');
  const before = s.server.requests.length;
  assert.equal((await runHorde(s, 'learner2', step)).state, 'succeeded');
  const next = s.server.requests[before]!.body;
  assert.equal(next.tools, undefined, 'the second run starts in text');
  assert.match(next.messages[0].content, /<tool_call>/);
});

test('a model set to text in [model.tool_calling_by_model] is asked in text from its first call', async (t) => {
  const s = await setup(t, [{ text: '# Answer\n\nno tools needed' }], { extraConfig: '[model.tool_calling_by_model]\n"ollama:qwen2.5:7b" = "text"\n' });
  const { state } = await runHorde(s, 'textual', { look: 'kind = "process"\nprompt_file = "prompts/p.md"\ntools = ["list_dir"]' });
  assert.equal(state, 'succeeded');
  const first = s.server.requests[0]!.body;
  assert.equal(first.tools, undefined);
  assert.match(first.messages[0].content, /- list_dir: /);
});

test('cancelling a run mid-stream stops the model call at once', async (t) => {
  const s = await setup(t, [{ text: 'a b c d e f g h i j k l m n o p q r s t u v w x y z', chunkDelayMs: 300 }]);
  const dir = path.join(s.home, 'hordes', 'slow');
  writeHorde(dir, 'id = "slow"\npipeline = ["think"]', { think: 'kind = "process"' });
  const { horde } = await s.engine.resolveHorde('slow');
  const runId = await s.engine.startRun(horde, {});
  await until(() => s.server.requests.length > 0);
  const started = Date.now();
  await s.engine.cancel(runId, { reason: 'changed my mind' });
  assert.equal(await s.engine.waitForRun(runId), 'cancelled');
  await s.server.clientClosed();
  assert.ok(Date.now() - started < 3000, `cancelled within the stop grace, took ${Date.now() - started} ms`);
});

test('a model step calls MCP tools over stdio and Streamable HTTP (the reference everything server), listed like any tool', async (t) => {
  const url = await startEverythingHttp(t);
  const script: FakeScript = (body) => {
    const results = body.messages.filter((m: { role: string }) => m.role === 'tool');
    if (results.length === 0) return { toolCalls: [{ name: 'local__echo', arguments: { message: 'over stdio' } }] };
    if (results.length === 1) return { toolCalls: [{ name: 'remote__get-sum', arguments: { a: 2, b: 40 } }] };
    return { text: `# Tools\n\n${results.map((m: { content: string }) => m.content).join('\n')}` };
  };
  const config = [
    '[[mcp.servers]]', 'name = "local"', `command = ${JSON.stringify(process.execPath)}`, `args = [${JSON.stringify(EVERYTHING)}, "stdio"]`,
    '[[mcp.servers]]', 'name = "remote"', `url = "${url}"`, '',
  ].join('\n');
  const s = await setup(t, script, { extraConfig: config });
  const { runId, state } = await runHorde(s, 'mcp-user', { use: 'kind = "process"\nprompt_file = "prompts/p.md"\ntools = ["local.echo", "remote.get-sum"]' });
  assert.equal(state, 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));
  const doc = fs.readFileSync(path.join(s.engine.getRun(runId).workdir, 'use.md'), 'utf8');
  assert.match(doc, /Echo: over stdio/);
  assert.match(doc, /42/);
  // Offered with the servers' own schemas, under names every provider accepts (`server__tool`, mapped back).
  const offered = s.server.requests[0]!.body.tools.map((x: { function: { name: string; parameters: { properties: object } } }) => [x.function.name, Object.keys(x.function.parameters.properties)]);
  assert.deepEqual(offered, [['local__echo', ['message']], ['remote__get-sum', ['a', 'b']]]);
  const traced = s.engine.listTraces({ runId, limit: 10 }).reverse().flatMap((x) => s.engine.getTrace(x.id).calls.map((c) => c.name));
  assert.deepEqual(traced, ['local.echo', 'remote.get-sum']);
});
