/**
 * The entry of bench phases that need a process of their own (see proc.ts):
 * `node dist/bench/child.js <phase> …args`, started by bench/run over IPC.
 */
import { approver } from './api.js';
import { send } from './proc.js';
import type { Sync } from './setup.js';
import { pgHookNode, pgW1Node } from './pg-nodes.js';
import { parkMany, recResume, recStart, startup } from './recovery.js';
import { w2Approve, w2Park } from './w2.js';

function sync(value: string | undefined): Sync {
  if (value !== 'full' && value !== 'normal') throw new Error(`synchronous must be full or normal, not ${String(value)}`);
  return value;
}

async function main(argv: string[]): Promise<void> {
  const [phase, ...a] = argv;
  switch (phase) {
    case 'w2-park':
      return w2Park(a[0]!, a[1]!, Number(a[2]), sync(a[3]), Number(a[4]));
    case 'w2-approve':
      return w2Approve(a[0]!, sync(a[1]), Number(a[2]));
    case 'rec-start':
      return recStart(a[0]!, a[1]!, Number(a[2]), sync(a[3]), Number(a[4]), Number(a[5]));
    case 'rec-resume':
      return recResume(a[0]!, sync(a[1]), Number(a[2]));
    case 'park-many':
      return parkMany(a[0]!, a[1]!, Number(a[2]), sync(a[3]));
    case 'startup':
      return startup(a[0]!, sync(a[1]));
    case 'pg-w1-node':
      return pgW1Node(a[0]!, a[1]!, a[2]!, a[3]!, Number(a[4]), Number(a[5]));
    case 'pg-hook-node':
      return pgHookNode(a[0]!, a[1]!, a[2]!);
    case 'api-approver':
      return approver(a[0]!, a[1]!.split(','));
    default:
      throw new Error(`unknown bench phase ${String(phase)}`);
  }
}

try {
  await main(process.argv.slice(2));
} catch (err) {
  await send({ type: 'error', message: err instanceof Error ? err.stack ?? err.message : String(err) }).catch(() => undefined);
  process.exitCode = 1;
}
process.disconnect?.();
