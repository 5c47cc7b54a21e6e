/**
 * The retry policy shared by every provider: which failures are retried, how long it
 * waits (backoff, Retry-After), that the wait is cancellable, and how it gives up.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import { RetryableFailure, connectionFailure, httpFailure } from '../../agents/providers/errors.js';
import type { Endpoint } from '../../agents/providers/errors.js';
import { backoffMs, retryAfterMs, sleep, withRetry } from '../../agents/providers/retry.js';

const AT: Endpoint = { label: 'Ollama', url: 'http://127.0.0.1:11434', model: 'qwen2.5:7b', refusedHint: ': is `ollama serve` running?' };
const FAST = { timeoutMs: 5000, maxRetries: 3, retryBaseMs: 1 };

function isCode(code: string, includes: string[] = []): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof KowalskiError, String(err));
    assert.equal(err.code, code, err.message);
    for (const s of includes) assert.ok(err.message.includes(s), `"${err.message}" should mention ${s}`);
    return true;
  };
}

function socketError(code: string): Error {
  return Object.assign(new Error(`connect ${code}`), { code });
}

test('Retry-After is read as seconds or an HTTP date; retry-after-ms wins; junk is ignored', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(retryAfterMs(new Headers({ 'retry-after': '3' }), now), 3000);
  assert.equal(retryAfterMs(new Headers({ 'retry-after': '0.5' }), now), 500);
  assert.equal(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }), now), 7000);
  assert.equal(retryAfterMs(new Headers({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }), now), 0, 'a date in the past is no wait');
  assert.equal(retryAfterMs(new Headers({ 'retry-after': '3', 'retry-after-ms': '250' }), now), 250);
  assert.equal(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now), undefined);
  assert.equal(retryAfterMs(new Headers(), now), undefined);
  assert.equal(retryAfterMs(undefined, now), undefined);
});

test('backoff doubles from the base, jitters the upper half, and stops growing at 30 s', () => {
  assert.equal(backoffMs(1, 500, () => 0), 250);
  assert.equal(backoffMs(1, 500, () => 1), 500);
  assert.equal(backoffMs(3, 500, () => 1), 2000);
  assert.equal(backoffMs(20, 500, () => 1), 30_000);
});

test('sleep rejects with the signal\'s reason as soon as it is aborted', async () => {
  const controller = new AbortController();
  const reason = new KowalskiError('KW_ERR_STEP_CANCELLED', 'cancelled');
  const waiting = sleep(60_000, controller.signal);
  controller.abort(reason);
  await assert.rejects(waiting, (err) => err === reason);
  await assert.rejects(sleep(1, AbortSignal.abort(reason)), (err) => err === reason);
});

test('429, 500, 502, 503, 504 and 529 are retryable; other statuses map to their codes at once', () => {
  for (const status of [429, 500, 502, 503, 504, 529]) assert.ok(httpFailure(status, 'x', undefined, AT) instanceof RetryableFailure, String(status));
  const cases: Array<[number, string]> = [[401, 'KW_ERR_MODEL_AUTH'], [403, 'KW_ERR_MODEL_AUTH'], [408, 'KW_ERR_MODEL_TIMEOUT'], [400, 'KW_ERR_MODEL_REQUEST'], [422, 'KW_ERR_MODEL_REQUEST'], [501, 'KW_ERR_MODEL_SERVER']];
  for (const [status, code] of cases) isCode(code, [String(status), 'the message'])(httpFailure(status, 'the message', undefined, AT));
});

test('connection failures: refused, unknown host and no route fail at once; a reset may be retried', () => {
  const refused = connectionFailure(new TypeError('fetch failed', { cause: socketError('ECONNREFUSED') }), AT);
  isCode('KW_ERR_MODEL_UNREACHABLE', ['cannot reach Ollama at http://127.0.0.1:11434 (connection refused): is `ollama serve` running?'])(refused);
  // Happy Eyeballs: every address refused, inside an AggregateError.
  const both = new AggregateError([socketError('ECONNREFUSED'), socketError('ECONNREFUSED')], 'all failed');
  isCode('KW_ERR_MODEL_UNREACHABLE', ['connection refused'])(connectionFailure(new TypeError('fetch failed', { cause: both }), AT));
  isCode('KW_ERR_MODEL_UNREACHABLE', ['host not found'])(connectionFailure(new TypeError('fetch failed', { cause: socketError('ENOTFOUND') }), AT));
  isCode('KW_ERR_MODEL_UNREACHABLE', ['no route'])(connectionFailure(new TypeError('fetch failed', { cause: socketError('EHOSTUNREACH') }), AT));
  const reset = connectionFailure(new TypeError('fetch failed', { cause: socketError('ECONNRESET') }), AT);
  assert.ok(reset instanceof RetryableFailure && reset.status === 'reset');
  const cut = connectionFailure(new TypeError('terminated', { cause: socketError('UND_ERR_SOCKET') }), AT);
  assert.ok(cut instanceof RetryableFailure && cut.status === 'reset');
  assert.equal(connectionFailure(new SyntaxError('Unexpected token'), AT), undefined);
});

test('a reset connection is retried, and the answer reports every attempt', async () => {
  let calls = 0;
  const result = await withRetry({ at: AT, settings: FAST }, async () => {
    calls++;
    if (calls < 3) throw new TypeError('fetch failed', { cause: socketError('ECONNRESET') });
    return 'ok';
  }, (err) => connectionFailure(err, AT) ?? new KowalskiError('KW_ERR_MODEL_BAD_RESPONSE', String(err)));
  assert.deepEqual(result, { value: 'ok', attempts: 3 });
});

test('resets on every attempt give KW_ERR_MODEL_UNREACHABLE after 1 + maxRetries attempts', async () => {
  let calls = 0;
  await assert.rejects(withRetry({ at: AT, settings: { ...FAST, maxRetries: 2 } }, async () => {
    calls++;
    throw new RetryableFailure('reset', 'the connection to Ollama at http://127.0.0.1:11434 was reset');
  }, () => assert.fail('not called for a RetryableFailure')), isCode('KW_ERR_MODEL_UNREACHABLE', ['was reset', 'all 3 attempts']));
  assert.equal(calls, 3);
});

test('a failure after text reached onToken is not retried: the caller would see the text twice', async () => {
  const pieces: string[] = [];
  let calls = 0;
  await assert.rejects(withRetry({ at: AT, settings: FAST, onToken: (p) => pieces.push(p) }, async (attempt) => {
    calls++;
    attempt.emit('Hello');
    throw new RetryableFailure(500, 'error in the answer stream: runner died');
  }, () => assert.fail('not called')), isCode('KW_ERR_MODEL_SERVER', ['after part of the answer had arrived', 'runner died']));
  assert.equal(calls, 1);
  assert.deepEqual(pieces, ['Hello']);
});

test('cancelling during the wait between attempts rejects with the reason at once', async () => {
  const controller = new AbortController();
  const reason = new KowalskiError('KW_ERR_STEP_CANCELLED', 'cancelled');
  const started = performance.now();
  await assert.rejects(withRetry({ at: AT, settings: { ...FAST, retryBaseMs: 60_000 }, signal: controller.signal }, async () => {
    setImmediate(() => controller.abort(reason));
    throw new RetryableFailure(503, 'unavailable');
  }, () => assert.fail('not called')), (err) => err === reason);
  assert.ok(performance.now() - started < 1000);
});

test('a Retry-After longer than the backoff is waited for', async () => {
  let calls = 0;
  const started = performance.now();
  const result = await withRetry({ at: AT, settings: FAST }, async () => {
    calls++;
    if (calls === 1) throw new RetryableFailure(429, 'slow down', 120);
    return 'ok';
  }, () => assert.fail('not called'));
  assert.equal(result.attempts, 2);
  assert.ok(performance.now() - started >= 110, 'waited for Retry-After, not the 1 ms backoff');
});
