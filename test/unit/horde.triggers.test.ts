import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { cronProblem, loadHorde, timezoneProblem } from '../../engine/horde/index.js';
import { FIXTURES, baseFiles, expectError, expectOk, writeHorde } from '../fixtures/hordes/temp-horde.js';
import type { TempHorde } from '../fixtures/hordes/temp-horde.js';
import { cleanups } from '../../testkit/cleanup.js';

/** The base horde (form: `project`) with these [[triggers]] (TOML text, starting on line 4). */
function withTriggers(toml: string): TempHorde {
  return writeHorde(baseFiles({ horde: `---\nid = "base"\npipeline = ["intake", "check", "report"]\n${toml}\n---\n` }));
}

void test('cron, watch and webhook triggers load with their keys and defaults', async () => {
  const { horde } = expectOk(await loadHorde(path.join(FIXTURES, 'full')));
  assert.deepEqual(horde.triggers, [
    {
      name: 'nightly', kind: 'cron', enabled: false, overlap: 'queue_one', input: { project: '/srv/app', mode: 'fast' }, extra: {},
      schedule: '0 6 * * MON-FRI', timezone: 'Europe/Warsaw', catchUp: 'all',
    },
    {
      name: 'inbox', kind: 'watch', enabled: true, overlap: 'skip', input: {}, extra: {},
      path: '~/Statements', globs: ['*.xlsx', '*.csv'], debounceMs: 500,
    },
    {
      name: 'from-ci', kind: 'webhook', enabled: true, overlap: 'parallel', input: {}, extra: { note: 'kept as written' },
      secretEnv: 'KOWALSKI_HOOK_SECRET',
    },
  ]);
});

void test('defaults: enabled true, overlap skip, catch_up once, debounce_ms 2000', async (t) => {
  const h = withTriggers('[[triggers]]\nname = "c"\nkind = "cron"\nschedule = "*/5 * * * *"\n\n[[triggers]]\nname = "w"\nkind = "watch"\npath = "in"');
  cleanups(t)(h.cleanup);
  const [cron, watch] = expectOk(await loadHorde(h.dir)).horde.triggers;
  assert.equal(cron?.enabled, true);
  assert.equal(cron?.overlap, 'skip');
  assert.equal(cron?.catchUp, 'once');
  assert.equal(cron?.timezone, undefined);
  assert.equal(watch?.debounceMs, 2000);
  assert.equal(watch?.globs, undefined);
});

void test('bad triggers: each is KW_ERR_TRIGGER_INVALID on its key and line', async (t) => {
  // File lines: 1 ---, 2 id, 3 pipeline, 4 blank, 5 [[triggers]], then the case's TOML from line 6.
  const cases: [string, string, number, RegExp][] = [
    ['name = "Nightly"\nkind = "webhook"', 'triggers[0].name', 6, /lower-case/],
    ['name = "a"\nkind = "email"', 'triggers[0].kind', 7, /"cron", "watch", "webhook"/],
    ['name = "a"', 'triggers[0].kind', 5, /kind is required/],
    ['kind = "webhook"', 'triggers[0].name', 5, /name is required/],
    ['name = "a"\nkind = "cron"', 'triggers[0].schedule', 5, /schedule is required/],
    ['name = "a"\nkind = "cron"\nschedule = "0 6 * *"', 'triggers[0].schedule', 8, /has 4 fields/],
    ['name = "a"\nkind = "cron"\nschedule = "0 6 * * 1-5 2024 x"', 'triggers[0].schedule', 8, /has 7 fields/],
    ['name = "a"\nkind = "cron"\nschedule = "0 6 * * $(rm)"', 'triggers[0].schedule', 8, /"\$\(rm\)"/],
    ['name = "a"\nkind = "cron"\nschedule = "0 6 * * 1"\ntimezone = "Mars/Olympus"', 'triggers[0].timezone', 9, /"Mars\/Olympus"/],
    ['name = "a"\nkind = "cron"\nschedule = "0 6 * * 1"\ncatch_up = "never"', 'triggers[0].catch_up', 9, /"skip", "once", "all"/],
    ['name = "a"\nkind = "watch"', 'triggers[0].path', 5, /path is required/],
    ['name = "a"\nkind = "watch"\npath = "in"\nglobs = "*.csv"', 'triggers[0].globs', 9, /array of strings/],
    ['name = "a"\nkind = "watch"\npath = "in"\ndebounce_ms = -1', 'triggers[0].debounce_ms', 9, /at least 0/],
    ['name = "a"\nkind = "webhook"\nsecret_env = "MY-SECRET"', 'triggers[0].secret_env', 8, /environment variable name/],
    ['name = "a"\nkind = "webhook"\nschedule = "* * * * *"', 'triggers[0].schedule', 8, /for cron triggers/],
    ['name = "a"\nkind = "webhook"\nenabled = "yes"', 'triggers[0].enabled', 8, /true or false/],
    ['name = "a"\nkind = "webhook"\noverlap = "always"', 'triggers[0].overlap', 8, /"skip", "queue_one", "parallel"/],
    ['name = "a"\nkind = "webhook"\ninput = { nope = "x" }', 'triggers[0].input.nope', 8, /not an input of this horde \(declared inputs: project\)/],
    ['name = "a"\nkind = "webhook"\ninput = { project = 3 }', 'triggers[0].input.project', 8, /must be a string/],
    ['name = "a"\nkind = "webhook"\ninput = "project=x"', 'triggers[0].input', 8, /must be a table/],
  ];
  for (const [toml, key, line, message] of cases) {
    const h = withTriggers(`\n[[triggers]]\n${toml}`);
    cleanups(t)(h.cleanup);
    const p = expectError(await loadHorde(h.dir), { code: 'KW_ERR_TRIGGER_INVALID', file: 'horde.md', key, line });
    assert.match(p.message, message, toml);
  }
});

void test('trigger names are unique', async (t) => {
  const h = withTriggers('\n[[triggers]]\nname = "a"\nkind = "webhook"\n\n[[triggers]]\nname = "a"\nkind = "webhook"');
  cleanups(t)(h.cleanup);
  const p = expectError(await loadHorde(h.dir), { code: 'KW_ERR_TRIGGER_INVALID', file: 'horde.md', key: 'triggers[1].name', line: 10 });
  assert.match(p.message, /used twice/);
});

void test('input written as a [triggers.input] sub-table is found and checked too', async (t) => {
  const h = withTriggers('\n[[triggers]]\nname = "a"\nkind = "webhook"\n\n[triggers.input]\nproject = "/srv"\nother = "x"');
  cleanups(t)(h.cleanup);
  expectError(await loadHorde(h.dir), { code: 'KW_ERR_TRIGGER_INVALID', file: 'horde.md', key: 'triggers[0].input.other', line: 11 });
});

void test('cron schedules: 5 or 6 fields of cron characters and names', () => {
  for (const ok of ['0 6 * * 1-5', '*/15 * * * *', '0 0 6 ? * MON-FRI', '0 0 L * *', '0 0 * * 5#3', '0 0 1 JAN,jul *', '30 0 6 * * SUN']) {
    assert.equal(cronProblem(ok), undefined, ok);
  }
  for (const bad of ['@daily', '0 6 * *', '0 6 * * MONDAY', '0 6 * * 1;reboot', '', '0 0 15W * *' /* W: not supported by the scheduler */]) {
    assert.notEqual(cronProblem(bad), undefined, bad);
  }
});

void test('time zones are checked with Intl', () => {
  assert.equal(timezoneProblem('Europe/Warsaw'), undefined);
  assert.equal(timezoneProblem('UTC'), undefined);
  assert.match(timezoneProblem('Europe/Atlantis') ?? '', /"Europe\/Atlantis"/);
});
