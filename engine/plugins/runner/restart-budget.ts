/** How often a plugin's process may be started again: at most `max` restarts in any `windowMs`, on the engine's clock. */
import type { Clock } from '../../base/clock.js';

export class RestartBudget {
  private readonly times: number[] = [];
  constructor(private readonly clock: Clock, private readonly max: number, private readonly windowMs: number) {}

  /** Takes one restart if the window has one left; false when it has not. */
  take(): boolean {
    const now = this.clock.now();
    while (this.times.length > 0 && this.times[0]! <= now - this.windowMs) this.times.shift();
    if (this.times.length >= this.max) return false;
    this.times.push(now);
    return true;
  }
}
