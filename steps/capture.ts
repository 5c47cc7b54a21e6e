/**
 * Bounded capture of a command's output stream: keeps the first and the last part
 * (together at most `limit` bytes) and counts what was dropped in between.
 */

export interface CapturedOutput {
  /** The kept text; when bytes were dropped, a marker line between head and tail says how many. */
  text: string;
  /** Every byte the stream produced. */
  totalBytes: number;
  /** Bytes left out of `text`. */
  droppedBytes: number;
}

export class BoundedCapture {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #total = 0;

  /** `limit`: bytes kept in all (half for the head, half for the tail). */
  constructor(limit: number) {
    const bounded = Math.max(0, Math.floor(limit));
    this.#headLimit = Math.ceil(bounded / 2);
    this.#tailLimit = bounded - this.#headLimit;
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#headBytes < this.#headLimit) {
      const take = Math.min(this.#headLimit - this.#headBytes, rest.length);
      this.#head.push(rest.subarray(0, take));
      this.#headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.#tailLimit === 0) return;
    if (rest.length >= this.#tailLimit) {
      this.#tail = [Buffer.from(rest.subarray(rest.length - this.#tailLimit))];
      this.#tailBytes = this.#tailLimit;
      return;
    }
    this.#tail.push(Buffer.from(rest));
    this.#tailBytes += rest.length;
    while (this.#tailBytes > this.#tailLimit) {
      const first = this.#tail[0];
      if (first === undefined) break;
      const excess = this.#tailBytes - this.#tailLimit;
      if (first.length <= excess) {
        this.#tail.shift();
        this.#tailBytes -= first.length;
      } else {
        this.#tail[0] = first.subarray(excess);
        this.#tailBytes -= excess;
      }
    }
  }

  result(): CapturedOutput {
    const kept = this.#headBytes + this.#tailBytes;
    const dropped = this.#total - kept;
    const head = Buffer.concat(this.#head).toString('utf8');
    const tail = Buffer.concat(this.#tail).toString('utf8');
    const text = dropped > 0 ? `${head}\n[… ${dropped} bytes dropped …]\n${tail}` : head + tail;
    return { text, totalBytes: this.#total, droppedBytes: dropped };
  }
}
