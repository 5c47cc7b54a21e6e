/** A response body read to the end as UTF-8 text, unless it is larger than a bound. */

/** The body as text; null as soon as more than `maxBytes` arrived (the rest is not read). */
export async function readBounded(body: AsyncIterable<Uint8Array> | null, maxBytes: number): Promise<string | null> {
  if (body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
