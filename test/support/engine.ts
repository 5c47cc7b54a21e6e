/** Engines for tests: a temp data directory, the test step kinds, and writing horde folders. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { DEFAULT_CONFIG, createEngine } from '../../engine/index.js';
import type { Engine, EngineConfig, EngineOptions } from '../../engine/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testOwnCode } from '../../testkit/dist.js';
import { TEST_KINDS } from '../../testkit/kinds/index.js';
import { testStoreConfig } from '../../testkit/pg-store.js';

export { TEST_KINDS } from '../../testkit/kinds/index.js';

/**
 * An engine on a data folder (a temp one unless given); its runs on Postgres when
 * KOWALSKI_TEST_STORE=postgres (testkit/pg-store.ts); `options` adds engine options
 * (a simulated clock, a reload debounce). Closed when the test ends (closing is idempotent).
 */
export async function testEngine(
  t: TestContext, runs: Partial<EngineConfig['runs']> = {}, dataDir?: string, options: Omit<Partial<EngineOptions>, 'dataDir' | 'config'> = {},
): Promise<Engine> {
  const own = dataDir === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), 'kw-home-')) : undefined;
  const home = own ?? dataDir!;
  const store = await testStoreConfig(home);
  const engine = await createEngine({ extraStepKinds: TEST_KINDS, ownCode: testOwnCode(), ...options, dataDir: home, config: { ...DEFAULT_CONFIG, store, runs: { ...DEFAULT_CONFIG.runs, ...runs } } });
  cleanups(t)(async () => {
    await engine.close();
    if (own !== undefined) fs.rmSync(own, { recursive: true, force: true });
  });
  return engine;
}

/** Write a horde folder: `horde.md` front matter and one `agents/<name>.md` per step (TOML lines). */
export function writeHorde(dir: string, hordeToml: string, steps: Record<string, string>): string {
  fs.mkdirSync(path.join(dir, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'horde.md'), `---\n${hordeToml.trim()}\n---\n`);
  for (const [name, toml] of Object.entries(steps)) fs.writeFileSync(path.join(dir, 'agents', `${name}.md`), `---\nname = "${name}"\n${toml.trim()}\n---\n`);
  return dir;
}

/** Every pid whose environment holds `name=value` (e.g. KOWALSKI_STEP_TOKEN, KOWALSKI_RUN_ID). */
export function processesWithEnv(name: string, value: string): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(`${name}=${value}`)) out.push(Number(entry));
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

/** Every pid whose environment holds KOWALSKI_STEP_TOKEN=<token>. */
export function processesWithToken(token: string): number[] {
  return processesWithEnv('KOWALSKI_STEP_TOKEN', token);
}

/** The process group of `pid` (from /proc), or -1 when it is gone. */
export function processGroupOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return -1;
  }
}

/** Resolve when `engine` commits an event matching `match`. */
export function nextEvent(engine: Engine, match: (type: string, step: string | undefined) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const off = engine.on('run:event', ({ stored }) => {
      const e = stored.event;
      if (match(e.type, 'step' in e ? e.step : undefined)) {
        off();
        resolve();
      }
    });
  });
}
