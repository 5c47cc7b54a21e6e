/**
 * The server of the memory bench (memory.ts), in a process of its own so that its RSS is
 * the server's alone: a real `buildApi` on 127.0.0.1 over a data folder with the `reader`
 * profile (event-loop.ts) and the `wide` horde, whose every run.created carries a ~100 kB
 * snapshot. Its resident memory is sampled every 50 ms, with its child processes' (the
 * bundle review's process while it lives). Over IPC: `stats` → MemoryStats
 * (RSS, its peak since the last ask, heap used, external), `session` → `{sessionId}` (a session with a large log),
 * `stop`. Started with `ready` → `{port}`.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { buildApi } from '../api/index.js';
import { createEngine } from '../engine/index.js';
import { largeSession, readerHome } from './event-loop.js';
import { writeWideHorde } from './memory.js';
import type { MemoryStats } from './memory.js';
import { benchKinds } from './setup.js';
import { BENCH_TOKEN } from './token.js';

const PAGE = 4096;

/** The RSS of `pid`'s descendants, bytes (pages they share with it counted again: an upper bound). */
function descendantsRss(pid: number): number {
  let total = 0;
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      for (const child of fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter((c) => c !== '')) {
        total += Number(fs.readFileSync(`/proc/${child}/statm`, 'utf8').split(' ')[1]) * PAGE + descendantsRss(Number(child));
      }
    }
  } catch {
    // A thread or a process ended while it was read: the next sample counts what is left.
  }
  return total;
}
/** This process's RSS and its descendants', bytes. */
const treeRss = (): number => process.memoryUsage.rss() + descendantsRss(process.pid);

async function main(): Promise<void> {
  const reader = await readerHome('memory');
  fs.mkdirSync(path.join(reader.home, 'hordes'), { recursive: true });
  writeWideHorde(path.join(reader.home, 'hordes'));
  const engine = await createEngine({ dataDir: reader.home, extraStepKinds: benchKinds() });
  const { app } = await buildApi(engine, { token: BENCH_TOKEN, port: 0 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRss())), 50);
  process.on('message', (m: { type: string }) => {
    if (m.type === 'stats') {
      const { heapUsed, external } = process.memoryUsage();
      const rss = treeRss();
      process.send!({ type: 'stats', stats: { rss, peak: Math.max(peak, rss), heapUsed, external } satisfies MemoryStats });
      peak = rss;
    } else if (m.type === 'session') {
      void largeSession(engine).then((sessionId) => {
        reader.forgetRequests();
        process.send!({ type: 'session', sessionId });
      });
    } else if (m.type === 'stop') {
      clearInterval(sampler);
      void app.close().then(() => engine.close()).then(() => reader.close()).then(() => process.exit(0));
    }
  });
  process.send!({ type: 'ready', port: (app.server.address() as AddressInfo).port });
}

await main();
