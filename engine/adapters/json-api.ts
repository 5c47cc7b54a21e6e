/**
 * One JSON call to a chat service's Web API (Slack, Discord), over plain undici `fetch`
 * to the base URL the operator configured (the real service by default; a fake in tests).
 * Bounded in time (through the host's timers, never the real clock's) and in size. A
 * failure is a KowalskiError of the caller's code whose message names the service and the
 * endpoint, never the URL (Discord's holds the interaction token) nor any header.
 */
import { readBounded } from '../../agents/index.js';
import { KowalskiError } from '../../core/index.js';
import type { ErrorCode } from '../../core/index.js';
import type { AdapterHost } from './types.js';

/** Per call, from the request to the answer's last byte. */
export const API_TIMEOUT_MS = 15_000;
/** An answer larger than this is not a Web API answer. */
export const API_MAX_ANSWER_BYTES = 1024 * 1024;

export interface JsonCall {
  method: 'GET' | 'POST' | 'PATCH';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  /** For messages: "Slack chat.postMessage". */
  what: string;
  code: ErrorCode;
}

export interface JsonAnswer {
  status: number;
  /** The parsed answer; undefined when it was empty (204). */
  json: unknown;
  /** `Retry-After` in seconds, when the service sent one. */
  retryAfterSecs?: number;
}

export async function callJson(call: JsonCall, timers: Pick<AdapterHost, 'setTimeout'>): Promise<JsonAnswer> {
  const controller = new AbortController();
  const timer = timers.setTimeout(() => controller.abort(), API_TIMEOUT_MS);
  const failed = (why: string, cause?: unknown): KowalskiError =>
    new KowalskiError(call.code, `${call.what} ${why}`, cause === undefined ? {} : { cause });
  let status: number;
  let answer: Buffer | null;
  let retryAfter: string | null;
  try {
    // undici is loaded at the first call: a process that never calls a chat service (every CLI command) does not load it.
    const { fetch } = await import('undici');
    const res = await fetch(call.url, {
      method: call.method,
      headers: { accept: 'application/json', ...(call.body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }), ...call.headers },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      signal: controller.signal,
    });
    status = res.status;
    retryAfter = res.headers.get('retry-after');
    answer = await readBounded(res.body, API_MAX_ANSWER_BYTES);
  } catch (err) {
    if (controller.signal.aborted) throw failed(`did not answer within ${API_TIMEOUT_MS / 1000} s`);
    const code = (err as { cause?: { code?: unknown } }).cause?.code;
    throw failed(`cannot be reached (${typeof code === 'string' ? code : 'connection failed'})`);
  } finally {
    timer.cancel();
  }
  if (answer === null) throw failed(`answered more than ${API_MAX_ANSWER_BYTES} bytes`);
  const text = answer.toString('utf8');
  let json: unknown;
  if (text.trim() !== '') {
    try {
      json = JSON.parse(text);
    } catch {
      throw failed(`answered HTTP ${status} with something that is not JSON`);
    }
  }
  const secs = retryAfter === null ? NaN : Number(retryAfter);
  return { status, json, ...(Number.isFinite(secs) && secs >= 0 ? { retryAfterSecs: secs } : {}) };
}
