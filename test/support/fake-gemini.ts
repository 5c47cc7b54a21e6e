/**
 * A fake Gemini API (generativelanguage.googleapis.com, v1beta) for the real
 * `@google/genai` client, on the same server and scripts as the other fakes
 * (fake-models.ts): `:streamGenerateContent` (SSE), `:batchEmbedContents`.
 */
import type http from 'node:http';
import { fakeVector } from '../../testkit/fake-embeddings.js';
import { pause, pieces, scriptReader, sendJson, startServer, usageOf } from '../../testkit/fake-models.js';
import type { Answer, FakeModelServer, FakeScript, FakeTurn } from '../../testkit/fake-models.js';
import { geminiToolNameRefusal } from '../../testkit/tool-name-rules.js';

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** google.rpc.Status as Gemini sends it; a 429's wait goes in RetryInfo (not Retry-After), as the real API does. */
function geminiError(res: http.ServerResponse, status: number, message: string, details: unknown[] = []): void {
  sendJson(res, status, { error: { code: status, message, status: STATUS_NAMES[status] ?? 'UNKNOWN', ...(details.length > 0 ? { details } : {}) } });
}

function turnError(res: http.ServerResponse, turn: FakeTurn & { status: number }): void {
  const details = turn.retryAfter === undefined ? [] : [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${turn.retryAfter}s` }];
  geminiError(res, turn.status, turn.error ?? `fake error ${turn.status}`, details);
}

/**
 * The text in pieces, then the function calls in one chunk (no ids, as Gemini 2.5 sends
 * them; the first carries a thought signature `sig_<name>`, as with parallel calls), then
 * the finishReason. Every chunk has the running usage. A string `arguments` is sent as
 * `args` as is (the real API always sends an object).
 */
async function streamAnswer(turn: FakeTurn, model: string, { res, gone }: Answer): Promise<void> {
  const parts = pieces(turn.text ?? '');
  const calls = turn.toolCalls ?? [];
  const usage = usageOf(turn, parts.length + calls.length);
  let sent = 0;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = (contentParts: unknown[], finishReason?: string): void => {
    const candidatesTokenCount = finishReason === undefined ? Math.min(++sent, usage.output) : usage.output;
    const candidate = { content: { role: 'model', parts: contentParts }, index: 0, ...(finishReason === undefined ? {} : { finishReason }) };
    const usageMetadata = { promptTokenCount: usage.input, candidatesTokenCount, totalTokenCount: usage.input + candidatesTokenCount };
    res.write(`data: ${JSON.stringify({ candidates: [candidate], usageMetadata, modelVersion: model, responseId: 'fake-response' })}\r\n\r\n`);
  };
  if (turn.thought !== undefined) {
    if (!(await pause(turn, gone))) return;
    chunk([{ text: turn.thought, thought: true }]);
  }
  for (const text of parts) {
    if (!(await pause(turn, gone))) return;
    chunk([{ text }]);
  }
  if (calls.length > 0) {
    if (!(await pause(turn, gone))) return;
    chunk(calls.map((c, i) => ({ functionCall: { name: c.name, args: c.arguments }, ...(i === 0 ? { thoughtSignature: `sig_${c.name}` } : {}) })));
  }
  if (!(await pause(turn, gone))) return;
  chunk([{ text: '' }], 'STOP');
  res.end();
}

/**
 * `POST /v1beta/models/{model}:streamGenerateContent` and `:batchEmbedContents`. The key
 * (`x-goog-api-key`) must equal `options.apiKey` when given, else be present: otherwise
 * Gemini's 400 API_KEY_INVALID. The model `missing-model` gets 404; with `noTools`, a
 * request offering tools gets Gemini's 400 "Function calling is not enabled", and one offering a tool
 * name Gemini refuses its 400 "Invalid function name" (tool-name-rules.ts). None of
 * these uses a turn. An embedding turn with no status answers `fakeVector` of each text.
 */
export function startFakeGemini(script: FakeScript, options: { apiKey?: string; noTools?: boolean } = {}): Promise<FakeModelServer> {
  const next = scriptReader(script);
  return startServer(async (req, answer, body) => {
    const { res } = answer;
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const route = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|batchEmbedContents)$/.exec(path);
    if (req.method !== 'POST' || route === null) return geminiError(res, 404, `The requested URL ${path} was not found on this server.`);
    const [, model = '', method] = route;
    const key = req.headers['x-goog-api-key'];
    if (typeof key !== 'string' || key === '' || (options.apiKey !== undefined && key !== options.apiKey)) {
      return geminiError(res, 400, 'API key not valid. Please pass a valid API key.', [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }]);
    }
    if (model === 'missing-model') {
      return geminiError(res, 404, `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`);
    }
    if (options.noTools === true && Array.isArray(body?.tools) && body.tools.length > 0) {
      return geminiError(res, 400, `Function calling is not enabled for models/${model}`);
    }
    const badName = geminiToolNameRefusal(body);
    if (badName !== undefined) return geminiError(res, 400, badName);
    const turn = next(body);
    if (turn.hang === true) return;
    if (turn.status !== undefined) return turnError(res, { ...turn, status: turn.status });
    if (method === 'batchEmbedContents') {
      if (!(await pause(turn, answer.gone))) return;
      const requests = (body?.requests ?? []) as Array<{ content?: { parts?: Array<{ text?: string }> } }>;
      return sendJson(res, 200, { embeddings: requests.map((r) => ({ values: fakeVector((r.content?.parts ?? []).map((p) => p.text ?? '').join('')) })) });
    }
    await streamAnswer(turn, model, answer);
  });
}
