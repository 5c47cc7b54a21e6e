/** A fetched body as text, in the charset named (by the caller, else by its Content-Type header, else UTF-8). Loads nothing. */

export function decodeBody(fetched: { body: Uint8Array; contentTypeHeader: string }, charset?: string): string {
  const named = charset ?? /;\s*charset\s*=\s*"?([\w.:-]+)/i.exec(fetched.contentTypeHeader)?.[1];
  try {
    return new TextDecoder(named ?? 'utf-8').decode(fetched.body);
  } catch {
    return new TextDecoder('utf-8').decode(fetched.body);
  }
}
