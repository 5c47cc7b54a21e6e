/**
 * Cron triggers through the engine on a simulated clock: runs start at the scheduled
 * instants with the time as input; a restart across a firing time fires it once; a
 * 3-day outage follows each catch-up policy (bounded, the rest recorded as missed);
 * daylight-saving changes in a named zone; overlap policies with a slow run; the switch
 * persists across restarts and built-in hordes' triggers arrive off.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import type { Engine, RunRow } from '../../engine/index.js';
import { testEngine, writeHorde } from '../support/engine.js';
import { simulatedTime } from '../support/sim-time.js';
import type { SimTime } from '../support/sim-time.js';
import { tempDir } from '../../testkit/tmp.js';
import { readCommittedAt } from '../support/store-reader.js';
import { waitFor } from '../../testkit/wait.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function open(t: TestContext, home: string, time: SimTime): Promise<Engine> {
  return testEngine(t, { maxParallelSteps: 8 }, home, { clock: time.clock, timers: time.timers });
}

/** A user horde with one step of `kind` and the given `[[triggers]]` TOML. */
function cronHorde(home: string, id: string, triggers: string, kind = 'noop', inputs = ''): void {
  writeHorde(path.join(home, 'hordes', id), `id = "${id}"\npipeline = ["work"]\n${triggers}`, { work: `kind = "${kind}"\n${inputs}` });
}

/** Resolve once the engine has `n` runs of the horde (bounded by the test's timeout). */
function runsOf(engine: Engine, hordeId: string, n: number): Promise<RunRow[]> {
  const now = (): RunRow[] => engine.listRuns({ horde: hordeId, limit: 500 });
  return new Promise((resolve) => {
    if (now().length >= n) {
      resolve(now());
      return;
    }
    const off = engine.on('run:event', () => {
      if (now().length >= n) {
        off();
        resolve(now());
      }
    });
  });
}

/** The firings of a horde as committed in the data folder's run store (SQLite or Postgres). */
function firings(home: string, hordeId: string): Promise<Array<{ key: string; outcome: string; run_id: string | null }>> {
  return readCommittedAt(home, 'SELECT key, outcome, run_id FROM trigger_firings WHERE horde_id = ? ORDER BY id', [hordeId]);
}

test('a cron trigger starts a run at each scheduled instant, with the time as input and trigger provenance; a restart across a firing time fires it once', async (t) => {
  const home = tempDir(t, 'kw-cron-');
  cronHorde(home, 'ticker', '[[triggers]]\nname = "hourly"\nkind = "cron"\nschedule = "0 * * * *"\ntimezone = "Europe/Warsaw"');
  const t0 = Date.parse('2026-03-28T10:30:00Z');
  const time = simulatedTime(t0);
  let engine = await open(t, home, time);
  await engine.triggers.start();
  const view = (await engine.triggers.list()).find((v) => v.hordeId === 'ticker');
  assert.equal(view?.enabled, true, 'a user horde\'s trigger is on as horde.md says');
  assert.equal(view?.nextFireAt, Date.parse('2026-03-28T11:00:00Z'));

  time.advanceTo(Date.parse('2026-03-28T11:00:00Z'));
  const [first] = await runsOf(engine, 'ticker', 1);
  assert.equal(first?.provenance, 'trigger:hourly');
  assert.equal(first?.input.trigger_time, '2026-03-28T11:00:00.000Z');
  assert.equal(first?.input.trigger, 'hourly');
  assert.equal(await engine.waitForRun(first!.id), 'succeeded');
  assert.equal((await engine.triggers.list()).find((v) => v.hordeId === 'ticker')?.nextFireAt, Date.parse('2026-03-28T12:00:00Z'));
  await engine.close();

  // Stopped over 12:00; started again at 12:00:30: 12:00 fires, once.
  const later = simulatedTime(Date.parse('2026-03-28T12:00:30Z'));
  engine = await open(t, home, later);
  await engine.triggers.start();
  const runs = await runsOf(engine, 'ticker', 2);
  assert.deepEqual(runs.map((r) => r.input.trigger_time).sort(), ['2026-03-28T11:00:00.000Z', '2026-03-28T12:00:00.000Z']);
  for (const r of runs) await engine.waitForRun(r.id);
  await engine.close();

  // And again at the same moment: nothing new.
  engine = await open(t, home, simulatedTime(Date.parse('2026-03-28T12:00:40Z')));
  await engine.triggers.start();
  assert.equal(engine.listRuns({ horde: 'ticker' }).length, 2);
  assert.deepEqual((await firings(home, 'ticker')).map((f) => [f.key, f.outcome]), [
    ['cron:2026-03-28T11:00:00.000Z', 'started'],
    ['cron:2026-03-28T12:00:00.000Z', 'started'],
  ]);
});

test('a 3-day outage: skip fires none, once fires only the latest, all fires each up to its bound; the rest are recorded as missed', async (t) => {
  const home = tempDir(t, 'kw-cron-');
  const every6h = (catchUp: string): string => `[[triggers]]\nname = "t"\nkind = "cron"\nschedule = "0 */6 * * *"\ntimezone = "UTC"\ncatch_up = "${catchUp}"\noverlap = "parallel"`;
  cronHorde(home, 'skipper', every6h('skip'));
  cronHorde(home, 'oncer', every6h('once'));
  cronHorde(home, 'aller', every6h('all'));
  cronHorde(home, 'flood', '[[triggers]]\nname = "t"\nkind = "cron"\nschedule = "*/30 * * * *"\ntimezone = "UTC"\ncatch_up = "all"\noverlap = "parallel"');
  const t0 = Date.parse('2026-05-01T01:00:00Z');
  let engine = await open(t, home, simulatedTime(t0));
  await engine.triggers.start();
  await engine.close();

  engine = await open(t, home, simulatedTime(t0 + 3 * DAY));
  await engine.triggers.start();
  // 01:00 May 1 → 01:00 May 4 holds 12 six-hourly instants and 144 half-hours.
  const once = await runsOf(engine, 'oncer', 1);
  const all = await runsOf(engine, 'aller', 12);
  const flood = await runsOf(engine, 'flood', 100);
  for (const r of [...once, ...all, ...flood]) await engine.waitForRun(r.id);
  assert.equal(engine.listRuns({ horde: 'skipper' }).length, 0);
  assert.deepEqual(once.map((r) => r.input.trigger_time), ['2026-05-04T00:00:00.000Z']);
  assert.equal(all.length, 12);
  assert.equal(engine.listRuns({ horde: 'flood', limit: 500 }).length, 100, 'all is bounded');

  const count = async (hordeId: string, outcome: string): Promise<number> => (await firings(home, hordeId)).filter((f) => f.outcome === outcome).length;
  assert.equal(await count('skipper', 'missed'), 12);
  assert.equal(await count('oncer', 'missed'), 11);
  assert.equal(await count('oncer', 'started'), 1);
  assert.equal(await count('aller', 'missed'), 0);
  assert.equal(await count('flood', 'started'), 100);
  assert.equal(await count('flood', 'missed'), 44);
  assert.equal((await engine.triggers.list()).find((v) => v.hordeId === 'skipper')?.nextFireAt, Date.parse('2026-05-04T06:00:00Z'));
});

test('daylight saving in Europe/Warsaw: a daily 02:30 fires once on the night the clocks go back, and the hourly schedule never fires an instant twice', async (t) => {
  const home = tempDir(t, 'kw-cron-');
  cronHorde(home, 'nightly', '[[triggers]]\nname = "t"\nkind = "cron"\nschedule = "30 2 * * *"\ntimezone = "Europe/Warsaw"\noverlap = "parallel"');
  cronHorde(home, 'hourly', '[[triggers]]\nname = "t"\nkind = "cron"\nschedule = "0 * * * *"\ntimezone = "Europe/Warsaw"\noverlap = "parallel"');
  const time = simulatedTime(Date.parse('2026-10-24T12:00:00Z'));
  const engine = await open(t, home, time);
  await engine.triggers.start();
  // Step through the two days an hour at a time, as a running server would live them.
  for (let at = Date.parse('2026-10-24T12:00:00Z'); at <= Date.parse('2026-10-26T12:00:00Z'); at += HOUR / 2) time.advanceTo(at);
  const nightly = await runsOf(engine, 'nightly', 2);
  const hourly = await runsOf(engine, 'hourly', 48);
  for (const r of [...nightly, ...hourly]) await engine.waitForRun(r.id);
  // 02:30 CEST on the 25th does not exist twice: 00:30Z on the 25th (CEST), 01:30Z on the 26th (CET).
  assert.deepEqual(nightly.map((r) => r.input.trigger_time).sort(), ['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  const times = hourly.map((r) => r.input.trigger_time!);
  assert.equal(new Set(times).size, times.length, 'no instant twice');
  assert.equal(engine.listRuns({ horde: 'hourly', limit: 500 }).length, 48, '48 real hours from 12:00Z to 12:00Z two days later');
});

test('overlap with a slow run: skip drops, queue_one keeps one waiting and starts it when the run ends, parallel starts every firing', async (t) => {
  const home = tempDir(t, 'kw-cron-');
  const gate = path.join(home, 'release');
  const inputs = '[[inputs]]\nid = "gate"\ntype = "text"';
  for (const overlap of ['skip', 'queue_one', 'parallel']) {
    cronHorde(home, `slow-${overlap.replace('_', '-')}`, `[[triggers]]\nname = "t"\nkind = "cron"\nschedule = "* * * * *"\ntimezone = "UTC"\noverlap = "${overlap}"\ninput = { gate = "${gate}" }`, 'gate', inputs);
  }
  const t0 = Date.parse('2026-06-01T00:00:30Z');
  const time = simulatedTime(t0);
  const engine = await open(t, home, time);
  await engine.triggers.start();
  for (let minute = 1; minute <= 3; minute++) {
    time.advanceTo(Date.parse('2026-06-01T00:00:00Z') + minute * 60_000);
    await Promise.all([runsOf(engine, 'slow-skip', 1), runsOf(engine, 'slow-queue-one', 1), runsOf(engine, 'slow-parallel', minute)]);
  }
  // Every firing is handled (recorded) before the runs are released.
  await waitFor(async () => (await firings(home, 'slow-queue-one')).length === 3 && (await firings(home, 'slow-skip')).length === 3, 'three firings of each recorded');
  assert.deepEqual((await firings(home, 'slow-skip')).map((f) => f.outcome), ['started', 'skipped', 'skipped']);
  assert.deepEqual((await firings(home, 'slow-queue-one')).map((f) => f.outcome), ['started', 'queued', 'skipped']);
  const views = await engine.triggers.list();
  assert.equal(views.find((v) => v.hordeId === 'slow-parallel')?.active, 3);

  fs.writeFileSync(gate, 'go');
  const queued = await runsOf(engine, 'slow-queue-one', 2);
  for (const r of engine.listRuns({ limit: 500 })) assert.equal(await engine.waitForRun(r.id), 'succeeded');
  assert.equal(queued.length, 2);
  assert.equal(engine.listRuns({ horde: 'slow-skip' }).length, 1);
  assert.equal(engine.listRuns({ horde: 'slow-parallel' }).length, 3);
  assert.deepEqual((await firings(home, 'slow-queue-one')).map((f) => f.outcome), ['started', 'started', 'skipped'], 'the waiting firing started once the run ended');
});

test('switches persist across restarts; a built-in horde\'s trigger arrives off', async (t) => {
  const home = tempDir(t, 'kw-cron-');
  cronHorde(home, 'ticker', '[[triggers]]\nname = "hourly"\nkind = "cron"\nschedule = "0 * * * *"');
  const builtins = tempDir(t, 'kw-builtin-');
  writeHorde(path.join(builtins, 'shipped'), 'id = "shipped"\npipeline = ["work"]\n[[triggers]]\nname = "nightly"\nkind = "cron"\nschedule = "0 3 * * *"\ntimezone = "UTC"\nenabled = true', { work: 'kind = "noop"' });
  const time = simulatedTime(Date.parse('2026-06-01T00:00:00Z'));
  const make = (): Promise<Engine> => testEngine(t, {}, home, { clock: time.clock, timers: time.timers, builtinHordesDir: builtins });
  let engine = await make();
  const views = await engine.triggers.list();
  assert.equal(views.find((v) => v.hordeId === 'shipped')?.enabled, false, 'built-in triggers arrive off even when horde.md says enabled');
  assert.equal(views.find((v) => v.hordeId === 'shipped')?.nextFireAt, null);
  const off = await engine.triggers.setEnabled('ticker', 'hourly', false);
  assert.equal(off.enabled, false);
  await assert.rejects(engine.triggers.setEnabled('ticker', 'nope', true), { code: 'KW_ERR_TRIGGER_NOT_FOUND' });
  await engine.close();
  engine = await make();
  const again = await engine.triggers.list();
  assert.equal(again.find((v) => v.hordeId === 'ticker')?.enabled, false, 'the switch survived the restart');
  const on = await engine.triggers.setEnabled('shipped', 'nightly', true);
  assert.equal(on.enabled, true);
  assert.equal(on.nextFireAt, Date.parse('2026-06-01T03:00:00Z'));
});
