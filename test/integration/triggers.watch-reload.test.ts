/**
 * The engine's side of watch triggers and hot reload, with real files: a settled file
 * starts one run carrying its path (filling the horde's path input); adding, editing
 * and removing horde folders under `<data>/hordes/` updates the triggers while the
 * server runs, a horde that became invalid keeps its last good version's triggers, and
 * a run in flight keeps the prompts it started with. The watched files' hashes are kept in
 * the run store: across a restart, a file changed while the engine was stopped fires once
 * and an unchanged one does not.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import type { Engine, RunRow } from '../../engine/index.js';
import type { TriggerView } from '../../contract/triggers.js';
import { buildMessages } from '../../steps/model-prompt.js';
import type { StepTask } from '../../steps/index.js';
import { testEngine, writeHorde } from '../support/engine.js';
import { tempDir } from '../../testkit/tmp.js';
import { readCommittedAt } from '../support/store-reader.js';
import { waitFor } from '../../testkit/wait.js';

/** The triggers of the hordes under the data folder's hordes/ (the built-in hordes ship theirs, switched off). */
async function userTriggers(engine: Engine): Promise<TriggerView[]> {
  const builtin = new Set((await engine.catalog()).entries.filter((e) => e.origin === 'builtin').map((e) => e.id));
  return (await engine.triggers.list()).filter((v) => !builtin.has(v.hordeId));
}

async function started(t: TestContext, home: string): Promise<Engine> {
  const engine = await testEngine(t, {}, home, { reloadDebounceMs: 50 });
  await engine.triggers.start();
  return engine;
}

function nextRun(engine: Engine, hordeId: string): Promise<RunRow> {
  return new Promise((resolve) => {
    const off = engine.on('run:event', ({ stored }) => {
      if (stored.event.type === 'run.created' && stored.event.hordeId === hordeId) {
        off();
        resolve(engine.getRunRow(stored.runId));
      }
    });
  });
}

function catalogChanged(engine: Engine): Promise<void> {
  return new Promise((resolve) => {
    const off = engine.on('catalog:changed', () => {
      off();
      resolve();
    });
  });
}

test('a watch trigger starts one run per settled file, with the file as the horde\'s path input', async (t) => {
  const home = tempDir(t, 'kw-watch-');
  const inbox = tempDir(t, 'kw-inbox-');
  writeHorde(path.join(home, 'hordes', 'inbox'), `id = "inbox"\npipeline = ["work"]\n[[triggers]]\nname = "drop"\nkind = "watch"\npath = "${inbox}"\nglobs = ["*.csv"]\ndebounce_ms = 150\noverlap = "parallel"`, {
    work: 'kind = "noop"\n[[inputs]]\nid = "data"\ntype = "path"\nrequired = true',
  });
  const engine = await started(t, home);
  const run = nextRun(engine, 'inbox');
  const file = path.join(inbox, 'sales.csv');
  const out = fs.openSync(file, 'w');
  for (let i = 0; i < 10; i++) fs.writeSync(out, `row ${i}\n`);
  fs.closeSync(out);
  fs.writeFileSync(path.join(inbox, 'notes.txt'), 'not a csv');
  const row = await run;
  assert.equal(row.provenance, 'trigger:drop');
  assert.equal(row.input.data, file, 'the watched file fills the path input');
  assert.equal(row.input.trigger_path, file);
  assert.equal(await engine.waitForRun(row.id), 'succeeded');
  assert.equal(engine.listRuns({ horde: 'inbox' }).length, 1, 'one run for the settled file, none for the .txt');
});

test('across a restart the watched files\' hashes are kept in the run store: a file changed while stopped fires once, an unchanged one does not', { timeout: 30_000 }, async (t) => {
  const home = tempDir(t, 'kw-watch-');
  const inbox = tempDir(t, 'kw-inbox-');
  writeHorde(path.join(home, 'hordes', 'inbox'), `id = "inbox"\npipeline = ["work"]\n[[triggers]]\nname = "drop"\nkind = "watch"\npath = "${inbox}"\nglobs = ["*.csv"]\ndebounce_ms = 150\noverlap = "parallel"`, {
    work: 'kind = "noop"\n[[inputs]]\nid = "data"\ntype = "path"\nrequired = true',
  });
  const same = path.join(inbox, 'same.csv');
  const edited = path.join(inbox, 'edited.csv');
  let engine = await started(t, home);
  for (const file of [same, edited]) {
    const run = nextRun(engine, 'inbox');
    fs.writeFileSync(file, 'first\n');
    assert.equal(await engine.waitForRun((await run).id), 'succeeded');
  }
  const stored = await readCommittedAt<{ path: string }>(home, 'SELECT path FROM watch_hashes WHERE horde_id = ? ORDER BY path', ['inbox']);
  assert.deepEqual(stored.map((r) => r.path), [edited, same], 'both files\' hashes are committed');
  const before = engine.listRuns({ horde: 'inbox' }).map((r) => r.id);
  await engine.close();

  fs.writeFileSync(edited, 'second\n');
  engine = await started(t, home);
  // The start scan may fire it before started() returns: wait on the store, not on an event.
  await waitFor(() => engine.listRuns({ horde: 'inbox' }).length >= 3, 'the edited file\'s run');
  const [row] = engine.listRuns({ horde: 'inbox' }).filter((r) => !before.includes(r.id));
  assert.equal(row?.input.data, edited);
  assert.equal(await engine.waitForRun(row.id), 'succeeded');
  // The start scan saw both files at once; give the unchanged one more than its debounce to (wrongly) fire.
  await new Promise((resolve) => setTimeout(resolve, 600));
  assert.deepEqual(engine.listRuns({ horde: 'inbox' }).map((r) => r.input.data).sort(), [edited, edited, same].sort(), 'the unchanged file did not fire again');
});

test('hot reload: a horde added, broken and removed under hordes/ while the server runs; a run in flight keeps its prompts', async (t) => {
  const home = tempDir(t, 'kw-reload-');
  fs.mkdirSync(path.join(home, 'hordes'), { recursive: true });
  const engine = await started(t, home);
  assert.equal((await userTriggers(engine)).length, 0);

  const dir = path.join(home, 'hordes', 'fresh');
  let changed = catalogChanged(engine);
  writeHorde(dir, 'id = "fresh"\npipeline = ["work"]\n[[triggers]]\nname = "daily"\nkind = "cron"\nschedule = "0 6 * * *"\ntimezone = "UTC"', { work: 'kind = "noop"' });
  await changed;
  const added = await userTriggers(engine);
  assert.deepEqual(added.map((v) => [v.hordeId, v.name, v.enabled]), [['fresh', 'daily', true]]);
  assert.equal(typeof added[0]?.nextFireAt, 'number');

  // Broken: the catalog shows the error, the triggers keep the last good version.
  changed = catalogChanged(engine);
  fs.writeFileSync(path.join(dir, 'horde.md'), '---\nid = "fresh"\npipeline = ["work", "missing"]\n---\n');
  await changed;
  const entry = (await engine.catalog()).entries.find((e) => e.id === 'fresh');
  assert.equal(entry?.result.ok, false);
  assert.deepEqual((await userTriggers(engine)).map((v) => v.name), ['daily'], 'the last good version keeps its trigger');

  // Removed: gone.
  changed = catalogChanged(engine);
  fs.rmSync(dir, { recursive: true });
  await changed;
  assert.equal((await userTriggers(engine)).length, 0);

  // A run keeps the prompt text it started with, whatever happens to the folder after.
  const promptDir = path.join(home, 'hordes', 'prompted');
  changed = catalogChanged(engine);
  writeHorde(promptDir, 'id = "prompted"\npipeline = ["work"]', { work: 'kind = "process"\nprompt_file = "prompts/p.md"' });
  fs.mkdirSync(path.join(promptDir, 'prompts'));
  fs.writeFileSync(path.join(promptDir, 'prompts', 'p.md'), 'Version one of the instructions.');
  await changed;
  const { horde } = await engine.resolveHorde('prompted');
  const runId = await engine.startRun(horde, {});
  fs.writeFileSync(path.join(promptDir, 'prompts', 'p.md'), 'Version two.');
  const created = engine.events(runId)[0]!.event;
  assert.equal(created.type, 'run.created');
  const snapshot = created.type === 'run.created' ? created.horde : horde;
  assert.equal(snapshot.prompts?.['prompts/p.md'], 'Version one of the instructions.');
  const task = { horde: snapshot, step: snapshot.steps.work!, input: {}, workdir: home } as unknown as StepTask;
  assert.match(buildMessages(task)[1]!.content, /Version one of the instructions\./, 'the step builds its prompt from the snapshot');
  await engine.waitForRun(runId);
});
