/**
 * What an adapter that takes HTTP requests (Slack, Discord) is given by its route and what
 * it answers: the headers and the raw bytes (signatures cover exactly those), and a status
 * with a JSON body. The route in api/ does no checking of its own: the adapter verifies
 * the signature before it reads anything else.
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
export function oneHeader(headers: InboundHeaders, name: string): string | undefined {
  const raw = headers[name];
  const values = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((v) => v.trim()).filter((v) => v !== '');
  const distinct = [...new Set(values)];
  return distinct.length === 1 ? distinct[0] : undefined;
}

/** Whether a running adapter's instance answers HTTP requests. */
export function isHttpAdapter<T extends object>(instance: T): instance is T & HttpAdapterInstance {
  return typeof (instance as Partial<HttpAdapterInstance>).receive === 'function';
}
