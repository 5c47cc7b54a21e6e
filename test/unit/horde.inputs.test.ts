import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadHorde } from '../../engine/horde/index.js';
import { baseFiles, expectError, expectOk, expectProblem, writeHorde } from '../fixtures/hordes/temp-horde.js';
import type { TempHorde } from '../fixtures/hordes/temp-horde.js';
import { cleanups } from '../../testkit/cleanup.js';

/** A base horde whose intake step declares these [[inputs]] (TOML text). */
function withInputs(toml: string): TempHorde {
  return writeHorde(baseFiles({ intake: `---\nname = "intake"\nkind = "ingest"\n\n${toml}\n---\n` }));
}

void test('label defaults to the id, required to false, type to text', async (t) => {
  const h = withInputs('[[inputs]]\nid = "q"\n\n[[inputs]]\nid = "r"\nlabel = "Question"\nrequired = true\nplaceholder = "…"\ntype = "url"');
  cleanups(t)(h.cleanup);
  assert.deepEqual(expectOk(await loadHorde(h.dir)).horde.inputs, [
    { id: 'q', type: 'text', label: 'q', required: false },
    { id: 'r', type: 'url', label: 'Question', required: true, placeholder: '…' },
  ]);
});

void test('bad [[inputs]] entries: each is KW_ERR_INPUTS_INVALID on its own key and line', async (t) => {
  // Lines of the file: 1 ---, 2 name, 3 kind, 4 blank, then the TOML below from line 5.
  const toml = [
    '[[inputs]]', 'id = "a"', 'type = 3', //        inputs[0].type, line 7
    '', '[[inputs]]', 'id = "a"', //               inputs[1].id (duplicate), line 10
    '', '[[inputs]]', 'id = "c"', 'type = "choice"', // inputs[2].options missing
    '', '[[inputs]]', 'id = "d"', 'type = "choice"', 'options = []', // inputs[3].options empty, line 19
    '', '[[inputs]]', 'id = "e"', 'type = "choice"', 'options = ["x", "y"]', 'default = "z"', // inputs[4].default, line 25
    '', '[[inputs]]', 'label = "no id"', //          inputs[5].id missing: its [[inputs]] line, 27
    '', '[[inputs]]', 'id = "has space"', //         inputs[6].id bad, line 31
    '', '[[inputs]]', 'id = "g"', 'required = "yes"', // inputs[7].required, line 35
  ].join('\n');
  const h = withInputs(toml);
  cleanups(t)(h.cleanup);
  const r = await loadHorde(h.dir);
  const file = 'agents/intake.md';
  const code = 'KW_ERR_INPUTS_INVALID';
  expectError(r, { code, file, key: 'inputs[0].type', line: 7 });
  const dup = expectError(r, { code, file, key: 'inputs[1].id', line: 10 });
  assert.match(dup.message, /declared twice/);
  expectError(r, { code, file, key: 'inputs[2].options' });
  expectError(r, { code, file, key: 'inputs[3].options', line: 19 });
  const def = expectError(r, { code, file, key: 'inputs[4].default', line: 25 });
  assert.match(def.message, /"z" is not one of the options/);
  expectError(r, { code, file, key: 'inputs[5].id', line: 27 });
  expectError(r, { code, file, key: 'inputs[6].id', line: 31 });
  expectError(r, { code, file, key: 'inputs[7].required', line: 35 });
});

void test('the form is the inputs of the first step in pipeline order that declares any', async (t) => {
  // `check` runs before `report` but after `intake`; intake declares none here.
  const h = writeHorde(baseFiles({
    intake: '---\nname = "intake"\nkind = "ingest"\n---\n',
    check: '---\nname = "check"\nkind = "verify"\nverify_command = "test -d {{input.dir}}"\n\n[[inputs]]\nid = "dir"\ntype = "path"\n---\n',
    report: '---\nname = "report"\nkind = "verify"\nverify_command = "true"\n\n[[inputs]]\nid = "ignored"\n---\n',
  }));
  cleanups(t)(h.cleanup);
  const { horde } = expectOk(await loadHorde(h.dir));
  assert.deepEqual(horde.inputs.map((i) => i.id), ['dir']);
  assert.deepEqual(horde.steps.report?.inputs.map((i) => i.id), ['ignored']);
});

void test('an input declared only by a later step is not part of the form, so a placeholder naming it is an error', async (t) => {
  const h = writeHorde(baseFiles({
    check: '---\nname = "check"\nkind = "verify"\nverify_command = "echo {{input.late}}"\n---\n',
    report: '---\nname = "report"\nkind = "verify"\nverify_command = "true"\n\n[[inputs]]\nid = "late"\n---\n',
  }));
  cleanups(t)(h.cleanup);
  expectError(await loadHorde(h.dir), { code: 'KW_ERR_KEY_VALUE', file: 'agents/check.md', key: 'verify_command', line: 4 });
});

void test('an input type kowalski does not know (1.x "number") is a plain text field with KW_WARN_INPUT_TYPE_UNKNOWN naming file, key and line', async (t) => {
  const h = withInputs(['[[inputs]]', 'id = "count"', 'type = "number"', 'label = "How many"'].join('\n'));
  cleanups(t)(h.cleanup);
  const r = await loadHorde(h.dir);
  const { horde } = expectOk(r);
  assert.deepEqual(horde.inputs, [{ id: 'count', type: 'text', label: 'How many', required: false }]);
  const w = expectProblem(r, { code: 'KW_WARN_INPUT_TYPE_UNKNOWN', file: 'agents/intake.md', key: 'inputs[0].type', line: 7, severity: 'warning' });
  assert.match(w.message, /"number"/);
});
