import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadHorde } from '../../engine/horde/index.js';
import { baseFiles, expectError, expectOk, expectProblem, writeHorde } from '../fixtures/hordes/temp-horde.js';
import type { TempHorde } from '../fixtures/hordes/temp-horde.js';
import { cleanups } from '../../testkit/cleanup.js';

/** A base horde whose `check` step has this front matter (name = "check" is added first). */
function withCheck(toml: string, extra: Record<string, string> = {}): TempHorde {
  return writeHorde({ ...baseFiles({ check: `---\nname = "check"\n${toml}\n---\n` }), ...extra });
}

async function load(h: TempHorde, options: Parameters<typeof loadHorde>[1] = {}): ReturnType<typeof loadHorde> {
  return loadHorde(h.dir, options);
}

void test('a pipeline step without agents/<step>.md is an error on its pipeline entry', async (t) => {
  const files = baseFiles();
  delete files['agents/check.md'];
  const h = writeHorde(files);
  cleanups(t)(h.cleanup);
  const p = expectError(await load(h), { code: 'KW_ERR_STEP_FILE_MISSING', file: 'horde.md', key: 'pipeline[1]', line: 3 });
  assert.match(p.message, /agents\/check\.md/);
});

void test('a file whose name differs from its file name is KW_ERR_STEP_NAME_MISMATCH', async (t) => {
  const h = writeHorde(baseFiles({ check: '---\nname = "checks"\nkind = "verify"\nverify_command = "true"\n---\n' }));
  cleanups(t)(h.cleanup);
  const p = expectError(await load(h), { code: 'KW_ERR_STEP_NAME_MISMATCH', file: 'agents/check.md', key: 'name', line: 2 });
  assert.match(p.message, /"checks"/);
});

void test('name and kind are required', async (t) => {
  const h = writeHorde(baseFiles({ check: '---\nverify_command = "true"\n---\n' }));
  cleanups(t)(h.cleanup);
  const r = await load(h);
  expectError(r, { code: 'KW_ERR_KEY_MISSING', file: 'agents/check.md', key: 'name' });
  expectError(r, { code: 'KW_ERR_KEY_MISSING', file: 'agents/check.md', key: 'kind' });
});

void test('an unknown kind names the kind and the file; knownKinds widens what is accepted', async (t) => {
  const h = withCheck('kind = "sleepy"');
  cleanups(t)(h.cleanup);
  const p = expectError(await load(h), { code: 'KW_ERR_STEP_KIND_UNKNOWN', file: 'agents/check.md', key: 'kind', line: 3 });
  assert.match(p.message, /"sleepy" in agents\/check\.md/);
  const ok = expectOk(await load(h, { knownKinds: new Set(['ingest', 'verify', 'sleepy']) }));
  assert.equal(ok.horde.steps.check?.kind, 'sleepy');
});

void test('a model step without prompt_file is a warning; with one it is clean', async (t) => {
  const h = withCheck('kind = "process"');
  cleanups(t)(h.cleanup);
  const r = await load(h);
  expectProblem(r, { code: 'KW_WARN_PROMPT_UNSET', file: 'agents/check.md', key: 'prompt_file', severity: 'warning' });
  expectOk(r);
  const h2 = withCheck('kind = "step"\nprompt_file = "prompts/p.md"', { 'prompts/p.md': 'Do it.' });
  cleanups(t)(h2.cleanup);
  assert.deepEqual(expectOk(await load(h2)).warnings, []);
});

void test('prompt_file: missing file, a folder, an absolute path, a .. segment, a link out of the folder', async (t) => {
  const cases: [string, string][] = [
    ['prompts/nope.md', 'KW_ERR_PROMPT_MISSING'],
    ['prompts', 'KW_ERR_PROMPT_MISSING'],
    ['/etc/passwd', 'KW_ERR_PATH_ESCAPES'],
    ['prompts/../../secret.md', 'KW_ERR_PATH_ESCAPES'],
    ['prompts/link.md', 'KW_ERR_PATH_ESCAPES'],
  ];
  for (const [value, code] of cases) {
    const h = withCheck(`kind = "ask"\nprompt_file = "${value}"`, { 'prompts/real.md': 'x' });
    cleanups(t)(h.cleanup);
    fs.writeFileSync(path.join(h.root, 'outside.md'), 'secret');
    fs.symlinkSync(path.join(h.root, 'outside.md'), path.join(h.dir, 'prompts', 'link.md'));
    expectError(await load(h), { code, file: 'agents/check.md', key: 'prompt_file', line: 4 });
  }
});

void test('output: a trailing / is a folder, writes is its alias, escapes are rejected, both keys at once is an error', async (t) => {
  const folder = withCheck('kind = "verify"\nverify_command = "true"\nwrites = "checks/"');
  cleanups(t)(folder.cleanup);
  assert.equal(expectOk(await load(folder)).horde.steps.check?.output, 'checks/check.md');

  const file = withCheck('kind = "verify"\nverify_command = "true"\noutput = "./a//b.md"');
  cleanups(t)(file.cleanup);
  assert.equal(expectOk(await load(file)).horde.steps.check?.output, 'a/b.md');

  for (const bad of ['/abs.md', 'a/../../b.md', '..']) {
    const h = withCheck(`kind = "verify"\nverify_command = "true"\noutput = "${bad}"`);
    cleanups(t)(h.cleanup);
    expectError(await load(h), { code: 'KW_ERR_PATH_ESCAPES', file: 'agents/check.md', key: 'output', line: 5 });
  }
  const both = withCheck('kind = "verify"\nverify_command = "true"\noutput = "a.md"\nwrites = "b.md"');
  cleanups(t)(both.cleanup);
  expectError(await load(both), { code: 'KW_ERR_KEY_VALUE', file: 'agents/check.md', key: 'writes', line: 6 });
});

void test('context_paths / reads: @artifact@, @step:<pipeline step>@, and relative paths only', async (t) => {
  const good = withCheck('kind = "verify"\nverify_command = "true"\nreads = ["@artifact@", "@step:intake@", "data/in.csv"]');
  cleanups(t)(good.cleanup);
  assert.deepEqual(expectOk(await load(good)).horde.steps.check?.context, ['@artifact@', '@step:intake@', 'data/in.csv']);

  const bad = withCheck('kind = "verify"\nverify_command = "true"\ncontext_paths = ["@step:nope@", "../x", "@weird@", "/etc"]');
  cleanups(t)(bad.cleanup);
  const r = await load(bad);
  const p = expectError(r, { code: 'KW_ERR_KEY_VALUE', file: 'agents/check.md', key: 'context_paths[0]', line: 5 });
  assert.match(p.message, /"nope", which is not in pipeline/);
  expectError(r, { code: 'KW_ERR_PATH_ESCAPES', file: 'agents/check.md', key: 'context_paths[1]' });
  expectError(r, { code: 'KW_ERR_KEY_VALUE', file: 'agents/check.md', key: 'context_paths[2]' });
  expectError(r, { code: 'KW_ERR_PATH_ESCAPES', file: 'agents/check.md', key: 'context_paths[3]' });
});

void test('tools: fs_tool is kept as written (the engine offers it); a tool nothing provides is a warning; knownTools silences it', async (t) => {
  const h = withCheck('kind = "process"\nprompt_file = "p.md"\ntools = ["fs_tool", "read_file", "mcp1.search"]', { 'p.md': 'x' });
  cleanups(t)(h.cleanup);
  const r = await load(h);
  const ok = expectOk(r);
  assert.deepEqual(ok.horde.steps.check?.tools, ['fs_tool', 'read_file', 'mcp1.search']);
  const w = expectProblem(r, { code: 'KW_WARN_TOOL_UNKNOWN', file: 'agents/check.md', key: 'tools[2]', line: 5, severity: 'warning' });
  assert.match(w.message, /"mcp1\.search"/);
  const quiet = expectOk(await load(h, { knownTools: new Set(['read_file', 'mcp1.search']) }));
  assert.deepEqual(quiet.warnings, []);

  const typed = withCheck('kind = "verify"\nverify_command = "true"\ntool_ids = ["read_file", 3]');
  cleanups(t)(typed.cleanup);
  expectError(await load(typed), { code: 'KW_ERR_KEY_TYPE', file: 'agents/check.md', key: 'tool_ids[1]' });
});

void test('tools that would reach the model under one name are an error on the second', async (t) => {
  const h = withCheck('kind = "process"\nprompt_file = "p.md"\ntools = ["mcp1.search", "read_file", "mcp1__search"]', { 'p.md': 'x' });
  cleanups(t)(h.cleanup);
  const p = expectError(await load(h, { knownTools: new Set(['read_file', 'mcp1.search', 'mcp1__search']) }), { code: 'KW_ERR_TOOL_NAME_CLASH', file: 'agents/check.md', key: 'tools[2]', line: 5 });
  assert.match(p.message, /"mcp1\.search" and "mcp1__search"/);
});

void test('agent: required by an agent step, a profile name, refused on other kinds', async (t) => {
  const ok = withCheck('kind = "agent"\nagent = "researcher"\nprompt_file = "p.md"', { 'p.md': 'x' });
  cleanups(t)(ok.cleanup);
  assert.equal(expectOk(await load(ok)).horde.steps.check?.agent, 'researcher');
  const missing = withCheck('kind = "agent"\nprompt_file = "p.md"', { 'p.md': 'x' });
  cleanups(t)(missing.cleanup);
  expectError(await load(missing), { code: 'KW_ERR_KEY_MISSING', file: 'agents/check.md', key: 'agent' });
  const badName = withCheck('kind = "agent"\nagent = "Research Team"\nprompt_file = "p.md"', { 'p.md': 'x' });
  cleanups(t)(badName.cleanup);
  const p = expectError(await load(badName), { code: 'KW_ERR_KEY_VALUE', file: 'agents/check.md', key: 'agent', line: 4 });
  assert.match(p.message, /cannot name an agent/);
  const elsewhere = withCheck('kind = "process"\nagent = "researcher"\nprompt_file = "p.md"', { 'p.md': 'x' });
  cleanups(t)(elsewhere.cleanup);
  assert.match(expectError(await load(elsewhere), { code: 'KW_ERR_KEY_VALUE', file: 'agents/check.md', key: 'agent' }).message, /only for agent steps; this step is process/);
});

void test('verify needs verify_command', async (t) => {
  const h = withCheck('kind = "verify"\nverify_cwd = "x"');
  cleanups(t)(h.cleanup);
  expectError(await load(h), { code: 'KW_ERR_KEY_MISSING', file: 'agents/check.md', key: 'verify_command' });
});

void test('apply_mode: dry-run by default, only for apply steps, only dry-run or execute', async (t) => {
  const dflt = withCheck('kind = "apply"');
  cleanups(t)(dflt.cleanup);
  assert.equal(expectOk(await load(dflt)).horde.steps.check?.applyMode, 'dry-run');

  const wrongKind = withCheck('kind = "verify"\nverify_command = "true"\napply_mode = "execute"');
  cleanups(t)(wrongKind.cleanup);
  expectError(await load(wrongKind), { code: 'KW_ERR_KEY_VALUE', file: 'agents/check.md', key: 'apply_mode', line: 5 });

  const badValue = withCheck('kind = "apply"\napply_mode = "yolo"');
  cleanups(t)(badValue.cleanup);
  expectError(await load(badValue), { code: 'KW_ERR_KEY_VALUE', file: 'agents/check.md', key: 'apply_mode', line: 4 });
});

void test('isolation is in_process or process; timeout_secs a positive whole number', async (t) => {
  const cases: [string, string, string][] = [
    ['isolation = "thread"', 'KW_ERR_KEY_VALUE', 'isolation'],
    ['timeout_secs = 0', 'KW_ERR_KEY_VALUE', 'timeout_secs'],
    ['timeout_secs = 1.5', 'KW_ERR_KEY_VALUE', 'timeout_secs'],
    ['timeout_secs = "60"', 'KW_ERR_KEY_TYPE', 'timeout_secs'],
    ['model = ""', 'KW_ERR_KEY_VALUE', 'model'],
  ];
  for (const [line, code, key] of cases) {
    const h = withCheck(`kind = "verify"\nverify_command = "true"\n${line}`);
    cleanups(t)(h.cleanup);
    expectError(await load(h), { code, file: 'agents/check.md', key, line: 5 });
  }
});

void test('placeholders: {{input.<declared id>}}, {{workdir}}, {{run_dir}} only, in verify_command and verify_cwd', async (t) => {
  const good = withCheck('kind = "verify"\nverify_command = "ls {{input.project}} > {{run_dir}}/ls.txt"\nverify_cwd = "{{workdir}}/sub"');
  cleanups(t)(good.cleanup);
  expectOk(await load(good));

  const cases: [string, string, RegExp][] = [
    ['verify_command = "ls {{input.nope}}"', 'verify_command', /no input "nope" \(declared inputs: project\)/],
    ['verify_command = "ls {{ workdir }}"', 'verify_command', /\{\{ workdir \}\}/],
    ['verify_command = "echo {{env.HOME}}"', 'verify_command', /\{\{env\.HOME\}\}/],
    ['verify_command = "true"\nverify_cwd = "{{input.other}}"', 'verify_cwd', /no input "other"/],
  ];
  for (const [toml, key, message] of cases) {
    const h = withCheck(`kind = "verify"\n${toml}`);
    cleanups(t)(h.cleanup);
    const p = expectError(await load(h), { code: 'KW_ERR_KEY_VALUE', file: 'agents/check.md', key });
    assert.match(p.message, message);
  }
});

void test('a vault_note step: note is required and checked as a vault path with {{date}} and {{run_id}} filled; it must read something; note keys are refused elsewhere', async (t) => {
  const ok = withCheck('kind = "vault_note"\nreads = ["@step:intake@"]\nnote = "digests/{{date}}-{{run_id}}.md"\nnote_mode = "append"');
  cleanups(t)(ok.cleanup);
  assert.deepEqual(expectOk(await load(ok)).horde.steps.check?.note, { path: 'digests/{{date}}-{{run_id}}.md', mode: 'append' });

  const cases: Array<[string, string, RegExp]> = [
    ['kind = "vault_note"\nreads = ["@artifact@"]', 'note', /note/],
    ['kind = "vault_note"\nreads = ["@artifact@"]\nnote = "../out.md"', 'note', /"\.\." is refused/],
    ['kind = "vault_note"\nreads = ["@artifact@"]\nnote = "digests/{{day}}.md"', 'note', /note uses \{\{day\}\}; a note path takes \{\{date\}\}/],
    ['kind = "vault_note"\nreads = ["@artifact@"]\nnote = "digests/today.txt"', 'note', /must end in "\.md"/],
    ['kind = "vault_note"\nreads = ["@artifact@"]\nnote = "a.md"\nnote_mode = "replace"', 'note_mode', /create|append/],
    ['kind = "vault_note"\nnote = "a.md"', 'reads', /writes what it reads: set reads/],
    ['kind = "verify"\nverify_command = "true"\nnote = "a.md"', 'note', /note is only for vault_note steps; this step is verify/],
  ];
  for (const [toml, key, message] of cases) {
    const h = withCheck(toml);
    cleanups(t)(h.cleanup);
    const p = expectProblem(await load(h), { code: key === 'note' && /note = /.test(toml) === false ? 'KW_ERR_KEY_MISSING' : 'KW_ERR_KEY_VALUE', file: 'agents/check.md', key, severity: 'error' });
    assert.match(p.message, message, toml);
  }
});

void test('a send step: adapter and to are required, their placeholders are {{input.<declared id>}}, {{date}} and {{run_id}}; it must read something; elsewhere the words are kept, not read', async (t) => {
  const ok = withCheck('kind = "send"\nreads = ["@step:intake@"]\nadapter = "{{input.project}}"\nto = "#trading"\nsubject = "Digest {{date}} ({{run_id}})"');
  cleanups(t)(ok.cleanup);
  assert.deepEqual(expectOk(await load(ok)).horde.steps.check?.send, { adapter: '{{input.project}}', to: '#trading', subject: 'Digest {{date}} ({{run_id}})' });
  const plain = withCheck('kind = "send"\nreads = ["@artifact@"]\nadapter = "team-slack"\nto = "C0123"');
  cleanups(t)(plain.cleanup);
  assert.deepEqual(expectOk(await load(plain)).horde.steps.check?.send, { adapter: 'team-slack', to: 'C0123' });
  const other = withCheck('kind = "verify"\nverify_command = "true"\nto = "someone"');
  cleanups(t)(other.cleanup);
  assert.equal(expectOk(await load(other)).horde.steps.check?.send, undefined);

  const cases: Array<[string, string, string, RegExp]> = [
    ['kind = "send"\nreads = ["@artifact@"]\nto = "C0123"', 'adapter', 'KW_ERR_KEY_MISSING', /adapter/],
    ['kind = "send"\nreads = ["@artifact@"]\nadapter = "slack"', 'to', 'KW_ERR_KEY_MISSING', /to/],
    ['kind = "send"\nadapter = "slack"\nto = "C0123"', 'reads', 'KW_ERR_KEY_VALUE', /sends what it reads: set reads/],
    ['kind = "send"\nreads = ["@artifact@"]\nadapter = "slack"\nto = "{{workdir}}"', 'to', 'KW_ERR_KEY_VALUE', /to uses \{\{workdir\}\}; a send step's to takes \{\{input\.<id>\}\}, \{\{date\}\}/],
    ['kind = "send"\nreads = ["@artifact@"]\nadapter = "{{input.channel}}"\nto = "C0123"', 'adapter', 'KW_ERR_KEY_VALUE', /adapter uses \{\{input\.channel\}\} but the horde has no input "channel" \(declared inputs: project\)/],
  ];
  for (const [toml, key, code, message] of cases) {
    const h = withCheck(toml);
    cleanups(t)(h.cleanup);
    const p = expectProblem(await load(h), { code, file: 'agents/check.md', key, severity: 'error' });
    assert.match(p.message, message, toml);
  }
});

void test('an mcp_call step: tool is required (server.tool, or placeholders), arguments a table or JSON text with the send placeholders, output a file the data tool reads', async (t) => {
  const ok = withCheck('kind = "mcp_call"\ntool = "quotes.closes"\narguments = { symbols = "{{input.project}}", day = "{{date}}", n = 3 }\noutput = "inputs/prices/prices.json"');
  cleanups(t)(ok.cleanup);
  assert.deepEqual(expectOk(await load(ok)).horde.steps.check?.call, { tool: 'quotes.closes', arguments: { symbols: '{{input.project}}', day: '{{date}}', n: 3 } });
  const text = withCheck('kind = "mcp_call"\ntool = "{{input.project}}"\narguments = "{{input.project}}"\nwrites = "prices.csv"');
  cleanups(t)(text.cleanup);
  assert.deepEqual(expectOk(await load(text)).horde.steps.check?.call, { tool: '{{input.project}}', arguments: '{{input.project}}' });

  const cases: Array<[string, string, string, RegExp]> = [
    ['kind = "mcp_call"\noutput = "p.json"', 'tool', 'KW_ERR_KEY_MISSING', /tool/],
    ['kind = "mcp_call"\ntool = "closes"\noutput = "p.json"', 'tool', 'KW_ERR_KEY_VALUE', /not an MCP tool's name: write it as <server>\.<tool>/],
    ['kind = "mcp_call"\ntool = "quotes.closes"', 'output', 'KW_ERR_KEY_VALUE', /set output to a file ending in \.json, \.ndjson, \.csv, \.tsv/],
    ['kind = "mcp_call"\ntool = "quotes.closes"\noutput = "prices.md"', 'output', 'KW_ERR_KEY_VALUE', /set output to a file ending in/],
    ['kind = "mcp_call"\ntool = "quotes.closes"\noutput = "p.json"\narguments = 3', 'arguments', 'KW_ERR_KEY_VALUE', /arguments must be a table/],
    ['kind = "mcp_call"\ntool = "quotes.closes"\noutput = "p.json"\narguments = { a = "{{workdir}}" }', 'arguments', 'KW_ERR_KEY_VALUE', /arguments use \{\{workdir\}\}/],
    ['kind = "mcp_call"\ntool = "{{input.nope}}"\noutput = "p.json"', 'tool', 'KW_ERR_KEY_VALUE', /tool uses \{\{input\.nope\}\} but the horde has no input "nope"/],
  ];
  for (const [toml, key, code, message] of cases) {
    const h = withCheck(toml);
    cleanups(t)(h.cleanup);
    const p = expectProblem(await load(h), { code, file: 'agents/check.md', key, severity: 'error' });
    assert.match(p.message, message, toml);
  }
});
