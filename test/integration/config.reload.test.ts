/**
 * config.toml edited by hand while a real engine runs on a real data folder: each edit is read
 * again (`config:reloaded`), one that no longer parses keeps the settings in effect and says
 * which line, and a file replaced by a rename (as editors save) is seen too.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createEngine } from '../../engine/index.js';
import type { Engine, EngineEventMap } from '../../engine/index.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testOwnCode } from '../../testkit/dist.js';

/** Resolves with the next `event`; fails after `ms` (a guard, not a delay). */
function next<K extends 'config:reloaded' | 'engine:warning'>(engine: Engine, event: K, what: string, ms = 10_000): Promise<EngineEventMap[K]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no ${event} within ${ms} ms after ${what}`));
    }, ms);
    const off = engine.on(event, (payload) => {
      clearTimeout(timer);
      off();
      resolve(payload);
    });
  });
}

test('config.toml edited by hand while the engine runs: read again, a broken edit keeps the settings in effect, a rename-over is seen', async (t) => {
  const home = tempDir(t, 'kw-config-reload-');
  const file = path.join(home, 'config.toml');
  fs.writeFileSync(file, '# mine\n[model]\ntool_calling = "auto"\n', { mode: 0o600 });
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home, reloadDebounceMs: 50 });
  cleanups(t)(() => engine.close());
  await engine.watchConfig();
  assert.equal(engine.config.model.default, undefined);

  let reloaded = next(engine, 'config:reloaded', 'setting [model] default');
  fs.writeFileSync(file, '# mine\n[model]\ntool_calling = "auto"\ndefault = "ollama:qwen2.5:7b"\n');
  assert.deepEqual(await reloaded, { file });
  assert.equal(engine.config.model.default, 'ollama:qwen2.5:7b');

  const warned = next(engine, 'engine:warning', 'breaking the file');
  fs.writeFileSync(file, '# mine\n[model]\ndefault = "ollama:llama3.2:3b\n');
  const { message } = await warned;
  assert.match(message, /^config\.toml changed but does not load, so the settings read before stay in effect: .*config\.toml:3/);
  assert.equal(engine.config.model.default, 'ollama:qwen2.5:7b', 'the settings read before stay in effect');

  reloaded = next(engine, 'config:reloaded', 'a fixed file renamed over it');
  fs.writeFileSync(`${file}.tmp`, '[model]\ndefault = "ollama:llama3.2:3b"\n', { mode: 0o600 });
  fs.renameSync(`${file}.tmp`, file);
  await reloaded;
  assert.equal(engine.config.model.default, 'ollama:llama3.2:3b');
});
