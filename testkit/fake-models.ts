/**
 * Fake model servers: real HTTP servers on 127.0.0.1 that speak enough of Ollama's and
 * Anthropic's APIs for the real clients (`ollama`, `@anthropic-ai/sdk`), scripted per test
 * (Gemini's is in test/support/fake-gemini.ts, on the same server and script). No model weights exist
 * here; this is how the model layer is tested for real.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { fakeVector } from './fake-embeddings.js';
import type { FakeEmbed } from './fake-embeddings.js';
import { anthropicToolNameRefusal, openaiToolNameRefusal } from './tool-name-rules.js';

export interface FakeTurn {
  /** Assistant text, streamed in pieces (a word and its trailing space each). */
  text?: string;
  /** A string is sent raw (malformed JSON). */
  toolCalls?: Array<{ name: string; arguments: Record<string, unknown> | string }>;
  /** Answer with this HTTP error status instead (429, 500, 404, 400…). */
  status?: number;
  /** The error message, in the provider's own error body shape. */
  error?: string;
  /** Seconds, sent as Retry-After with a status. */
  retryAfter?: number;
  /** Delay between streamed pieces (a slow stream); also before the first piece. */
  chunkDelayMs?: number;
  /** The answer waits for this before its first piece: a call kept in flight until the test lets it go. */
  heldUntil?: Promise<void>;
  /** Accept the request and never answer. */
  hang?: boolean;
  /** Default: input 12, output one per streamed piece. */
  usage?: { input: number; output: number };
  /** Gemini only: a thought summary streamed before the text, never part of the answer. */
  thought?: string;
}

export type FakeScript = FakeTurn[] | ((body: any, index: number) => FakeTurn);

export interface FakeModelServer {
  /** Ollama host / Anthropic baseURL. */
  url: string;
  /** Every request, parsed; `answered` once its response was written to the end (crash tests' ledger of calls that finished). */
  requests: Array<{ path: string; headers: Record<string, string | string[] | undefined>; body: any; answered: boolean }>;
  /** Resolves when the server has seen the client close a connection mid-answer (cancellation tests). */
  clientClosed(): Promise<void>;
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: Answer, body: any) => Promise<void> | void;

/** The response of one request, with a signal aborted when the client goes away before the end. */
export interface Answer {
  res: http.ServerResponse;
  gone: AbortSignal;
}

const EXHAUSTED: FakeTurn = { status: 500, error: 'fake script exhausted' };

export function pieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

export function scriptReader(script: FakeScript): (body: any) => FakeTurn {
  let index = 0;
  return (body) => {
    const i = index++;
    if (typeof script === 'function') return script(body, i);
    return script[i] ?? EXHAUSTED;
  };
}

export function usageOf(turn: FakeTurn, streamed: number): { input: number; output: number } {
  return turn.usage ?? { input: 12, output: Math.max(1, streamed) };
}

export function sendJson(res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(value));
}

function retryHeaders(turn: FakeTurn): Record<string, string> {
  return turn.retryAfter === undefined ? {} : { 'retry-after': String(turn.retryAfter) };
}

/** Waits for the turn's hold, if any, then its chunk delay; false when the client has gone meanwhile. */
export async function pause(turn: FakeTurn, gone: AbortSignal): Promise<boolean> {
  if (gone.aborted) return false;
  if (turn.heldUntil !== undefined && !(await released(turn.heldUntil, gone))) return false;
  if (turn.chunkDelayMs === undefined || turn.chunkDelayMs <= 0) return true;
  try {
    await delay(turn.chunkDelayMs, undefined, { signal: gone });
    return true;
  } catch {
    return false;
  }
}

function released(held: Promise<void>, gone: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const onGone = (): void => resolve(false);
    gone.addEventListener('abort', onGone, { once: true });
    void held.then(() => {
      gone.removeEventListener('abort', onGone);
      resolve(true);
    });
  });
}

export async function startServer(handler: Handler): Promise<FakeModelServer> {
  const requests: FakeModelServer['requests'] = [];
  let closedMidAnswer!: () => void;
  const closed = new Promise<void>((resolve) => (closedMidAnswer = resolve));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: any;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const entry = { path, headers: { ...req.headers }, body, answered: false };
      requests.push(entry);
      const controller = new AbortController();
      res.on('finish', () => {
        entry.answered = true;
      });
      res.on('close', () => {
        if (!res.writableFinished) {
          controller.abort();
          closedMidAnswer();
        }
      });
      Promise.resolve(handler(req, { res, gone: controller.signal }, body)).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: `fake server failed: ${String(err)}` });
        else res.destroy();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    clientClosed: () => closed,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

/** An http://127.0.0.1:<port> where nothing listens: bound, then closed. */
export async function refusedUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

// ---------------------------------------------------------------- Ollama

const OLLAMA_MODELS = ['qwen2.5:7b', 'llama3.2:3b'];

async function ollamaChat(turn: FakeTurn, body: any, { res, gone }: Answer): Promise<void> {
  const model = String(body.model);
  const base = () => ({ model, created_at: new Date().toISOString() });
  const toolCalls = (turn.toolCalls ?? []).map((c) => ({ function: { name: c.name, arguments: c.arguments } }));
  const text = turn.text ?? '';
  const parts = pieces(text);
  const usage = usageOf(turn, parts.length + toolCalls.length);
  const done = {
    done: true,
    done_reason: 'stop',
    total_duration: 1_000_000,
    load_duration: 1000,
    prompt_eval_count: usage.input,
    prompt_eval_duration: 1000,
    eval_count: usage.output,
    eval_duration: 1000,
  };
  if (body.stream === false) {
    if (!(await pause(turn, gone))) return;
    const message = { role: 'assistant', content: text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
    sendJson(res, 200, { ...base(), message, ...done });
    return;
  }
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  const line = (v: unknown): void => {
    res.write(JSON.stringify(v) + '\n');
  };
  for (const piece of parts) {
    if (!(await pause(turn, gone))) return;
    line({ ...base(), message: { role: 'assistant', content: piece }, done: false });
  }
  if (toolCalls.length > 0) {
    if (!(await pause(turn, gone))) return;
    line({ ...base(), message: { role: 'assistant', content: '', tool_calls: toolCalls }, done: false });
  }
  if (!(await pause(turn, gone))) return;
  line({ ...base(), message: { role: 'assistant', content: '' }, ...done });
  res.end();
}

/**
 * `POST /api/chat` (NDJSON stream, or one JSON with `stream: false`), `POST /api/embed`
 * (`options.embed` of each input, default `fakeVector`; a turn's status, `heldUntil` or `usage.input`),
 * `GET /api/tags`, `GET /api/version`. The model `missing-model` is not pulled (404); with
 * `noTools`, a request offering tools gets Ollama's 400 "… does not support tools". Neither uses a turn.
 */
export function startFakeOllama(script: FakeScript, options: { noTools?: boolean; embed?: FakeEmbed } = {}): Promise<FakeModelServer> {
  const embed = options.embed ?? fakeVector;
  const next = scriptReader(script);
  return startServer(async (req, answer, body) => {
    const { res } = answer;
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/api/version') return sendJson(res, 200, { version: '0.12.6' });
    if (req.method === 'GET' && path === '/api/tags') {
      return sendJson(res, 200, {
        models: OLLAMA_MODELS.map((name) => ({
          name, model: name, modified_at: '2025-01-01T00:00:00Z', size: 4_683_087_332, digest: 'f'.repeat(64),
          details: { format: 'gguf', family: 'qwen2', parameter_size: '7.6B', quantization_level: 'Q4_K_M' },
        })),
      });
    }
    if (req.method !== 'POST' || (path !== '/api/chat' && path !== '/api/embed')) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('404 page not found');
      return;
    }
    if (body?.model === 'missing-model') return sendJson(res, 404, { error: `model "${body.model}" not found, try pulling it first` });
    if (options.noTools === true && Array.isArray(body?.tools) && body.tools.length > 0) {
      return sendJson(res, 400, { error: `registry.ollama.ai/library/${String(body.model)} does not support tools` });
    }
    const turn = next(body);
    if (turn.hang === true) return;
    if (turn.status !== undefined) return sendJson(res, turn.status, { error: turn.error ?? `fake error ${turn.status}` }, retryHeaders(turn));
    if (path === '/api/embed') {
      if (!(await pause(turn, answer.gone))) return;
      const input = (Array.isArray(body.input) ? body.input : [body.input]) as string[];
      return sendJson(res, 200, { model: body.model, embeddings: input.map(embed), total_duration: 1000, load_duration: 10, prompt_eval_count: usageOf(turn, 0).input });
    }
    await ollamaChat(turn, body, answer);
  });
}

// ---------------------------------------------------------------- Anthropic

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function anthropicError(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { type: 'error', error: { type: ANTHROPIC_ERROR_TYPES[status] ?? 'api_error', message } }, { 'request-id': 'req_fake', ...headers });
}

interface AnthropicBlock {
  start: Record<string, unknown>;
  deltas: Array<Record<string, unknown>>;
}

function anthropicBlocks(turn: FakeTurn): AnthropicBlock[] {
  const blocks: AnthropicBlock[] = [];
  if (turn.text !== undefined && turn.text !== '') {
    blocks.push({ start: { type: 'text', text: '' }, deltas: pieces(turn.text).map((text) => ({ type: 'text_delta', text })) });
  }
  (turn.toolCalls ?? []).forEach((call, i) => {
    const json = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    const half = Math.ceil(json.length / 2);
    const partials = json === '' ? [] : [json.slice(0, half), json.slice(half)].filter((p) => p !== '');
    blocks.push({
      start: { type: 'tool_use', id: `toolu_fake${i + 1}`, name: call.name, input: {} },
      deltas: partials.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
    });
  });
  return blocks;
}

async function anthropicMessage(turn: FakeTurn, body: any, { res, gone }: Answer): Promise<void> {
  const blocks = anthropicBlocks(turn);
  const usage = usageOf(turn, blocks.reduce((n, b) => n + b.deltas.length, 0));
  const stopReason = (turn.toolCalls ?? []).length > 0 ? 'tool_use' : 'end_turn';
  const id = 'msg_fake';
  if (body.stream !== true) {
    if (!(await pause(turn, gone))) return;
    const content = blocks.map((b) => (b.start.type === 'text'
      ? { type: 'text', text: turn.text }
      : { ...b.start, input: JSON.parse(b.deltas.map((d) => d.partial_json).join('') || '{}') as unknown }));
    sendJson(res, 200, {
      id, type: 'message', role: 'assistant', model: body.model, content, stop_reason: stopReason, stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: usage.output },
    });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': 'req_fake' });
  const event = (type: string, data: Record<string, unknown>): void => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  event('message_start', {
    message: {
      id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: 1 },
    },
  });
  res.write('event: ping\ndata: {"type": "ping"}\n\n');
  for (const [index, block] of blocks.entries()) {
    event('content_block_start', { index, content_block: block.start });
    for (const delta of block.deltas) {
      if (!(await pause(turn, gone))) return;
      event('content_block_delta', { index, delta });
    }
    event('content_block_stop', { index });
  }
  if (!(await pause(turn, gone))) return;
  event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output } });
  event('message_stop', {});
  res.end();
}

/** The key of a request: `x-api-key`, or `Authorization: Bearer` (how @anthropic-ai/sdk 1.x sends `apiKey`). */
function apiKeyOf(req: http.IncomingMessage): string | undefined {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header;
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  return bearer === undefined || bearer === '' ? undefined : bearer;
}

/**
 * `POST /v1/messages` (SSE with `stream: true`, else one JSON message). The key (see
 * apiKeyOf) must equal `options.apiKey` when given, else be present (401 otherwise); the model
 * `missing-model` gets 404 not_found_error, a tool name the API refuses 400 (tool-name-rules.ts). None uses a turn. Malformed (string) tool
 * arguments exist only in a stream: the API's one-piece answer always holds parsed JSON.
 */
export function startFakeAnthropic(script: FakeScript, options: { apiKey?: string } = {}): Promise<FakeModelServer> {
  const next = scriptReader(script);
  return startServer(async (req, answer, body) => {
    const { res } = answer;
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'POST' || path !== '/v1/messages') return anthropicError(res, 404, `Not found: ${req.method} ${path}`);
    const key = apiKeyOf(req);
    if (key === undefined || (options.apiKey !== undefined && key !== options.apiKey)) {
      return anthropicError(res, 401, 'invalid x-api-key');
    }
    if (body?.model === 'missing-model') return anthropicError(res, 404, `model: ${body.model}`);
    const badName = anthropicToolNameRefusal(body);
    if (badName !== undefined) return anthropicError(res, 400, badName);
    const turn = next(body);
    if (turn.hang === true) return;
    if (turn.status !== undefined) return anthropicError(res, turn.status, turn.error ?? `fake error ${turn.status}`, retryHeaders(turn));
    await anthropicMessage(turn, body, answer);
  });
}

// ---------------------------------------------------------------- OpenAI-compatible

function openaiError(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const type = status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  sendJson(res, status, { error: { message, type, code: null } }, headers);
}

async function openaiCompletion(turn: FakeTurn, body: any, { res, gone }: Answer): Promise<void> {
  const parts = pieces(turn.text ?? '');
  const calls = (turn.toolCalls ?? []).map((c, i) => ({
    id: `call_fake${i + 1}`, name: c.name, args: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
  }));
  const usage = usageOf(turn, parts.length + calls.length);
  const finish = calls.length > 0 ? 'tool_calls' : 'stop';
  const usageBody = { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output };
  const head = { id: 'chatcmpl-fake', created: Math.floor(Date.now() / 1000), model: body.model };
  if (body.stream !== true) {
    if (!(await pause(turn, gone))) return;
    const toolCalls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } }));
    const message = { role: 'assistant', content: turn.text ?? null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
    sendJson(res, 200, { ...head, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage: usageBody });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): void => {
    res.write(`data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices, ...extra })}\n\n`);
  };
  const delta = (d: Record<string, unknown>, finishReason: string | null = null): void => chunk([{ index: 0, delta: d, finish_reason: finishReason }]);
  delta({ role: 'assistant', content: '' });
  for (const piece of parts) {
    if (!(await pause(turn, gone))) return;
    delta({ content: piece });
  }
  for (const [index, call] of calls.entries()) {
    if (!(await pause(turn, gone))) return;
    delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
    const half = Math.ceil(call.args.length / 2);
    for (const args of [call.args.slice(0, half), call.args.slice(half)].filter((a) => a !== '')) {
      delta({ tool_calls: [{ index, function: { arguments: args } }] });
    }
  }
  if (!(await pause(turn, gone))) return;
  delta({}, finish);
  if (body.stream_options?.include_usage === true) chunk([], { usage: usageBody });
  res.write('data: [DONE]\n\n');
  res.end();
}

/**
 * An OpenAI-compatible server (as LM Studio, llama.cpp and vLLM speak it): `POST
 * /v1/chat/completions` (SSE with `stream: true`, else one JSON completion), `POST
 * /v1/embeddings` (`options.embed` of each input, default `fakeVector`; a turn's status or
 * `usage.input`) and `GET /v1/models`. `url` is the base URL, `/v1` included. A key is
 * checked only when `options.apiKey` is given; `missing-model` gets 404, a tool name OpenAI refuses 400 (tool-name-rules.ts).
 */
export async function startFakeOpenAI(script: FakeScript, options: { apiKey?: string; embed?: FakeEmbed } = {}): Promise<FakeModelServer> {
  const next = scriptReader(script);
  const embed = options.embed ?? fakeVector;
  const server = await startServer(async (req, answer, body) => {
    const { res } = answer;
    const path = (req.url ?? '/').split('?')[0];
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) return openaiError(res, 401, 'Incorrect API key provided');
    if (req.method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, { object: 'list', data: OLLAMA_MODELS.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) });
    }
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/v1/embeddings')) return openaiError(res, 404, `Unexpected endpoint or method. (${req.method} ${path})`);
    if (body?.model === 'missing-model') return openaiError(res, 404, `The model \`${body.model}\` does not exist.`);
    const badName = openaiToolNameRefusal(body);
    if (badName !== undefined) return openaiError(res, 400, badName);
    const turn = next(body);
    if (turn.hang === true) return;
    if (turn.status !== undefined) return openaiError(res, turn.status, turn.error ?? `fake error ${turn.status}`, retryHeaders(turn));
    if (path === '/v1/embeddings') {
      const input = (Array.isArray(body.input) ? body.input : [body.input]) as string[];
      const tokens = usageOf(turn, 0).input;
      return sendJson(res, 200, {
        object: 'list', model: body.model,
        data: input.map((text, index) => ({ object: 'embedding', index, embedding: embed(text) })),
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
    }
    await openaiCompletion(turn, body, answer);
  });
  return { ...server, url: `${server.url}/v1` };
}
