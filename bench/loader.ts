/**
 * The wide horde of issue 19 (one 1 MiB agents file with 28,000 problems): how long
 * `loadHorde` takes on it, and how `/api/health` answers on a real server while such a
 * bundle is uploaded (POST /api/bundles) and while such a folder is dropped into
 * `<data>/hordes/` and hot-reloaded — the loading and the review happen in worker threads.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { buildApi } from '../api/index.js';
import { createEngine, loadHorde } from '../engine/index.js';
import { wideBundle, wideHorde } from '../testkit/wide-horde.js';
import type { WideHorde } from '../testkit/wide-horde.js';
import { engineOptions, removeDir, tempDir } from './setup.js';
import { now } from './stats.js';
import { BENCH_AUTH, BENCH_TOKEN } from './token.js';

export const WIDE_PROBLEMS = 28_000;

export interface LoaderSample {
  /** loadHorde of the wide folder, ms. */
  validateMs: number;
  /** /api/health during 3 uploads of the wide bundle: p99 and max, ms, and how many answers. */
  uploadP99: number;
  uploadMax: number;
  uploadAnswers: number;
  /** The same during the hot reload of a wide folder and 3 listings. */
  reloadP99: number;
  reloadMax: number;
  reloadAnswers: number;
  /** Bytes of the upload's 422 answer. */
  refusalBytes: number;
}

function writeFolder(dir: string, wide: WideHorde): void {
  for (const [rel, text] of Object.entries(wide.files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
}

/** GET /api/health one after another until `work` settles: every answer's time, ms. */
export async function healthDuring(base: string, work: Promise<unknown>): Promise<number[]> {
  let done = false;
  void work.then(() => (done = true), () => (done = true));
  const times: number[] = [];
  while (!done) {
    const t0 = now();
    await (await fetch(`${base}/api/health`, { headers: BENCH_AUTH })).arrayBuffer();
    times.push(now() - t0);
  }
  return times.sort((a, b) => a - b);
}

export const p99 = (sorted: readonly number[]): number => sorted[Math.max(0, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.NaN;

export async function loaderOnce(): Promise<LoaderSample> {
  const wide = wideHorde('wide', WIDE_PROBLEMS);
  const home = tempDir('loader');
  try {
    const folder = path.join(home, 'wide');
    writeFolder(folder, wide);
    const t0 = now();
    await loadHorde(folder);
    const validateMs = now() - t0;

    const engine = await createEngine({ ...engineOptions(path.join(home, 'data'), 'normal', 4), reloadDebounceMs: 50 });
    const api = await buildApi(engine, { token: BENCH_TOKEN, port: 0 });
    try {
      await api.app.listen({ host: '127.0.0.1', port: 0 });
      const base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
      await engine.triggers.start();
      await (await fetch(`${base}/api/hordes`, { headers: BENCH_AUTH })).arrayBuffer(); // the catalog thread is started

      const bundle = wideBundle(wide, 'wide');
      let refusalBytes = 0;
      const uploads = (async () => {
        for (let i = 0; i < 3; i++) {
          const res = await fetch(`${base}/api/bundles`, { method: 'POST', headers: { ...BENCH_AUTH, 'content-type': 'application/zip' }, body: bundle });
          refusalBytes = (await res.arrayBuffer()).byteLength;
        }
      })();
      const upload = await healthDuring(base, uploads);
      await uploads;

      const changed = new Promise<void>((resolve) => {
        const off = engine.on('catalog:changed', () => {
          off();
          resolve();
        });
      });
      const reloads = (async () => {
        writeFolder(path.join(engine.paths.hordes, 'wide'), wide);
        await changed;
        for (let i = 0; i < 3; i++) await (await fetch(`${base}/api/hordes`, { headers: BENCH_AUTH })).arrayBuffer();
      })();
      const reload = await healthDuring(base, reloads);
      await reloads;
      return {
        validateMs, refusalBytes,
        uploadP99: p99(upload), uploadMax: upload.at(-1) ?? Number.NaN, uploadAnswers: upload.length,
        reloadP99: p99(reload), reloadMax: reload.at(-1) ?? Number.NaN, reloadAnswers: reload.length,
      };
    } finally {
      await api.app.close();
      await engine.close();
    }
  } finally {
    removeDir(home);
  }
}
