/**
 * The model providers: the real `ollama`, `@anthropic-ai/sdk` and `@google/genai` clients
 * (and our OpenAI-compatible one) against fake servers, each failure with its documented
 * code — and what the server received.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ollama } from 'ollama';
import { KowalskiError } from '../../core/index.js';
import { createProvider } from '../../agents/providers/index.js';
import type { ChatMessage, ChatRequest, ProviderName, ProviderSettings, ToolSpec } from '../../agents/types.js';
import { refusedUrl, startFakeAnthropic, startFakeOllama, startFakeOpenAI } from '../../testkit/fake-models.js';
import type { FakeModelServer, FakeScript } from '../../testkit/fake-models.js';
import { code } from '../support/errors.js';
import { startFakeGemini } from '../support/fake-gemini.js';
import { cleanups } from '../../testkit/cleanup.js';

const KEY = 'sk-ant-test-key';
const GEMINI_KEY = 'AIza-test-key';

const READ_FILE: ToolSpec = {
  name: 'read_file',
  description: 'Read a file of the tools folder.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
};

function settings(over: Partial<ProviderSettings> = {}): ProviderSettings {
  return { ollama: { host: 'http://127.0.0.1:1' }, anthropic: { apiKey: KEY }, timeoutMs: 5000, maxRetries: 3, retryBaseMs: 1, ...over };
}

interface Kind {
  name: ProviderName;
  model: string;
  start(script: FakeScript): Promise<FakeModelServer>;
  /** Settings pointing this provider at `url`. */
  at(url: string, over?: Partial<ProviderSettings>): ProviderSettings;
}

const KINDS: Kind[] = [
  {
    name: 'ollama',
    model: 'qwen2.5:7b',
    start: (script) => startFakeOllama(script),
    at: (url, over) => settings({ ollama: { host: url }, ...over }),
  },
  {
    name: 'anthropic',
    model: 'claude-sonnet-5-5',
    start: (script) => startFakeAnthropic(script, { apiKey: KEY }),
    at: (url, over) => settings({ anthropic: { apiKey: KEY, baseUrl: url }, ...over }),
  },
  {
    name: 'openai',
    model: 'qwen3-8b',
    start: (script) => startFakeOpenAI(script, { apiKey: 'lm-studio' }),
    at: (url, over) => settings({ openai: { baseUrl: url, apiKey: 'lm-studio' }, ...over }),
  },
  {
    name: 'gemini',
    model: 'gemini-2.5-flash',
    start: (script) => startFakeGemini(script, { apiKey: GEMINI_KEY }),
    at: (url, over) => settings({ gemini: { apiKey: GEMINI_KEY, baseUrl: url }, ...over }),
  },
];

const LABELS: Record<ProviderName, string> = { ollama: 'Ollama', anthropic: 'Anthropic', openai: 'the OpenAI-compatible server', gemini: 'Gemini' };

/** What each provider's server must receive and send back, in its own shapes. */
interface Wire {
  /** Of 20 input and 7 output tokens; null: unknown (an OpenAI-compatible server's price). */
  cost: number | null;
  firstCallId: string;
  /** The request of `ask()` with temperature 0.2 and maxTokens 300. */
  checkPlainRequest(sent: FakeModelServer['requests'][number]): void;
  tools: unknown;
  /** The conversation of the "earlier turns" test. */
  conversation: unknown;
}

const WIRE: Record<ProviderName, Wire> = {
  ollama: {
    cost: 0,
    firstCallId: 'call_1',
    checkPlainRequest: (sent) => {
      assert.equal(sent.body.stream, true);
      assert.equal(sent.body.model, 'qwen2.5:7b');
      assert.deepEqual(sent.body.messages, [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Say hello.' }]);
      assert.deepEqual(sent.body.options, { temperature: 0.2, num_predict: 300 });
    },
    tools: [{ type: 'function', function: { name: 'read_file', description: READ_FILE.description, parameters: READ_FILE.inputSchema } }],
    conversation: {
      messages: [
        { role: 'system', content: 'Use tools.' },
        { role: 'user', content: 'What is in sales.csv?' },
        { role: 'assistant', content: '', tool_calls: [{ function: { name: 'read_file', arguments: { path: 'sales.csv' } } }] },
        { role: 'tool', content: 'KW_ERR_FILE_NOT_FOUND: sales.csv', tool_name: 'read_file' },
      ],
    },
  },
  anthropic: {
    cost: (20 * 2 + 7 * 10) / 1e6,
    firstCallId: 'toolu_fake1',
    checkPlainRequest: (sent) => {
      assert.equal(sent.body.stream, true);
      assert.equal(sent.body.model, 'claude-sonnet-5-5');
      assert.equal(sent.body.system, 'You are terse.');
      assert.deepEqual(sent.body.messages, [{ role: 'user', content: [{ type: 'text', text: 'Say hello.' }] }]);
      assert.equal(sent.body.max_tokens, 300);
      assert.equal(sent.body.temperature, 0.2);
      assert.equal(sent.headers.authorization, `Bearer ${KEY}`, '@anthropic-ai/sdk 1.x sends the key as a bearer token');
    },
    tools: [{ name: 'read_file', description: READ_FILE.description, input_schema: READ_FILE.inputSchema }],
    conversation: {
      system: 'Use tools.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'What is in sales.csv?' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'sales.csv' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'KW_ERR_FILE_NOT_FOUND: sales.csv', is_error: true }] },
      ],
    },
  },
  openai: {
    cost: null,
    firstCallId: 'call_fake1',
    checkPlainRequest: (sent) => {
      assert.equal(sent.body.stream, true);
      assert.equal(sent.body.model, 'qwen3-8b');
      assert.deepEqual(sent.body.messages, [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Say hello.' }]);
      assert.equal(sent.body.max_tokens, 300);
      assert.equal(sent.body.temperature, 0.2);
      assert.deepEqual(sent.body.stream_options, { include_usage: true });
      assert.equal(sent.headers.authorization, 'Bearer lm-studio');
    },
    tools: [{ type: 'function', function: { name: 'read_file', description: READ_FILE.description, parameters: READ_FILE.inputSchema } }],
    conversation: {
      messages: [
        { role: 'system', content: 'Use tools.' },
        { role: 'user', content: 'What is in sales.csv?' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"sales.csv"}' } }] },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'KW_ERR_FILE_NOT_FOUND: sales.csv' },
      ],
    },
  },
  gemini: {
    cost: (20 * 0.3 + 7 * 2.5) / 1e6,
    firstCallId: 'call_1',
    checkPlainRequest: (sent) => {
      assert.equal(sent.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent', 'streamed, the model in the path');
      assert.deepEqual(sent.body.systemInstruction, { role: 'user', parts: [{ text: 'You are terse.' }] });
      assert.deepEqual(sent.body.contents, [{ role: 'user', parts: [{ text: 'Say hello.' }] }]);
      assert.deepEqual(sent.body.generationConfig, { temperature: 0.2, maxOutputTokens: 300 });
      assert.equal(sent.headers['x-goog-api-key'], GEMINI_KEY);
    },
    tools: [{ functionDeclarations: [{ name: 'read_file', description: READ_FILE.description, parametersJsonSchema: READ_FILE.inputSchema }] }],
    conversation: {
      systemInstruction: { role: 'user', parts: [{ text: 'Use tools.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'What is in sales.csv?' }] },
        // A call from another provider has no thought signature: Gemini 3 is told to skip the check.
        { role: 'model', parts: [{ functionCall: { id: 'toolu_1', name: 'read_file', args: { path: 'sales.csv' } }, thoughtSignature: 'skip_thought_signature_validator' }] },
        { role: 'user', parts: [{ functionResponse: { id: 'toolu_1', name: 'read_file', response: { error: 'KW_ERR_FILE_NOT_FOUND: sales.csv' } } }] },
      ],
    },
  },
};

/** The conversation part of a request body, in each wire's own fields. */
function conversationOf(body: any): unknown {
  if (body.contents !== undefined) return { systemInstruction: body.systemInstruction, contents: body.contents };
  return body.system === undefined ? { messages: body.messages } : { system: body.system, messages: body.messages };
}

async function serve(t: test.TestContext, kind: Kind, script: FakeScript): Promise<FakeModelServer> {
  const server = await kind.start(script);
  cleanups(t)(() => server.close());
  return server;
}

function ask(kind: Kind, over: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: kind.model,
    messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Say hello.' }],
    ...over,
  };
}

for (const kind of KINDS) {
  test(`${kind.name}: a text answer streams its pieces to onToken and reports usage, cost, stop reason and attempts`, async (t) => {
    const server = await serve(t, kind, [{ text: 'Hello there, operator.', usage: { input: 20, output: 7 } }]);
    const pieces: string[] = [];
    const answer = await createProvider({ provider: kind.name, model: kind.model }, kind.at(server.url))
      .chat(ask(kind, { onToken: (p) => pieces.push(p), temperature: 0.2, maxTokens: 300 }));
    assert.equal(answer.content, 'Hello there, operator.');
    assert.ok(pieces.length > 1, 'the text arrives in pieces');
    assert.equal(pieces.join(''), answer.content);
    assert.deepEqual(answer.toolCalls, []);
    assert.equal(answer.stopReason, 'end');
    assert.deepEqual(answer.usage, { inputTokens: 20, outputTokens: 7 });
    assert.equal(answer.costUsd, WIRE[kind.name].cost);
    assert.equal(answer.attempts, 1);
    assert.ok(answer.latencyMs >= 0);

    const [sent] = server.requests;
    assert.ok(sent !== undefined);
    assert.equal(sent.body.tools, undefined, 'no tools offered, no tools field');
    WIRE[kind.name].checkPlainRequest(sent);
  });

  test(`${kind.name}: a native tool call comes back with its name and parsed arguments; the tools field has the provider's shape`, async (t) => {
    const server = await serve(t, kind, [{ text: kind.name === 'anthropic' ? 'Reading it.' : undefined, toolCalls: [{ name: 'read_file', arguments: { path: 'sales.csv' } }] }]);
    const answer = await createProvider({ provider: kind.name, model: kind.model }, kind.at(server.url)).chat(ask(kind, { tools: [READ_FILE] }));
    assert.equal(answer.stopReason, 'tool_calls');
    assert.equal(answer.toolCalls.length, 1);
    const [call] = answer.toolCalls;
    assert.equal(call?.name, 'read_file');
    assert.deepEqual(call?.arguments, { path: 'sales.csv' });
    assert.equal(call?.argumentsError, undefined);
    assert.equal(call?.id, WIRE[kind.name].firstCallId);
    assert.deepEqual(server.requests[0]?.body.tools, WIRE[kind.name].tools);
  });

  test(`${kind.name}: malformed JSON arguments give argumentsError and the raw text, never a throw`, async (t) => {
    const raw = '{"path": "sales.csv",';
    const server = await serve(t, kind, [{ toolCalls: [{ name: 'read_file', arguments: raw }, { name: 'read_file', arguments: '["a.csv"]' }] }]);
    const answer = await createProvider({ provider: kind.name, model: kind.model }, kind.at(server.url)).chat(ask(kind, { tools: [READ_FILE] }));
    const [broken, notObject] = answer.toolCalls;
    assert.deepEqual(broken?.arguments, {});
    assert.equal(broken?.rawArguments, raw);
    assert.match(broken?.argumentsError ?? '', /not valid JSON/);
    assert.deepEqual(notObject?.arguments, {});
    assert.equal(notObject?.rawArguments, '["a.csv"]');
    assert.match(notObject?.argumentsError ?? '', /must be a JSON object, not an array/);
    if (kind.name === 'ollama') assert.deepEqual(answer.toolCalls.map((c) => c.id), ['call_1', 'call_2']);
  });

  test(`${kind.name}: the tool calls and results of earlier turns reach the server in its own shape`, async (t) => {
    const server = await serve(t, kind, [{ text: 'The file is missing.' }]);
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Use tools.' },
      { role: 'user', content: 'What is in sales.csv?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_1', name: 'read_file', arguments: { path: 'sales.csv' } }] },
      { role: 'tool', toolCallId: 'toolu_1', toolName: 'read_file', content: 'KW_ERR_FILE_NOT_FOUND: sales.csv', isError: true },
    ];
    const answer = await createProvider({ provider: kind.name, model: kind.model }, kind.at(server.url)).chat(ask(kind, { messages, tools: [READ_FILE] }));
    assert.equal(answer.content, 'The file is missing.');
    assert.deepEqual(conversationOf(server.requests[0]?.body), WIRE[kind.name].conversation);
  });

  test(`${kind.name}: cancelling mid-stream rejects with the signal's reason at once and closes the connection`, async (t) => {
    const server = await serve(t, kind, [{ text: 'word '.repeat(200), chunkDelayMs: 20 }]);
    const controller = new AbortController();
    const reason = new KowalskiError('KW_ERR_STEP_CANCELLED', 'the run was cancelled');
    let abortedAt = 0;
    const pieces: string[] = [];
    const call = createProvider({ provider: kind.name, model: kind.model }, kind.at(server.url)).chat(ask(kind, {
      signal: controller.signal,
      onToken: (p) => {
        pieces.push(p);
        if (pieces.length === 2) {
          abortedAt = performance.now();
          controller.abort(reason);
        }
      },
    }));
    await assert.rejects(call, (err) => err === reason);
    assert.ok(performance.now() - abortedAt < 200, 'rejects promptly');
    await server.clientClosed();
    assert.equal(pieces.length, 2, 'no text after the cancel');
    assert.equal(server.requests.length, 1, 'a cancel is never retried');
  });

  test(`${kind.name}: cancelling before the answer starts also closes the connection`, async (t) => {
    const controller = new AbortController();
    const reason = new KowalskiError('KW_ERR_STEP_CANCELLED', 'the run was cancelled');
    const server = await serve(t, kind, () => {
      setImmediate(() => controller.abort(reason));
      return { hang: true };
    });
    const call = createProvider({ provider: kind.name, model: kind.model }, kind.at(server.url)).chat(ask(kind, { signal: controller.signal }));
    await assert.rejects(call, (err) => err === reason);
    await server.clientClosed();
  });

  test(`${kind.name}: an onToken that throws gets its own error back, not a model error, and the connection closes`, async (t) => {
    const server = await serve(t, kind, [{ text: 'word '.repeat(200), chunkDelayMs: 20 }]);
    const mine = new Error('the websocket is gone');
    const call = createProvider({ provider: kind.name, model: kind.model }, kind.at(server.url)).chat(ask(kind, {
      onToken: () => {
        throw mine;
      },
    }));
    await assert.rejects(call, (err) => err === mine);
    await server.clientClosed();
    assert.equal(server.requests.length, 1);
  });

  test(`${kind.name}: an already-aborted signal rejects with its reason and sends nothing`, async (t) => {
    const server = await serve(t, kind, []);
    const reason = new KowalskiError('KW_ERR_STEP_CANCELLED', 'the run was cancelled');
    const call = createProvider({ provider: kind.name, model: kind.model }, kind.at(server.url)).chat(ask(kind, { signal: AbortSignal.abort(reason) }));
    await assert.rejects(call, (err) => err === reason);
    assert.equal(server.requests.length, 0);
  });

  test(`${kind.name}: 429 then success is 2 attempts, waiting as Retry-After says rather than the backoff`, async (t) => {
    const server = await serve(t, kind, [{ status: 429, retryAfter: 0, error: 'slow down' }, { text: 'ok' }]);
    const started = performance.now();
    // A 10 s backoff: only honouring Retry-After: 0 keeps this fast.
    const answer = await createProvider({ provider: kind.name, model: kind.model }, kind.at(server.url, { retryBaseMs: 10_000 })).chat(ask(kind));
    assert.ok(performance.now() - started < 3000, 'Retry-After: 0 was honoured');
    assert.equal(answer.content, 'ok');
    assert.equal(answer.attempts, 2);
    assert.equal(server.requests.length, 2);
  });

  test(`${kind.name}: 429 on every attempt is KW_ERR_MODEL_RATE_LIMITED after 1 + maxRetries attempts`, async (t) => {
    const server = await serve(t, kind, () => ({ status: 429, error: 'slow down' }));
    const provider = createProvider({ provider: kind.name, model: kind.model }, kind.at(server.url, { maxRetries: 1 }));
    await assert.rejects(provider.chat(ask(kind)), code('KW_ERR_MODEL_RATE_LIMITED', [kind.model, '429', 'all 2 attempts', 'slow down']));
    assert.equal(server.requests.length, 2);
  });

  test(`${kind.name}: 500 on every attempt is KW_ERR_MODEL_SERVER naming the model, the status and the attempts`, async (t) => {
    const server = await serve(t, kind, () => ({ status: 500, error: 'the runner crashed' }));
    const provider = createProvider({ provider: kind.name, model: kind.model }, kind.at(server.url, { maxRetries: 2 }));
    await assert.rejects(provider.chat(ask(kind)), code('KW_ERR_MODEL_SERVER', [kind.model, '500', 'all 3 attempts', 'the runner crashed']));
    assert.equal(server.requests.length, 3);
  });

  test(`${kind.name}: a refused connection is KW_ERR_MODEL_UNREACHABLE naming the host, with no retries`, async () => {
    const url = await refusedUrl();
    const provider = createProvider({ provider: kind.name, model: kind.model }, kind.at(url, { retryBaseMs: 10_000 }));
    const started = performance.now();
    const hint = kind.name === 'ollama' ? ['connection refused', 'is `ollama serve` running?'] : ['connection refused'];
    await assert.rejects(provider.chat(ask(kind)), code('KW_ERR_MODEL_UNREACHABLE', [`cannot reach ${LABELS[kind.name]} at ${url}`, ...hint]));
    assert.ok(performance.now() - started < 2000, 'fails fast: a 10 s backoff was never waited');
  });

  test(`${kind.name}: a model the server does not have is KW_ERR_MODEL_NOT_FOUND`, async (t) => {
    const server = await serve(t, kind, []);
    const provider = createProvider({ provider: kind.name, model: 'missing-model' }, kind.at(server.url));
    const hint = kind.name === 'ollama' ? ['run `ollama pull missing-model`'] : ['"missing-model"', '404'];
    await assert.rejects(provider.chat(ask(kind, { model: 'missing-model' })), code('KW_ERR_MODEL_NOT_FOUND', hint));
    assert.equal(server.requests.length, 1, 'not retried');
  });

  test(`${kind.name}: a 400 is KW_ERR_MODEL_REQUEST with the provider's own message, not retried`, async (t) => {
    const server = await serve(t, kind, [{ status: 400, error: 'prompt is too long: 210000 tokens > 200000 maximum' }]);
    const provider = createProvider({ provider: kind.name, model: kind.model }, kind.at(server.url));
    await assert.rejects(provider.chat(ask(kind)), code('KW_ERR_MODEL_REQUEST', ['prompt is too long: 210000 tokens']));
    assert.equal(server.requests.length, 1);
  });

  test(`${kind.name}: a server that never answers is KW_ERR_MODEL_TIMEOUT after timeoutMs, not retried`, async (t) => {
    const server = await serve(t, kind, [{ hang: true }]);
    const provider = createProvider({ provider: kind.name, model: kind.model }, kind.at(server.url, { timeoutMs: 150 }));
    await assert.rejects(provider.chat(ask(kind)), code('KW_ERR_MODEL_TIMEOUT', ['did not answer within 0.2 s']));
    await server.clientClosed();
    assert.equal(server.requests.length, 1);
  });

  test(`${kind.name}: a stream that goes silent is KW_ERR_MODEL_TIMEOUT and the connection is closed`, async (t) => {
    const server = await serve(t, kind, [{ text: 'one two three', chunkDelayMs: 60_000 }]);
    const provider = createProvider({ provider: kind.name, model: kind.model }, kind.at(server.url, { timeoutMs: 150 }));
    await assert.rejects(provider.chat(ask(kind)), code('KW_ERR_MODEL_TIMEOUT', [kind.model]));
    await server.clientClosed();
  });

  test(`${kind.name}: a steady stream longer than timeoutMs in total is not cut off`, async (t) => {
    const server = await serve(t, kind, [{ text: 'a b c d e f', chunkDelayMs: 30 }]);
    const provider = createProvider({ provider: kind.name, model: kind.model }, kind.at(server.url, { timeoutMs: 150 }));
    const answer = await provider.chat(ask(kind));
    assert.equal(answer.content, 'a b c d e f');
    assert.ok(answer.latencyMs > 150);
  });
}

test('anthropic: a wrong key is KW_ERR_MODEL_AUTH, not retried', async (t) => {
  const server = await startFakeAnthropic([{ text: 'never' }], { apiKey: KEY });
  cleanups(t)(() => server.close());
  const provider = createProvider({ provider: 'anthropic', model: 'claude-sonnet-5-5' }, settings({ anthropic: { apiKey: 'sk-ant-wrong', baseUrl: server.url } }));
  await assert.rejects(provider.chat(ask(KINDS[1]!)), code('KW_ERR_MODEL_AUTH', ['401', 'invalid x-api-key', 'ANTHROPIC_API_KEY']));
  assert.equal(server.requests.length, 1);
});

test('anthropic: no key is KW_ERR_MODEL_AUTH saying where to set one, before any request', async (t) => {
  const server = await startFakeAnthropic([{ text: 'never' }]);
  cleanups(t)(() => server.close());
  const provider = createProvider({ provider: 'anthropic', model: 'claude-sonnet-5-5' }, settings({ anthropic: { baseUrl: server.url } }));
  await assert.rejects(provider.chat(ask(KINDS[1]!)), code('KW_ERR_MODEL_AUTH', ['ANTHROPIC_API_KEY', 'Setup']));
  assert.equal(server.requests.length, 0);
});

test('anthropic: an overloaded 529 is retried like a 5xx', async (t) => {
  const server = await startFakeAnthropic([{ status: 529, error: 'Overloaded' }, { text: 'ok' }]);
  cleanups(t)(() => server.close());
  const provider = createProvider({ provider: 'anthropic', model: 'claude-sonnet-5-5' }, settings({ anthropic: { apiKey: KEY, baseUrl: server.url } }));
  const answer = await provider.chat(ask(KINDS[1]!));
  assert.equal(answer.attempts, 2);
});

test('anthropic: an unpriced model reports cost null (unknown), not 0', async (t) => {
  const server = await startFakeAnthropic([{ text: 'ok' }]);
  cleanups(t)(() => server.close());
  const provider = createProvider({ provider: 'anthropic', model: 'claude-future-9' }, settings({ anthropic: { apiKey: KEY, baseUrl: server.url } }));
  const answer = await provider.chat({ model: 'claude-future-9', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(answer.costUsd, null);
  assert.equal(server.requests[0]?.body.max_tokens, 4096, 'max_tokens defaults to 4096');
});

test('ollama: a model without tool support is KW_ERR_MODEL_NO_TOOLS when offered tools, and answers without them', async (t) => {
  const server = await startFakeOllama([{ text: 'fine' }], { noTools: true });
  cleanups(t)(() => server.close());
  const provider = createProvider({ provider: 'ollama', model: 'gemma:2b' }, settings({ ollama: { host: server.url } }));
  await assert.rejects(provider.chat({ model: 'gemma:2b', messages: [{ role: 'user', content: 'hi' }], tools: [READ_FILE] }),
    code('KW_ERR_MODEL_NO_TOOLS', ['gemma:2b', 'does not support tools']));
  assert.equal(server.requests.length, 1, 'not retried');
  const answer = await provider.chat({ model: 'gemma:2b', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(answer.content, 'fine');
});

test('the fake Ollama also answers non-streaming chat, /api/tags and /api/version for the real client', async (t) => {
  const server = await startFakeOllama([{ text: 'all at once', toolCalls: [{ name: 'read_file', arguments: { path: 'a' } }] }]);
  cleanups(t)(() => server.close());
  const client = new Ollama({ host: server.url });
  const answer = await client.chat({ model: 'qwen2.5:7b', messages: [{ role: 'user', content: 'hi' }], stream: false });
  assert.equal(answer.message.content, 'all at once');
  assert.deepEqual(answer.message.tool_calls, [{ function: { name: 'read_file', arguments: { path: 'a' } } }]);
  assert.ok((await client.list()).models.some((m) => m.name === 'qwen2.5:7b'));
  assert.match((await client.version()).version, /^\d+\.\d+\.\d+$/);
});

test('a list script past its end answers 500 "fake script exhausted", so a test that asks too often fails loudly', async (t) => {
  const server = await startFakeOllama([]);
  cleanups(t)(() => server.close());
  const provider = createProvider({ provider: 'ollama', model: 'qwen2.5:7b' }, settings({ ollama: { host: server.url }, maxRetries: 0 }));
  await assert.rejects(provider.chat({ model: 'qwen2.5:7b', messages: [{ role: 'user', content: 'hi' }] }),
    code('KW_ERR_MODEL_SERVER', ['fake script exhausted', 'the only attempt']));
});
