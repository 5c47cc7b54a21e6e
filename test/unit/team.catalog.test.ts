/**
 * The team's catalog from real folders: built-ins and the user's, an override, a broken
 * file (its problems listed, the built-in or its last good version in effect), validate,
 * save (atomic, refused when invalid), remove; and the shipped built-in profiles.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import type { KowalskiError } from '../../core/index.js';
import { AgentInvalidError, readTeam } from '../../engine/index.js';
import { systemClock } from '../../engine/base/clock.js';
import { Observers } from '../../engine/observers.js';
import { Team } from '../../engine/team/index.js';
import { systemTimers } from '../../engine/base/timers.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';

const KNOWN = ['web_search', 'web_fetch', 'read_file', 'delegate_to_agent'];

const text = (name: string, description: string, extra = ''): string => `---\nname = "${name}"\ndescription = "${description}"\n${extra}\n---\n\nYou are ${name}.\n`;

function setup(t: TestContext): { team: Team; builtinDir: string; userDir: string; events: () => number } {
  const root = tempDir(t, 'kw-team-');
  const builtinDir = path.join(root, 'builtin');
  const userDir = path.join(root, 'data', 'team');
  fs.mkdirSync(builtinDir);
  fs.mkdirSync(userDir, { recursive: true });
  fs.writeFileSync(path.join(builtinDir, 'assistant.md'), text('assistant', 'Built-in assistant.'));
  fs.writeFileSync(path.join(builtinDir, 'researcher.md'), text('researcher', 'Built-in researcher.', 'tools = ["web_search"]'));
  fs.writeFileSync(path.join(userDir, 'researcher.md'), text('researcher', 'My researcher.', 'tools = ["web_search", "web_fetch"]\nmax_iterations = 5'));
  fs.writeFileSync(path.join(userDir, 'poet.md'), text('poet', 'Writes poems.', 'tools = []'));
  fs.writeFileSync(path.join(userDir, 'broken.md'), text('broken', 'Broken.', 'tools = ["shell"]'));
  fs.writeFileSync(path.join(userDir, 'README.txt'), 'not a profile');
  fs.writeFileSync(path.join(userDir, '.poet.md.kw-123.tmp'), 'a temp file of a save');
  const observers = new Observers();
  let changed = 0;
  observers.on('team:changed', () => { changed += 1; });
  const team = new Team({ builtinDir, userDir, tools: { has: (n) => KNOWN.includes(n), names: () => KNOWN, mcpServers: () => [] }, clock: systemClock, timers: systemTimers(systemClock), observers });
  cleanups(t)(() => team.close());
  return { team, builtinDir, userDir, events: () => changed };
}

test('the catalog: built-ins and user profiles by name, a user profile overriding a built-in, a broken file listed with its problems', (t) => {
  const { team, userDir } = setup(t);
  const { profiles, problems } = team.catalog();
  assert.deepEqual(profiles.map((p) => [p.name, p.origin, p.description]), [
    ['assistant', 'builtin', 'Built-in assistant.'],
    ['poet', 'user', 'Writes poems.'],
    ['researcher', 'user', 'My researcher.'],
  ]);
  assert.deepEqual(team.get('researcher')?.tools, ['web_search', 'web_fetch']);
  assert.equal(team.get('researcher')?.maxIterations, 5);
  assert.equal(team.get('researcher')?.file, path.join(userDir, 'researcher.md'));
  assert.deepEqual(problems.map((p) => [path.basename(p.file), p.code, p.key, p.line]), [['broken.md', 'KW_ERR_TOOL_UNKNOWN', 'tools[0]', 4]]);
  assert.equal(team.get('broken'), undefined);
});

test('require names the known agents when one is missing, and the close one when it is misspelt', (t) => {
  const { team } = setup(t);
  assert.equal(team.require('poet').name, 'poet');
  assert.throws(() => team.require('ghost'), (err: KowalskiError) => {
    assert.equal(err.code, 'KW_ERR_AGENT_NOT_FOUND');
    assert.match(err.message, /no agent "ghost" \(known agents: assistant, poet, researcher/);
    assert.doesNotMatch(err.message, /did you mean/);
    return true;
  });
  assert.throws(() => team.require('reseacher'), (err: KowalskiError) => {
    assert.equal(err.message, 'no agent "reseacher" (known agents: assistant, poet, researcher; see kowalski agents); did you mean "researcher"?');
    return true;
  });
});

test('validate says what save would, and writes nothing', (t) => {
  const { team, userDir } = setup(t);
  assert.deepEqual(team.validate('critic', text('critic', 'Criticises.')), []);
  const problems = team.validate('critic', text('critic', 'Criticises.', 'max_iterations = 0'));
  assert.deepEqual(problems.map((p) => [p.file, p.code, p.key, p.line]), [[path.join(userDir, 'critic.md'), 'KW_ERR_KEY_VALUE', 'max_iterations', 4]]);
  assert.equal(fs.existsSync(path.join(userDir, 'critic.md')), false);
});

test('save writes <data>/team/<name>.md and the catalog has it at once; an invalid text is refused with every problem and nothing written', (t) => {
  const { team, userDir, events } = setup(t);
  const saved = team.save('critic', text('critic', 'Criticises.', 'tools = ["read_file"]'));
  assert.deepEqual([saved.name, saved.origin, saved.file, saved.tools], ['critic', 'user', path.join(userDir, 'critic.md'), ['read_file']]);
  assert.equal(fs.readFileSync(path.join(userDir, 'critic.md'), 'utf8'), text('critic', 'Criticises.', 'tools = ["read_file"]'));
  assert.equal(team.get('critic')?.description, 'Criticises.');
  assert.equal(events(), 1, 'team:changed once');
  assert.deepEqual(fs.readdirSync(userDir).filter((f) => f.includes('.tmp') && !f.includes('kw-123')), [], 'no temp file left');

  assert.throws(() => team.save('critic', text('critic', 'Worse.', 'tools = ["shell"]\ncolour = "red"')), (err: AgentInvalidError) => {
    assert.ok(err instanceof AgentInvalidError);
    assert.equal(err.code, 'KW_ERR_AGENT_INVALID');
    assert.deepEqual(err.problems.map((p) => [p.code, p.key]), [['KW_ERR_TOOL_UNKNOWN', 'tools[0]'], ['KW_ERR_AGENT_KEY_UNKNOWN', 'colour']]);
    assert.match(err.message, /critic\.md:4: tools\[0\]: no tool provides "shell"/);
    return true;
  });
  assert.equal(team.get('critic')?.description, 'Criticises.', 'the refused text was not written');
  assert.throws(() => team.save('../escape', text('../escape', 'x')), (err: KowalskiError) => err.code === 'KW_ERR_AGENT_INVALID');
  assert.equal(fs.existsSync(path.join(userDir, '..', 'escape.md')), false);
});

test('saving a built-in\'s name writes an override; removing it brings the built-in back; a built-in alone cannot be removed', (t) => {
  const { team, userDir } = setup(t);
  team.save('assistant', text('assistant', 'My assistant.'));
  assert.deepEqual([team.get('assistant')?.origin, team.get('assistant')?.description], ['user', 'My assistant.']);
  assert.equal(team.source('assistant').hasBuiltin, true);
  team.remove('assistant');
  assert.equal(fs.existsSync(path.join(userDir, 'assistant.md')), false);
  assert.deepEqual([team.get('assistant')?.origin, team.get('assistant')?.description], ['builtin', 'Built-in assistant.']);
  assert.throws(() => team.remove('assistant'), (err: KowalskiError) => err.code === 'KW_ERR_AGENT_BUILTIN');
  assert.throws(() => team.remove('ghost'), (err: KowalskiError) => err.code === 'KW_ERR_AGENT_NOT_FOUND');
  team.remove('broken');
  assert.deepEqual(team.catalog().problems, [], 'a broken file removed takes its problems with it');
});

test('a user override that is broken from the start leaves the built-in in effect; a later broken edit keeps the last good version', (t) => {
  const { team, userDir, builtinDir } = setup(t);
  fs.writeFileSync(path.join(userDir, 'assistant.md'), text('assistant', 'Mine.', 'max_iterations = -1'));
  team.refresh();
  assert.equal(team.get('assistant')?.file, path.join(builtinDir, 'assistant.md'));
  const src = team.source('assistant');
  assert.deepEqual([src.origin, src.profile, src.problems.map((p) => p.code)], ['user', null, ['KW_ERR_KEY_VALUE']]);
  assert.match(src.text, /max_iterations = -1/);

  fs.writeFileSync(path.join(userDir, 'poet.md'), '---\nname = "poet"\n');
  team.refresh();
  assert.equal(team.get('poet')?.description, 'Writes poems.', 'the last good version');
  assert.ok(team.catalog().problems.some((p) => p.file === path.join(userDir, 'poet.md') && p.code === 'KW_ERR_FRONT_MATTER'));
});

test('the shipped profiles archivist, assistant, builder, researcher and scribe are valid with the engine\'s own tools', async (t) => {
  const team = await readTeam(tempDir(t, 'kw-team-home-'));
  const { profiles, problems } = team.catalog();
  assert.deepEqual(problems, []);
  assert.deepEqual(profiles.map((p) => [p.name, p.origin, p.tools]), [
    ['archivist', 'builtin', ['recent_turns', 'recall', 'remember']],
    ['assistant', 'builtin', undefined],
    ['builder', 'builtin', ['rookery_example_draft', 'rookery_get_draft', 'rookery_set_horde', 'rookery_set_step', 'rookery_remove_step', 'rookery_set_edges', 'rookery_validate_draft', 'rookery_give_birth']],
    ['researcher', 'builtin', ['web_search', 'web_fetch']],
    ['scribe', 'builtin', ['list_notes', 'read_note', 'search_notes', 'create_note', 'append_note']],
  ]);
  for (const p of profiles) assert.ok(p.prompt.length > 100 && p.description.length > 10, p.name);
  assert.match(team.require('assistant').prompt, /delegate_to_agent/);
});

test('a profile may list delegate_to_agent and server.tool of an MCP server configured in config.toml, and nothing else', async (t) => {
  const home = tempDir(t, 'kw-team-home-');
  fs.writeFileSync(path.join(home, 'config.toml'), '[[mcp.servers]]\nname = "notes"\ncommand = "true"\n');
  fs.mkdirSync(path.join(home, 'team'));
  fs.writeFileSync(path.join(home, 'team', 'keeper.md'), text('keeper', 'Keeps notes.', 'tools = ["notes.search", "delegate_to_agent", "web_fetch"]'));
  fs.writeFileSync(path.join(home, 'team', 'stray.md'), text('stray', 'Strays.', 'tools = ["other.search", "notes.", "notes"]'));
  const team = await readTeam(home);
  assert.deepEqual(team.get('keeper')?.tools, ['notes.search', 'delegate_to_agent', 'web_fetch']);
  assert.deepEqual(team.catalog().problems.map((p) => [path.basename(p.file), p.code, p.key]), [
    ['stray.md', 'KW_ERR_TOOL_UNKNOWN', 'tools[0]'], ['stray.md', 'KW_ERR_TOOL_UNKNOWN', 'tools[1]'], ['stray.md', 'KW_ERR_TOOL_UNKNOWN', 'tools[2]'],
  ]);
});

test('the example profile in docs/agents.md is valid', async (t) => {
  const doc = fs.readFileSync(new URL('../../docs/agents.md', import.meta.url), 'utf8');
  const example = /```markdown\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(example !== undefined, 'docs/agents.md has a ```markdown example');
  const team = await readTeam(tempDir(t, 'kw-team-home-'));
  assert.deepEqual(team.validate('researcher', example), []);
});
