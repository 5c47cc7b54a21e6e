/** The vault search tests' helpers: a note written by hand, an engine on a home, and a bounded wait for the index. */
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { createEngine } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testOwnCode } from '../../testkit/dist.js';

/** A note written straight into `<home>/vault/` (as an editor would), its folders made. */
export function writeNote(home: string, rel: string, text: string): void {
  const file = path.join(home, 'vault', rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** An engine on `home` whose vault watch settles after 50 ms; closed after the test. */
export async function engineOn(t: TestContext, home: string): Promise<Engine> {
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home, vaultDebounceMs: 50 });
  cleanups(t)(() => engine.close());
  return engine;
}

/** Resolves once the index has taken in `rel` (from a watched edit); fails after `ms`. */
export function indexed(engine: Engine, rel: string, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out after ${ms} ms waiting for the vault index to take in ${rel}`));
    }, ms);
    const off = engine.on('vault:indexed', ({ paths }) => {
      if (!paths.includes(rel)) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}
