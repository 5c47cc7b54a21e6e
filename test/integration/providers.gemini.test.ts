/**
 * What only Gemini has, with the real `@google/genai` client against the fake Gemini
 * server (the behaviour every provider shares is in providers.test.ts): function calls
 * without ids and with thought signatures through the real tool loop, its key errors,
 * models without tools, thought parts, and embeddings (Gemini's, Ollama's and the
 * OpenAI-compatible `/v1/embeddings`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import { runToolLoop } from '../../agents/index.js';
import type { ModelCallTrace, ModelRef, ProviderSettings, ToolCallingMode, ToolSpec } from '../../agents/index.js';
import { createProvider } from '../../agents/providers/index.js';
import { startFakeGemini } from '../support/fake-gemini.js';
import { fakeVector } from '../../testkit/fake-embeddings.js';
import { startFakeOllama, startFakeOpenAI } from '../../testkit/fake-models.js';
import type { FakeModelServer, FakeScript } from '../../testkit/fake-models.js';
import { code } from '../support/errors.js';
import { cleanups } from '../../testkit/cleanup.js';

const KEY = 'AIza-test-key';
const GEMINI: ModelRef = { provider: 'gemini', model: 'gemini-2.5-flash' };

const READ_FILE: ToolSpec = {
  name: 'read_file',
  description: 'Read a file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
};

function settings(url: string, over: Partial<ProviderSettings> = {}): ProviderSettings {
  return { ollama: { host: url }, anthropic: {}, gemini: { apiKey: KEY, baseUrl: url }, timeoutMs: 5000, maxRetries: 3, retryBaseMs: 1, ...over };
}

async function gemini(t: TestContext, script: FakeScript, options: { apiKey?: string; noTools?: boolean } = {}): Promise<FakeModelServer> {
  const server = await startFakeGemini(script, { apiKey: KEY, ...options });
  cleanups(t)(() => server.close());
  return server;
}

const ask = { model: GEMINI.model, messages: [{ role: 'user' as const, content: 'hi' }] };

test('gemini: a tool round trip through the tool loop: ids made up, the signature and each functionResponse go back in the next request', async (t) => {
  const server = await gemini(t, [
    { text: 'Reading both.', toolCalls: [{ name: 'read_file', arguments: { path: 'a.csv' } }, { name: 'read_file', arguments: { path: 'b.csv' } }], usage: { input: 30, output: 9 } },
    { text: 'a.csv has 3 rows, b.csv is missing.', usage: { input: 80, output: 11 } },
  ]);
  const traces: ModelCallTrace[] = [];
  const ran: string[] = [];
  const result = await runToolLoop({
    provider: createProvider(GEMINI, settings(server.url)), ref: GEMINI,
    messages: [{ role: 'system', content: 'Use tools.' }, { role: 'user', content: 'Compare a.csv and b.csv.' }],
    tools: [READ_FILE], setting: 'native',
    callTool: (_name, args) => {
      ran.push(String(args.path));
      return args.path === 'a.csv' ? Promise.resolve({ content: '3 rows' }) : Promise.reject(new KowalskiError('KW_ERR_FILE_NOT_FOUND', 'b.csv does not exist'));
    },
    signal: new AbortController().signal, maxIterations: 4, maxToolErrors: 2,
    onTrace: (trace) => traces.push(trace),
  });
  assert.equal(result.content, 'a.csv has 3 rows, b.csv is missing.');
  assert.deepEqual(ran, ['a.csv', 'b.csv']);
  assert.deepEqual(result.usage, { inputTokens: 110, outputTokens: 20 });
  assert.equal(result.costUsd, (110 * 0.3 + 20 * 2.5) / 1e6);
  assert.deepEqual(traces.map((tr) => [tr.provider, tr.model, tr.toolCalls.length]), [['gemini', 'gemini-2.5-flash', 2], ['gemini', 'gemini-2.5-flash', 0]]);

  const second = server.requests[1]?.body;
  assert.deepEqual(second.contents.slice(1), [
    { role: 'model', parts: [
      { text: 'Reading both.' },
      { functionCall: { id: 'call_1', name: 'read_file', args: { path: 'a.csv' } }, thoughtSignature: 'sig_read_file' },
      { functionCall: { id: 'call_2', name: 'read_file', args: { path: 'b.csv' } } },
    ] },
    { role: 'user', parts: [
      { functionResponse: { id: 'call_1', name: 'read_file', response: { output: '3 rows' } } },
      { functionResponse: { id: 'call_2', name: 'read_file', response: { error: second.contents[2].parts[1].functionResponse.response.error } } },
    ] },
  ], 'the signature only where Gemini gave it; both responses in the one user turn after the calls');
  assert.match(second.contents[2].parts[1].functionResponse.response.error, /KW_ERR_FILE_NOT_FOUND/);
});

test('gemini: a wrong key (400 API_KEY_INVALID) is KW_ERR_MODEL_AUTH, not retried; no key fails before any request', async (t) => {
  const server = await gemini(t, [{ text: 'never' }]);
  const wrong = createProvider(GEMINI, settings(server.url, { gemini: { apiKey: 'AIza-wrong', baseUrl: server.url } }));
  await assert.rejects(wrong.chat(ask), code('KW_ERR_MODEL_AUTH', ['API key not valid', 'GEMINI_API_KEY']));
  assert.equal(server.requests.length, 1);
  const none = createProvider(GEMINI, settings(server.url, { gemini: { baseUrl: server.url } }));
  await assert.rejects(none.chat(ask), code('KW_ERR_MODEL_AUTH', ['GEMINI_API_KEY', 'Setup']));
  const unset = createProvider(GEMINI, settings(server.url, { gemini: undefined }));
  await assert.rejects(unset.embed!({ model: 'gemini-embedding-001', texts: ['x'] }), code('KW_ERR_MODEL_AUTH', ['GEMINI_API_KEY']));
  assert.equal(server.requests.length, 1);
});

test('gemini: 503 UNAVAILABLE is retried; the wait Gemini asks for in RetryInfo is honoured', async (t) => {
  const server = await gemini(t, [{ status: 503, retryAfter: 0, error: 'The model is overloaded.' }, { status: 429, retryAfter: 0, error: 'quota' }, { text: 'ok' }]);
  const started = performance.now();
  // A 10 s backoff: only reading RetryInfo's "0s" keeps this fast.
  const answer = await createProvider(GEMINI, settings(server.url, { retryBaseMs: 10_000 })).chat(ask);
  assert.equal(answer.attempts, 3);
  assert.ok(performance.now() - started < 3000);
});

test('gemini: a model without function calling is KW_ERR_MODEL_NO_TOOLS; the tool loop in auto mode then asks in text', async (t) => {
  const server = await gemini(t, [{ text: 'Nothing to read.' }], { noTools: true });
  const ref: ModelRef = { provider: 'gemini', model: 'gemma-3-4b-it' };
  const provider = createProvider(ref, settings(server.url));
  await assert.rejects(provider.chat({ ...ask, model: ref.model, tools: [READ_FILE] }), code('KW_ERR_MODEL_NO_TOOLS', ['gemma-3-4b-it', 'Function calling is not enabled']));
  assert.equal(server.requests.length, 1, 'not retried');
  const learned: ToolCallingMode[] = [];
  const result = await runToolLoop({
    provider, ref, messages: [{ role: 'user', content: 'Read a.csv.' }], tools: [READ_FILE], setting: 'auto',
    callTool: () => Promise.reject(new Error('not called')), signal: new AbortController().signal, maxIterations: 3, maxToolErrors: 1,
    onTrace: () => {}, onLearned: (mode) => learned.push(mode),
  });
  assert.equal(result.content, 'Nothing to read.');
  assert.equal(result.mode, 'text');
  assert.deepEqual(learned, ['text']);
  assert.equal(server.requests.at(-1)?.body.tools, undefined, 'the text-mode request offers no native tools');
});

test('gemini: thought summaries are neither streamed nor part of the answer', async (t) => {
  const server = await gemini(t, [{ thought: 'The user greets me.', text: 'Hello there.' }]);
  const pieces: string[] = [];
  const answer = await createProvider(GEMINI, settings(server.url)).chat({ ...ask, onToken: (p) => pieces.push(p) });
  assert.equal(answer.content, 'Hello there.');
  assert.equal(pieces.join(''), 'Hello there.');
});

test('gemini: an unpriced model reports cost null; a 2.5 Pro prompt over 200k tokens is charged the long-prompt rate', async (t) => {
  const server = await gemini(t, [{ text: 'ok' }, { text: 'ok', usage: { input: 200_001, output: 1000 } }]);
  const future = await createProvider(GEMINI, settings(server.url)).chat({ ...ask, model: 'gemini-9-ultra' });
  assert.equal(future.costUsd, null);
  const pro = await createProvider(GEMINI, settings(server.url)).chat({ ...ask, model: 'gemini-2.5-pro' });
  assert.equal(pro.costUsd, (200_001 * 2.5 + 1000 * 15) / 1e6);
});

test('gemini: embed sends every text in one batchEmbedContents and gets the vectors back in order', async (t) => {
  const server = await gemini(t, [{ status: 429, retryAfter: 0, error: 'quota' }, {}]);
  const texts = ['the first text', 'second', 'a third one'];
  const answer = await createProvider(GEMINI, settings(server.url, { retryBaseMs: 10_000 })).embed!({ model: 'gemini-embedding-001', texts });
  assert.deepEqual(answer.vectors, texts.map(fakeVector));
  assert.equal(answer.attempts, 2, 'the 429 was retried after the RetryInfo wait (0 s), not the 10 s backoff');
  assert.deepEqual(answer.usage, { inputTokens: null });
  assert.equal(answer.costUsd, null);
  const sent = server.requests[1];
  assert.equal(sent?.path, '/v1beta/models/gemini-embedding-001:batchEmbedContents');
  assert.deepEqual(sent?.body.requests.map((r: any) => r.content.parts[0].text), texts);
});

test('gemini: embed with a missing model is KW_ERR_MODEL_NOT_FOUND; a cancel rejects with the signal\'s reason and closes the connection', async (t) => {
  const controller = new AbortController();
  const reason = new KowalskiError('KW_ERR_STEP_CANCELLED', 'the run was cancelled');
  const server = await gemini(t, () => {
    setImmediate(() => controller.abort(reason));
    return { hang: true };
  });
  const provider = createProvider(GEMINI, settings(server.url));
  await assert.rejects(provider.embed!({ model: 'missing-model', texts: ['x'] }), code('KW_ERR_MODEL_NOT_FOUND', ['"missing-model"']));
  await assert.rejects(provider.embed!({ model: 'gemini-embedding-001', texts: ['x'], signal: controller.signal }), (err) => err === reason);
  await server.clientClosed();
});

test('ollama: embed posts every text to /api/embed and reports its token count, at no cost', async (t) => {
  const server = await startFakeOllama([{ status: 503, error: 'loading model' }, { usage: { input: 7, output: 0 } }]);
  cleanups(t)(() => server.close());
  const texts = ['alpha beta', 'gamma'];
  const answer = await createProvider({ provider: 'ollama', model: 'nomic-embed-text' }, settings(server.url)).embed!({ model: 'nomic-embed-text', texts });
  assert.deepEqual(answer.vectors, texts.map(fakeVector));
  assert.deepEqual(answer.usage, { inputTokens: 7 });
  assert.equal(answer.costUsd, 0);
  assert.equal(answer.attempts, 2);
  assert.deepEqual(server.requests[1]?.body, { model: 'nomic-embed-text', input: texts });
});

test('openai: embed posts every text to {base_url}/embeddings with the key, retries a 503, and gets the vectors back in order', async (t) => {
  const server = await startFakeOpenAI([{ status: 503, error: 'loading' }, { usage: { input: 9, output: 0 } }, {}], { apiKey: 'sk-local' });
  cleanups(t)(() => server.close());
  const provider = createProvider({ provider: 'openai', model: 'text-embedding-3-small' }, settings(server.url, { openai: { baseUrl: server.url, apiKey: 'sk-local' } }));
  const texts = ['alpha beta', 'gamma', 'a third text'];
  const answer = await provider.embed!({ model: 'text-embedding-3-small', texts });
  assert.deepEqual(answer.vectors, texts.map(fakeVector));
  assert.deepEqual(answer.usage, { inputTokens: 9 });
  assert.equal(answer.costUsd, null, 'an OpenAI-compatible server has no known price');
  assert.equal(answer.attempts, 2);
  const sent = server.requests[1];
  assert.equal(sent?.path, '/v1/embeddings');
  assert.equal(sent?.headers.authorization, 'Bearer sk-local');
  assert.deepEqual(sent?.body, { model: 'text-embedding-3-small', input: texts, encoding_format: 'float' });
  await assert.rejects(provider.embed!({ model: 'missing-model', texts: ['x'] }), code('KW_ERR_MODEL_NOT_FOUND', ['"missing-model"']));
});
