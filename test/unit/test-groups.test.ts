/** npm test's entries (test/support/test-groups.ts): every test file runs once, in a group or in a process of its own. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { membersOf, suiteEntries, testFiles } from '../support/test-groups.js';

const TEST = fileURLToPath(new URL('..', import.meta.url));

test('every test file outside test/groups/ runs exactly once: as an entry of npm test or in one group; no group is empty', () => {
  const entries = suiteEntries().map((f) => path.resolve(f));
  const groups = entries.filter((f) => f.startsWith(path.join(TEST, 'groups') + path.sep));
  const runs = entries.filter((f) => !groups.includes(f));
  for (const group of groups) {
    const members = membersOf(group);
    assert.ok(members.length > 0, `${group} runs no file`);
    runs.push(...members);
  }
  const all = fs.readdirSync(TEST, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'groups')
    .flatMap((d) => testFiles(path.join(TEST, d.name)));
  assert.deepEqual([...runs].sort(), all);
  assert.ok(runs.some((f) => f.endsWith(path.join('test', 'unit', 'test-groups.test.ts'))), 'the unit files are in the unit group');
});

test('a file that sets the environment at its top level keeps a process of its own, and so does a wrapper of one', () => {
  const own = suiteEntries().map((f) => path.resolve(f));
  for (const name of ['integration/steps.xlsx-report.test.ts', 'integration/engine.rerun.test.ts', 'integration/pg.engine.rerun.test.ts']) {
    assert.ok(own.includes(path.join(TEST, name)), `${name} runs in a process of its own`);
  }
});
