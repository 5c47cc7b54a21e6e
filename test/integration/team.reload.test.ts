/**
 * Hot reload of `<data>/team/` in a real engine on a real temp data directory: a profile
 * added, edited, broken (its last good version stays in effect, its problem listed) and
 * removed while the engine runs, each announced by `team:changed`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createEngine } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testOwnCode } from '../../testkit/dist.js';

/** Resolves at the next `team:changed`; fails after `ms` (a guard, not a delay). */
function nextChange(engine: Engine, what: string, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no team:changed within ${ms} ms after ${what}`));
    }, ms);
    const off = engine.on('team:changed', () => {
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

const profile = (description: string, extra = ''): string => `---\nname = "critic"\ndescription = "${description}"\n${extra}\n---\n\nYou criticise kindly.\n`;

test('a profile added, edited, broken and removed under <data>/team/ while the engine runs', async (t) => {
  const home = tempDir(t, 'kw-team-reload-');
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home, reloadDebounceMs: 50 });
  cleanups(t)(() => engine.close());
  await engine.team.start();
  const file = path.join(home, 'team', 'critic.md');
  assert.equal(engine.team.get('critic'), undefined);

  let changed = nextChange(engine, 'adding critic.md');
  fs.writeFileSync(file, profile('First.'));
  await changed;
  assert.deepEqual([engine.team.get('critic')?.description, engine.team.get('critic')?.origin], ['First.', 'user']);

  changed = nextChange(engine, 'editing critic.md');
  fs.writeFileSync(file, profile('Second.', 'tools = ["web_search"]'));
  await changed;
  assert.deepEqual(engine.team.get('critic')?.tools, ['web_search']);

  changed = nextChange(engine, 'breaking critic.md');
  fs.writeFileSync(file, profile('Third.', 'tools = ["rm_rf"]'));
  await changed;
  assert.equal(engine.team.get('critic')?.description, 'Second.', 'the last good version stays in effect');
  assert.deepEqual(engine.team.catalog().problems.map((p) => [p.file, p.code, p.key, p.line]), [[file, 'KW_ERR_TOOL_UNKNOWN', 'tools[0]', 4]]);

  changed = nextChange(engine, 'fixing critic.md');
  fs.writeFileSync(file, profile('Fourth.'));
  await changed;
  assert.equal(engine.team.get('critic')?.description, 'Fourth.');
  assert.deepEqual(engine.team.catalog().problems, []);

  changed = nextChange(engine, 'removing critic.md');
  fs.rmSync(file);
  await changed;
  assert.equal(engine.team.get('critic'), undefined);
  assert.deepEqual(engine.team.catalog().profiles.map((p) => p.name), ['archivist', 'assistant', 'builder', 'researcher', 'scribe'], 'the built-ins remain');
});
