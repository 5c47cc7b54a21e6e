/**
 * When the group committer may hold a commit back for webhook deliveries that are on
 * their way, so that deliveries arriving together share one commit (one fsync).
 *
 * The webhook route calls `arrive()` as soon as a delivery's headers are read and the
 * returned `handedOver()` once it has passed the delivery to the engine (from there,
 * its run reaches the committer within microtasks, before the committer looks again).
 * The committer calls `begin()` when something is first pending and, at each turn of
 * the event loop until it commits, `shouldWait()`: wait one more turn while a delivery
 * is between the two calls, or while deliveries have kept arriving since the last look
 * (a burst is still coming in) — never past `maxWaitUs` after `begin()`, and never when
 * no delivery has arrived since: a lone delivery, a step's result or an approval is
 * committed on the first turn, as without a hold.
 */
export interface IntakeHoldOptions {
  /** The longest a commit is held, µs. */
  maxWaitUs: number;
  /** A monotonic clock in µs (tests may drive their own). */
  nowUs(): number;
}

/** The default bound: a fraction of a millisecond, small beside a FULL commit's fsync. */
export const INTAKE_HOLD_US = 500;

export class IntakeHold {
  private arriving = 0;
  private arrivals = 0;
  private seen = 0;
  private deadline = 0;
  private waited = false;
  /** Turns the committer waited, and commits it held at least once (for benchmarks). */
  readonly stats = { waits: 0, held: 0 };

  constructor(private readonly options: IntakeHoldOptions) {}

  /** A delivery has arrived; call the result once it is handed to the engine, or has ended otherwise (calling it again does nothing). */
  arrive(): () => void {
    this.arriving++;
    this.arrivals++;
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.arriving--;
    };
  }

  /** Deliveries between `arrive()` and their hand-over now. */
  get inProgress(): number {
    return this.arriving;
  }

  /** Something is pending to commit: the bound starts now. */
  begin(): void {
    this.deadline = this.options.nowUs() + this.options.maxWaitUs;
    this.seen = this.arrivals;
    this.waited = false;
  }

  /** Hold the commit one more turn? */
  shouldWait(): boolean {
    const more = this.arrivals !== this.seen;
    this.seen = this.arrivals;
    if (!more && this.arriving === 0) return false;
    if (this.options.nowUs() >= this.deadline) return false;
    this.stats.waits++;
    if (!this.waited) this.stats.held++;
    this.waited = true;
    return true;
  }
}
