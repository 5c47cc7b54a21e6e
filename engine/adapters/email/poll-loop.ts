/**
 * A poll repeated on the host's timers: the next one is armed only when the last has
 * finished, so two never overlap; a failed poll is reported to the host (counted, shown
 * as the adapter's last error) and the next goes on as planned.
 */
import type { AdapterHost } from '../types.js';

export interface PollLoop {
  /** No poll starts after this; resolves once the one under way (if any) has finished. */
  stop(): Promise<void>;
}

export function pollLoop(host: Pick<AdapterHost, 'setTimeout' | 'failed'>, everyMs: number, poll: () => Promise<void>): PollLoop {
  let stopped = false;
  let timer: { cancel(): void } | null = null;
  let running: Promise<void> | null = null;
  const arm = (ms: number): void => {
    timer = host.setTimeout(() => {
      timer = null;
      running = poll().catch((err: unknown) => host.failed(err)).finally(() => {
        running = null;
        if (!stopped) arm(everyMs);
      });
    }, ms);
  };
  arm(0);
  return {
    async stop() {
      stopped = true;
      timer?.cancel();
      await running;
    },
  };
}
