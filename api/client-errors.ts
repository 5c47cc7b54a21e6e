/**
 * Requests the HTTP parser refuses before Fastify sees them (a malformed request line, a
 * header section over Node's limit, a timeout): they are answered on the raw socket with
 * a complete HTTP/1.1 response in our shape, `{error: {code, message}}`, then the
 * connection is closed. Installed as Fastify's `clientErrorHandler` (Node's 'clientError').
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { KowalskiError } from '../core/index.js';
import { errorBody, statusOf } from './http-errors.js';

/** What Node's parser puts on the error it reports (see `prepareError` in Node's _http_server). */
type ParserError = Error & { code?: string; reason?: string; rawPacket?: Buffer; bytesParsed?: number };

/** How long a refused connection may keep sending before it is cut off, in ms. */
const LINGER_MS = 2000;

/**
 * Whether the request line alone overflowed: the bytes the parser was reading when it gave
 * up start a request (`METHOD SP …`) that never reached its line's end. A request line
 * spread over several packets cannot be told apart from a long header: that answers 431.
 */
function requestLineOverflowed(err: ParserError): boolean {
  if (err.rawPacket === undefined) return false;
  const upTo = err.rawPacket.subarray(0, err.bytesParsed ?? err.rawPacket.length).toString('latin1');
  const start = upTo.lastIndexOf('\r\n\r\n'); // a pipelined request before this one ends there
  const current = start === -1 ? upTo : upTo.slice(start + 4);
  return /^[A-Z-]+ /.test(current) && !current.includes('\n');
}

/** The parser's error in our codes. */
export function fromParserError(err: ParserError): KowalskiError {
  const limit = `${Math.round(http.maxHeaderSize / 1024)} KiB`;
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new KowalskiError('KW_ERR_REQUEST_TIMEOUT', 'the request did not arrive in time (headers or body too slow); send it again');
    case 'HPE_HEADER_OVERFLOW':
      return requestLineOverflowed(err)
        ? new KowalskiError('KW_ERR_URI_TOO_LONG', `the request line is longer than the server reads (the request line and headers together must fit in ${limit})`)
        : new KowalskiError('KW_ERR_HEADERS_TOO_LARGE', `the request line and headers are larger than the server reads (${limit} together)`);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new KowalskiError('KW_ERR_BODY_TOO_LARGE', 'the chunk extensions of the body are larger than the server reads');
    default:
      return new KowalskiError('KW_ERR_MALFORMED_REQUEST', `the request is not valid HTTP/1.1: ${err.reason ?? err.message}${err.code === undefined ? '' : ` (${err.code})`}`);
  }
}

/** A complete response for a raw socket: status line, JSON body, `connection: close`. */
export function rawResponse(err: KowalskiError): string {
  const status = statusOf(err.code);
  const body = JSON.stringify(errorBody(err.code, err.message));
  return `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-content-type-options: nosniff\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${body}`;
}

/**
 * The `clientErrorHandler`: answer once, then close. The socket is half-closed after the
 * answer and what the client still sends is read and dropped (so the answer is not lost
 * to a reset) until it closes its side or LINGER_MS pass.
 */
export function createClientErrorHandler(): (err: Error, socket: Duplex) => void {
  const answered = new WeakSet<Duplex>();
  return (err, socket) => {
    if (answered.has(socket)) return; // the parser reports every further chunk again
    answered.add(socket);
    const code = (err as ParserError).code;
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (code === 'ECONNRESET' || socket.destroyed || !socket.writable || inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    socket.end(rawResponse(fromParserError(err as ParserError)));
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.on('close', () => clearTimeout(timer));
    socket.on('end', () => socket.destroy());
    socket.on('error', () => socket.destroy());
  };
}

/** CONNECT is not served (this is no proxy): Node would drop the connection without a word, so answer 404 and close. */
export function answerConnect(req: http.IncomingMessage, socket: Duplex): void {
  socket.on('error', () => socket.destroy());
  socket.end(rawResponse(new KowalskiError('KW_ERR_NOT_FOUND', `no route CONNECT ${JSON.stringify(req.url ?? '')}: this server is not a proxy`)));
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
