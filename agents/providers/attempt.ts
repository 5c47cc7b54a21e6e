/** One HTTP attempt of a model call: its signal, its silence watchdog, and what reached the caller. */

/**
 * The attempt's signal is aborted when the caller cancels, or when nothing has arrived for
 * `timeoutMs` — before the answer starts or mid-stream alike, so a long answer that keeps
 * streaming is never cut off while a server that went quiet is. The provider passes the
 * signal to its HTTP client, which closes the connection.
 */
export class Attempt {
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #timeoutMs: number;
  readonly #caller: AbortSignal | undefined;
  readonly #onToken: ((text: string) => void) | undefined;
  readonly #onCallerAbort = (): void => this.#controller.abort(this.#caller?.reason);
  readonly #timer: NodeJS.Timeout;
  #timedOut = false;
  #heard = false;
  #streamed = false;
  #callbackError: { error: unknown } | undefined;

  constructor(timeoutMs: number, caller?: AbortSignal, onToken?: (text: string) => void) {
    this.signal = this.#controller.signal;
    this.#timeoutMs = timeoutMs;
    this.#caller = caller;
    this.#onToken = onToken;
    caller?.addEventListener('abort', this.#onCallerAbort, { once: true });
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#controller.abort(new Error(`nothing arrived for ${this.#timeoutMs} ms`));
    }, timeoutMs);
  }

  /** Something arrived from the server: the watchdog starts over. */
  touch(): void {
    this.#heard = true;
    if (!this.signal.aborted) this.#timer.refresh();
  }

  /** A piece of the answer's text: passed to the caller's `onToken`. */
  emit(text: string): void {
    this.touch();
    if (text === '') return;
    this.#streamed = true;
    try {
      this.#onToken?.(text);
    } catch (error) {
      this.#callbackError = { error };
      throw error;
    }
  }

  /** What the caller's `onToken` threw: it is theirs, so it reaches them as is, never as a model error. */
  get callbackError(): { error: unknown } | undefined {
    return this.#callbackError;
  }

  /** The watchdog fired (and aborted the signal). */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** Anything arrived at all: a timeout is then "went silent", not "did not answer". */
  get heard(): boolean {
    return this.#heard;
  }

  /** Text reached the caller: a retry would make them see it twice. */
  get streamed(): boolean {
    return this.#streamed;
  }

  /**
   * The attempt is over, however it ended: the signal is aborted too, so that a stream
   * left half-read (a parse error, a throwing callback) closes its connection.
   */
  end(): void {
    clearTimeout(this.#timer);
    this.#caller?.removeEventListener('abort', this.#onCallerAbort);
    if (!this.signal.aborted) this.#controller.abort(new Error('the attempt is over'));
  }
}
