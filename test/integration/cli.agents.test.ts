/** `kowalski agents`, run as a real process on a real data folder: the table, `--json`, and exit 1 with file:line and code when a profile has problems. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cli, cliSandbox, outputOf, stdoutJson } from '../../testkit/cli.js';
import { tempDir } from '../../testkit/tmp.js';
import { installExample } from '../support/plugin-home.js';

interface AgentsJson {
  agents: { name: string; origin: string; model?: string; tools?: string[]; maxIterations?: number; description: string; prompt: string; file: string }[];
  problems: { file: string; key?: string; line?: number; code: string; message: string }[];
}

function writeProfile(home: string, name: string, front: string): string {
  const file = path.join(home, 'team', `${name}.md`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `---\nname = "${name}"\n${front.trim()}\n---\n\nYou are ${name}.\n`);
  return file;
}

describe('kowalski agents', { concurrency: true }, () => {
  it('--json lists the built-in profiles and the user\'s, an override replacing its built-in; exit 0', async (t) => {
    const { home } = cliSandbox(t);
    const poet = writeProfile(home, 'poet', 'description = "Writes poems."\nmodel = "ollama:qwen2.5:7b"\ntools = []\nmax_iterations = 3');
    writeProfile(home, 'researcher', 'description = "My researcher."\ntools = ["web_search"]');
    const r = await cli(home, ['agents', '--json']);
    assert.equal(r.code, 0, outputOf(r));
    const json = stdoutJson<AgentsJson>(r);
    assert.deepEqual(json.problems, []);
    assert.deepEqual(json.agents.map((a) => [a.name, a.origin, a.description]), [
      ['archivist', 'builtin', 'Reads the chat turns finished recently and keeps the durable facts about the user as memory notes, each once; the memory-consolidation horde runs it.'],
      ['assistant', 'builtin', 'Your assistant: answers directly when it can, uses tools, and hands subtasks to the other agents of the team.'],
      ['builder', 'builtin', 'Builds a horde with you in the Rookery: asks what the work is in plain words, then writes the steps, their prompts and the graph, and creates the horde.'],
      ['poet', 'user', 'Writes poems.'],
      ['researcher', 'user', 'My researcher.'],
      ['scribe', 'builtin', 'Writes, files and tidies notes in the vault; every write is recorded and can be reverted.'],
    ]);
    assert.deepEqual(json.agents[3], { name: 'poet', description: 'Writes poems.', model: 'ollama:qwen2.5:7b', tools: [], maxIterations: 3, prompt: 'You are poet.', origin: 'user', file: poet });
  });

  it('prints a table, then each problem as file:line: key: message [CODE], and exits 1', async (t) => {
    const { home } = cliSandbox(t);
    writeProfile(home, 'poet', 'description = "Writes poems."\ntools = []');
    const critic = writeProfile(home, 'critic', 'description = "Criticises."\ntools = ["web_search", "shell"]');
    const [text, json] = await Promise.all([cli(home, ['agents']), cli(home, ['agents', '--json'])]);
    assert.equal(text.code, 1, outputOf(text));
    const lines = text.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^NAME\s+ORIGIN\s+MODEL\s+TOOLS\s+MAX ITER\s+DESCRIPTION$/);
    assert.match(lines.find((l) => l.startsWith('poet'))!, /^poet\s+user\s+\(default\)\s+\(none\)\s+\(default\)\s+Writes poems\.$/);
    assert.match(lines.find((l) => l.startsWith('assistant'))!, /^assistant\s+builtin\s+\(default\)\s+\(all\)\s+\(default\)\s+Your assistant/);
    assert.match(lines.find((l) => l.startsWith('researcher'))!, /web_search, web_fetch/);
    assert.ok(!lines.some((l) => l.startsWith('critic')), 'a profile with problems and no good version is not listed');
    const unknown = lines.find((l) => l.startsWith(`${critic}:4: tools[1]: no tool provides "shell"; the tools: `));
    assert.ok(unknown !== undefined, outputOf(text));
    assert.match(unknown, /the tools: .*\bdelegate_to_agent, .*\bweb_fetch, web_search\b.*, or server\.tool of an MCP server configured in config\.toml \(none is\) \[KW_ERR_TOOL_UNKNOWN\]$/);

    assert.equal(json.code, 1, outputOf(json));
    assert.deepEqual(stdoutJson<AgentsJson>(json).problems.map((p) => [p.file, p.key, p.line, p.code]), [[critic, 'tools[1]', 4, 'KW_ERR_TOOL_UNKNOWN']]);
  });

  it('a granted plugin\'s tool is one a profile may list, as the server says (not yet granted, it is unknown); a misspelt one gets a did-you-mean', async (t) => {
    const { home } = cliSandbox(t);
    installExample(home, fs.realpathSync(tempDir(t, 'kw-plug-docs-')));
    const greeter = writeProfile(home, 'greeter', 'description = "Greets."\ntools = ["hello__greet"]');
    const pending = await cli(home, ['agents', '--json']);
    assert.equal(pending.code, 1, 'not granted yet');
    assert.deepEqual(stdoutJson<AgentsJson>(pending).problems.map((p) => [p.file, p.key, p.code]), [[greeter, 'tools[0]', 'KW_ERR_TOOL_UNKNOWN']]);

    assert.equal((await cli(home, ['plugins', 'grant', 'hello'])).code, 0);
    const granted = await cli(home, ['agents', '--json']);
    assert.equal(granted.code, 0, outputOf(granted));
    const json = stdoutJson<AgentsJson>(granted);
    assert.deepEqual(json.problems, []);
    assert.deepEqual(json.agents.find((a) => a.name === 'greeter')?.tools, ['hello__greet']);

    writeProfile(home, 'typo', 'description = "Greets."\ntools = ["hello__gret"]');
    const typo = await cli(home, ['agents']);
    assert.equal(typo.code, 1);
    assert.match(typo.stdout, /no tool provides "hello__gret"; did you mean "hello__greet"\?; the tools: .*\bhello__greet, hello__word_count\b/);
  });
});
