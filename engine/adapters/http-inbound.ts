/**
 * What an adapter that takes HTTP requests (Slack, Discord) is given by its route and what
 * it answers: the headers and the raw bytes (signatures cover exactly those), and a status
 * with a JSON body. The route in api/ does no checking of its own: the adapter verifies
 * the signature before it reads anything else. Also what the signature checks of Slack
 * and Discord share: their headers read, the forms checked, the 300 s window, the verdict;
 * each adapter states only its scheme.
 */
export type InboundHeaders = Record<string, string | string[] | undefined>;

export interface InboundRequest {
  /** Request headers (Node lower-cases the names). */
  headers: InboundHeaders;
  /** The body exactly as received. */
  rawBody: Buffer;
}

export interface InboundAnswer {
  status: number;
  body: unknown;
}

/** An adapter instance that answers HTTP requests on its route. */
export interface HttpAdapterInstance {
  /** Verify, parse and accept one request; a refusal throws a KowalskiError (its code decides the status). */
  receive(request: InboundRequest): InboundAnswer;
}

/**
 * The one value of header `name` (lower-case), trimmed; undefined when absent, empty, or
 * given several times with different values (a request cannot be signed twice).
 */
function oneHeader(headers: InboundHeaders, name: string): string | undefined {
  const raw = headers[name];
  const values = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((v) => v.trim()).filter((v) => v !== '');
  const distinct = [...new Set(values)];
  return distinct.length === 1 ? distinct[0] : undefined;
}

/** Whether a running adapter's instance answers HTTP requests. */
export function isHttpAdapter<T extends object>(instance: T): instance is T & HttpAdapterInstance {
  return typeof (instance as Partial<HttpAdapterInstance>).receive === 'function';
}

/** The allowed distance between a signed request's timestamp and now, in seconds (either way): Slack's and Discord's. */
export const SIGNED_TOLERANCE_SECS = 300;

/**
 * Why a signed request's timestamp (whole seconds, already checked to be digits) is too far
 * from now, or undefined when it is within SIGNED_TOLERANCE_SECS. Written so that a NaN
 * clock fails closed. Asked only once the signature holds: a forgery never learns the time.
 */
function staleTimestamp(header: string, timestamp: string, nowMs: number): string | undefined {
  const ageSecs = Math.floor(nowMs / 1000) - Number(timestamp);
  if (Math.abs(ageSecs) <= SIGNED_TOLERANCE_SECS) return undefined;
  const away = Number.isFinite(ageSecs) ? `${Math.abs(ageSecs)} s in the ${ageSecs >= 0 ? 'past' : 'future'}` : 'not comparable with the clock';
  return `${header} is ${away}; at most ${SIGNED_TOLERANCE_SECS} s is allowed (a replayed request or a wrong clock)`;
}

/** A signed request's check: fine, or refused (401) with the reason. */
export type SignatureVerdict =
  | { ok: true }
  | { ok: false; code: 'KW_ERR_WEBHOOK_SIGNATURE' | 'KW_ERR_WEBHOOK_STALE'; message: string };

/** A request to verify, at the engine's now. */
export interface SignedRequest extends InboundRequest {
  /** Now, in milliseconds since 1970 (the engine's clock). */
  nowMs: number;
}

/** What a channel states of its signature: its two headers, the signature's form, and the check itself. */
export interface SignatureScheme {
  /** The signature's header as messages name it (`X-Slack-Signature`); looked up in lower case. */
  signatureHeader: string;
  /** The timestamp's header (whole seconds since 1970), named the same way. */
  timestampHeader: string;
  /** The signature's whole form, and its words after "must be" (`"v0=" and 64 hex digits`). */
  signatureForm: RegExp;
  signatureFormWords: string;
  /** Why a signature of that form does not hold for this timestamp and body, or undefined when it does. Never throws. */
  refusal(signature: string, timestamp: string, rawBody: Buffer): string | undefined;
}

/**
 * A signed request's verdict, always in this order: both headers present once, the
 * signature's form, the timestamp's digits, the scheme's check, and only then the window.
 * No header input makes it throw.
 */
export function verifySigned(scheme: SignatureScheme, request: SignedRequest): SignatureVerdict {
  const bad = (message: string): SignatureVerdict => ({ ok: false, code: 'KW_ERR_WEBHOOK_SIGNATURE', message });
  const signature = oneHeader(request.headers, scheme.signatureHeader.toLowerCase());
  const timestamp = oneHeader(request.headers, scheme.timestampHeader.toLowerCase());
  if (signature === undefined) return bad(`${scheme.signatureHeader} is missing (or given twice)`);
  if (timestamp === undefined) return bad(`${scheme.timestampHeader} is missing (or given twice)`);
  if (!scheme.signatureForm.test(signature)) return bad(`${scheme.signatureHeader} must be ${scheme.signatureFormWords}`);
  if (!/^\d{1,12}$/.test(timestamp)) return bad(`${scheme.timestampHeader} must be whole seconds since 1970 (digits only)`);
  const refused = scheme.refusal(signature, timestamp, request.rawBody);
  if (refused !== undefined) return bad(refused);
  const stale = staleTimestamp(scheme.timestampHeader, timestamp, request.nowMs);
  if (stale !== undefined) return { ok: false, code: 'KW_ERR_WEBHOOK_STALE', message: stale };
  return { ok: true };
}
