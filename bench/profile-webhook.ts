/**
 * `node --cpu-prof --cpu-prof-dir=DIR dist/bench/profile-webhook.js [--sync=full|normal]
 * [--deliveries=N] [--rounds=N]`: the webhook intake alone (`webhookOnce`, a fresh server
 * and engine per round), for a CPU profile of the main thread. Prints per round the
 * deliveries/s, main-thread CPU per delivery and batches per commit;
 * `profile-summary.js DIR/*.cpuprofile --steps=<deliveries × rounds>` then sums the
 * profile's self time per function and per file.
 */
import { numberOption, option } from './args.js';
import type { Sync } from './setup.js';
import { webhookOnce } from './webhook.js';

const synchronous = option('sync', 'full') as Sync;
const deliveries = numberOption('deliveries', 1000);
const rounds = numberOption('rounds', 3);
for (let i = 0; i < rounds; i++) {
  const s = await webhookOnce(deliveries, synchronous);
  process.stdout.write(
    `webhook ${synchronous}, ${deliveries} deliveries: ${s.perSec.toFixed(0)}/s, ${s.cpuUsPerDelivery.toFixed(0)} µs main-thread CPU per delivery, ` +
      `${s.commits} commits, ${s.batches} batches (${(s.batches / s.commits).toFixed(2)}/commit), ${s.held} held (${s.waits} turns), ${s.bad} bad, ${s.runs} runs\n`,
  );
}
