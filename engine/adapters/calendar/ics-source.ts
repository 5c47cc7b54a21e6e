/**
 * Reading one `ics` source's text: a file (size-bounded, `~/` already expanded) or a URL
 * fetched through agents/net's SSRF-safe fetch (public addresses only, every redirect
 * re-checked, time- and size-bounded), as a model-chosen URL would be: a calendar URL is
 * often a shared link whose owner is not the operator.
 */
import { stat, readFile } from 'node:fs/promises';
import { KowalskiError, messageOf } from '../../../core/index.js';
import { decodeBody, fetchRaw } from '../../../agents/index.js';
import type { IcsSource } from './settings.js';

/** The largest ICS file or response read, bytes. */
export const MAX_ICS_BYTES = 10 * 1024 * 1024;
/** The longest an ICS URL may take, ms. */
export const ICS_FETCH_TIMEOUT_MS = 20_000;

const ACCEPT = 'text/calendar,application/ics;q=0.9,text/plain;q=0.5,*/*;q=0.1';
/** Servers send .ics files under many names; ical.js is the judge of what the body is. */
const CALENDAR_TYPES = new Set(['text/calendar', 'application/ics', 'text/x-vcalendar', 'text/plain', 'application/octet-stream', 'application/x-download', '']);

export interface IcsReadOptions {
  /** Test only: `ip:port` pairs an ICS URL may reach although loopback (tests serve calendars on 127.0.0.1). */
  testOnlyFetchAllow?: readonly string[];
}

/** The source's iCalendar text. Throws KW_ERR_CALENDAR_SOURCE (the file) or the fetch's KW_ERR_FETCH_* (the URL). */
export async function readIcs(source: IcsSource, options: IcsReadOptions, signal: AbortSignal): Promise<string> {
  if (source.kind === 'url') {
    const fetched = await fetchRaw(source.url, { headers: { accept: ACCEPT } }, {
      timeoutMs: ICS_FETCH_TIMEOUT_MS, maxBytes: MAX_ICS_BYTES,
      ...(options.testOnlyFetchAllow === undefined ? {} : { testOnlyAllow: options.testOnlyFetchAllow }),
    }, signal);
    if (fetched.status < 200 || fetched.status > 299) throw new KowalskiError('KW_ERR_CALENDAR_SOURCE', `${source.shown}: the server answered HTTP ${fetched.status}`);
    const contentType = fetched.headers['content-type'] ?? '';
    const mime = contentType.split(';')[0]!.trim().toLowerCase();
    if (!CALENDAR_TYPES.has(mime)) throw new KowalskiError('KW_ERR_CALENDAR_SOURCE', `${source.shown}: the server sent ${mime}, not iCalendar (text/calendar) or plain text`);
    return decodeBody({ body: fetched.body, contentTypeHeader: contentType });
  }
  try {
    const info = await stat(source.path);
    if (!info.isFile()) throw new KowalskiError('KW_ERR_CALENDAR_SOURCE', `${source.shown}: not a file`);
    if (info.size > MAX_ICS_BYTES) throw new KowalskiError('KW_ERR_CALENDAR_SOURCE', `${source.shown}: ${info.size} bytes is larger than the ${MAX_ICS_BYTES} an ICS file may be`);
    return await readFile(source.path, 'utf8');
  } catch (err) {
    if (err instanceof KowalskiError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new KowalskiError('KW_ERR_CALENDAR_SOURCE', `${source.shown}: cannot be read: ${code === 'ENOENT' ? 'no such file' : (code ?? messageOf(err))}`, { cause: err });
  }
}
