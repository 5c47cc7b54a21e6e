/** An agent profile file: what it reads to, and every problem it can have, each with its code, key and line. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseProfile } from '../../engine/team/index.js';
import type { ParseResult, ProfileTools } from '../../engine/team/index.js';

const FILE = '/data/team/helper.md';
const KNOWN = ['web_search', 'web_fetch', 'read_file', 'delegate_to_agent'];
/** The tools above, and `notes.<tool>` of a configured MCP server "notes". */
const TOOLS: ProfileTools = { has: (t) => KNOWN.includes(t) || t.startsWith('notes.'), names: () => KNOWN, mcpServers: () => ['notes'] };

function parse(text: string, name = 'helper'): ParseResult {
  return parseProfile(text, { name, file: FILE, origin: 'user', tools: TOOLS });
}

/** The problems of a text that must not parse, as `code key@line`. */
function problemsOf(text: string, name?: string): string[] {
  const r = parse(text, name);
  assert.equal(r.ok, false, 'the text was expected to have problems');
  if (r.ok) return [];
  for (const p of r.problems) assert.equal(p.file, FILE);
  return r.problems.map((p) => `${p.code} ${p.key ?? '-'}@${p.line ?? '-'}`);
}

const profile = (front: string, body = 'You help.'): string => `---\n${front.trim()}\n---\n\n${body}\n`;

describe('a valid profile', () => {
  test('reads every key; the body (trimmed) is the system prompt', () => {
    const r = parse(profile('name = "helper"\ndescription = "Helps."\nmodel = "ollama:qwen2.5:7b"\ntools = ["web_search", "notes.search", "delegate_to_agent"]\nmax_iterations = 12', '\n# Helper\n\nYou help.\n\n'));
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.profile, {
      name: 'helper', description: 'Helps.', model: 'ollama:qwen2.5:7b', tools: ['web_search', 'notes.search', 'delegate_to_agent'],
      maxIterations: 12, prompt: '# Helper\n\nYou help.', origin: 'user', file: FILE,
    });
  });

  test('model, tools and max_iterations are optional; tools = [] means none, absent means every tool', () => {
    const all = parse(profile('name = "helper"\ndescription = "Helps."'));
    assert.ok(all.ok);
    assert.equal('tools' in all.profile, false);
    assert.equal('model' in all.profile, false);
    assert.equal('maxIterations' in all.profile, false);
    const none = parse(profile('name = "helper"\ndescription = "Helps."\ntools = []'));
    assert.ok(none.ok);
    assert.deepEqual(none.profile.tools, []);
  });

  test('+++ fences, CRLF line ends and a BOM are fine', () => {
    const r = parse('\uFEFF+++\r\nname = "helper"\r\ndescription = "Helps."\r\n+++\r\nYou help.\r\n');
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.profile.prompt, 'You help.');
  });
});

describe('every problem names its code, key and line', () => {
  test('no front matter, YAML front matter, TOML that does not parse', () => {
    assert.deepEqual(problemsOf('You help.'), ['KW_ERR_FRONT_MATTER -@1']);
    assert.deepEqual(problemsOf('---\nname: helper\ndescription: Helps.\n---\nYou help.\n'), ['KW_ERR_FRONT_MATTER -@2']);
    assert.deepEqual(problemsOf('---\nname = "helper"\ndescription = \n---\nYou help.\n'), ['KW_ERR_FRONT_MATTER -@3']);
  });

  test('missing and wrongly typed keys', () => {
    assert.deepEqual(problemsOf(profile('model = "ollama:x"')), ['KW_ERR_KEY_MISSING name@-', 'KW_ERR_KEY_MISSING description@-']);
    assert.deepEqual(problemsOf(profile('name = "helper"\ndescription = 3\ntools = "web_search"\nmax_iterations = "ten"')),
      ['KW_ERR_KEY_TYPE description@3', 'KW_ERR_KEY_TYPE tools@4', 'KW_ERR_KEY_TYPE max_iterations@5']);
    assert.deepEqual(problemsOf(profile('name = "helper"\ndescription = "Helps."\ntools = ["web_search", 7]')), ['KW_ERR_KEY_TYPE tools[1]@4']);
    assert.deepEqual(problemsOf(profile('name = "helper"\ndescription = "  "')), ['KW_ERR_KEY_VALUE description@3']);
  });

  test('memory_window_tokens and memories: read when set, bounded, with their line', () => {
    const r = parse(profile('name = "helper"\ndescription = "Helps."\nmemory_window_tokens = 4000\nmemories = 0'));
    assert.ok(r.ok);
    assert.deepEqual([r.profile.memoryWindowTokens, r.profile.memories], [4000, 0]);
    const plain = parse(profile('name = "helper"\ndescription = "Helps."'));
    assert.ok(plain.ok);
    assert.deepEqual([plain.profile.memoryWindowTokens, plain.profile.memories], [undefined, undefined]);
    assert.deepEqual(problemsOf(profile('name = "helper"\ndescription = "Helps."\nmemory_window_tokens = 100\nmemories = 21')),
      ['KW_ERR_KEY_VALUE memory_window_tokens@4', 'KW_ERR_KEY_VALUE memories@5']);
    assert.deepEqual(problemsOf(profile('name = "helper"\ndescription = "Helps."\nmemory_window_tokens = 2000000\nmemories = -1')),
      ['KW_ERR_KEY_VALUE memory_window_tokens@4', 'KW_ERR_KEY_VALUE memories@5']);
    assert.deepEqual(problemsOf(profile('name = "helper"\ndescription = "Helps."\nmemories = "three"')), ['KW_ERR_KEY_TYPE memories@4']);
  });

  test('an unknown key is an error naming the keys a profile takes', () => {
    const r = parse(profile('name = "helper"\ndescription = "Helps."\ntemperature = 0.2'));
    assert.ok(!r.ok);
    assert.deepEqual(r.problems.map((p) => [p.code, p.key, p.line]), [['KW_ERR_AGENT_KEY_UNKNOWN', 'temperature', 4]]);
    assert.match(r.problems[0]!.message, /name, description, model, tools, max_iterations, memory_window_tokens, memories/);
  });

  test('name must equal the file name; a file name that cannot name an agent is refused', () => {
    assert.deepEqual(problemsOf(profile('name = "other"\ndescription = "Helps."')), ['KW_ERR_AGENT_NAME name@2']);
    assert.deepEqual(problemsOf(profile('name = "My Agent"\ndescription = "Helps."'), 'My Agent'), ['KW_ERR_AGENT_NAME -@-']);
    assert.deepEqual(problemsOf(profile('name = "../x"\ndescription = "Helps."'), '../x'), ['KW_ERR_AGENT_NAME -@-']);
  });

  test('a model that is not provider:model', () => {
    const r = parse(profile('name = "helper"\ndescription = "Helps."\nmodel = "gpt-4o"'));
    assert.ok(!r.ok);
    assert.deepEqual(r.problems.map((p) => [p.code, p.key, p.line]), [['KW_ERR_MODEL_REF', 'model', 4]]);
    assert.match(r.problems[0]!.message, /provider:model/);
  });

  test('tools nothing provides (also an MCP tool of a server that is not configured), and a tool listed twice', () => {
    const r = parse(profile('name = "helper"\ndescription = "Helps."\ntools = [\n  "web_search",\n  "shell",\n  "other.search",\n  "web_search",\n]'));
    assert.ok(!r.ok);
    assert.deepEqual(r.problems.map((p) => [p.code, p.key]), [['KW_ERR_TOOL_UNKNOWN', 'tools[1]'], ['KW_ERR_TOOL_UNKNOWN', 'tools[2]'], ['KW_ERR_KEY_VALUE', 'tools[3]']]);
    assert.ok(r.problems.every((p) => p.line === 4), 'the line of tools');
    assert.equal(r.problems[0]!.message, 'no tool provides "shell"; the tools: delegate_to_agent, read_file, web_fetch, web_search, or server.tool of an MCP server configured in config.toml (configured: notes)');
  });

  test('a misspelt tool: did you mean the one it is close to', () => {
    const r = parse(profile('name = "helper"\ndescription = "Helps."\ntools = ["raed_file"]'));
    assert.ok(!r.ok);
    assert.match(r.problems[0]!.message, /^no tool provides "raed_file"; did you mean "read_file"\?; the tools: delegate_to_agent, read_file, web_fetch, web_search, or server\.tool/);
    const none = parseProfile(profile('name = "helper"\ndescription = "Helps."\ntools = ["shell"]'), { name: 'helper', file: FILE, origin: 'user', tools: { ...TOOLS, mcpServers: () => [] } });
    assert.ok(!none.ok);
    assert.match(none.problems[0]!.message, /configured in config\.toml \(none is\)$/);
  });

  test('two tools that would reach the model under one name are refused where they are listed', () => {
    const r = parseProfile(profile('name = "helper"\ndescription = "Helps."\ntools = ["notes.search", "web_search", "notes__search"]'),
      { name: 'helper', file: FILE, origin: 'user', tools: { ...TOOLS, has: () => true } });
    assert.ok(!r.ok);
    assert.deepEqual(r.problems.map((p) => [p.code, p.key, p.line]), [['KW_ERR_TOOL_NAME_CLASH', 'tools[2]', 4]]);
    assert.match(r.problems[0]!.message, /"notes\.search" and "notes__search" would both be offered to the model as "notes__search"/);
  });

  test('max_iterations outside 1..1000', () => {
    assert.deepEqual(problemsOf(profile('name = "helper"\ndescription = "Helps."\nmax_iterations = 0')), ['KW_ERR_KEY_VALUE max_iterations@4']);
    assert.deepEqual(problemsOf(profile('name = "helper"\ndescription = "Helps."\nmax_iterations = 1001')), ['KW_ERR_KEY_VALUE max_iterations@4']);
    assert.deepEqual(problemsOf(profile('name = "helper"\ndescription = "Helps."\nmax_iterations = 2.5')), ['KW_ERR_KEY_VALUE max_iterations@4']);
    assert.ok(parse(profile('name = "helper"\ndescription = "Helps."\nmax_iterations = 1000')).ok);
  });

  test('an empty body: the line after the front matter', () => {
    assert.deepEqual(problemsOf('---\nname = "helper"\ndescription = "Helps."\n---\n\n   \n'), ['KW_ERR_AGENT_PROMPT_EMPTY -@5']);
  });

  test('a file over 256 KiB is refused before it is parsed', () => {
    assert.deepEqual(problemsOf(profile('name = "helper"\ndescription = "Helps."', 'x'.repeat(256 * 1024))), ['KW_ERR_AGENT_TOO_LARGE -@-']);
  });

  test('all problems of a file at once, in line order', () => {
    assert.deepEqual(problemsOf('---\nname = "helper"\ndescription = "Helps."\nmodel = "nope"\nmax_iterations = 0\ncolour = "red"\n---\n'), [
      'KW_ERR_MODEL_REF model@4', 'KW_ERR_KEY_VALUE max_iterations@5', 'KW_ERR_AGENT_KEY_UNKNOWN colour@6', 'KW_ERR_AGENT_PROMPT_EMPTY -@8',
    ]);
  });
});
