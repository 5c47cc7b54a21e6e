/**
 * The one bounded reader of a response body: its bytes, read while they stream, unless
 * more than a bound arrive. Each caller turns "too large" into its own answer (web_fetch's
 * KW_ERR_FETCH_LIMIT, the calendar's KW_ERR_CALENDAR_SOURCE, a failed web_search or Web
 * API call).
 */

/**
 * The body's bytes (empty when there is none); null as soon as more than `maxBytes` arrived:
 * the stream is then cancelled and the rest never read.
 */
export async function readBounded(body: AsyncIterable<Uint8Array> | null, maxBytes: number): Promise<Buffer | null> {
  if (body === null) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop early returns the iterator, which cancels a web stream.
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}
