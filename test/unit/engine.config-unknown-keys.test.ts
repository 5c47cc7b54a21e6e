/** Keys of config.toml the catalog does not list: found with their line and the nearest listed key; the user's own names are not checked. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderConfigExample, unknownConfigKeys } from '../../engine/index.js';

const FILE = '/k/config.toml';

test('a misspelt key, a key in the wrong section and a misspelt section: each with its line and the nearest key', () => {
  const text = [
    'tool_calling = "native"', // 1: belongs in [model]
    '[model]',
    'defualt = "ollama:qwen2.5:7b"', // 3
    'max_tool_iterations = 5',
    '[modle]', // 5
    'default = "x"',
    '[tools.web_search]',
    'provider = "searxng"',
    'url = "http://127.0.0.1:8888"',
    'urll = "http://127.0.0.1:8888"', // 10
    '[runs]',
    'max_paralel_steps = 2', // 12
    '',
  ].join('\n');
  assert.deepEqual(unknownConfigKeys(text, FILE), [
    { file: FILE, key: 'tool_calling', line: 1, suggestion: 'model.tool_calling' },
    { file: FILE, key: 'model.defualt', line: 3, suggestion: 'model.default' },
    { file: FILE, key: 'modle', line: 5, suggestion: 'model' },
    { file: FILE, key: 'tools.web_search.urll', line: 10, suggestion: 'tools.web_search.url' },
    { file: FILE, key: 'runs.max_paralel_steps', line: 12, suggestion: 'runs.max_parallel_steps' },
  ]);
});

test("an array's entry is named by its index, and a dotted key is found on its line", () => {
  const text = 'vault.semantic.enabeld = true\n[[mcp.servers]]\nname = "a"\ncommand = "x"\n[[mcp.servers]]\nname = "b"\ncomand = "y"\n';
  assert.deepEqual(unknownConfigKeys(text, FILE), [
    { file: FILE, key: 'vault.semantic.enabeld', line: 1, suggestion: 'vault.semantic.enabled' },
    { file: FILE, key: 'mcp.servers[1].comand', line: 7, suggestion: 'mcp.servers[1].command' },
  ]);
});

test("the user's own names are not checked: model names, webhook triggers, an MCP server's env, an adapter type's settings", () => {
  const text = [
    '[model.tool_calling_by_model]', '"ollama:llama3.2:1b" = "text"',
    '[webhook_secrets]', '"digest/github" = "s3cret"',
    '[[mcp.servers]]', 'name = "data"', 'command = "kowalski"', 'env = { ANY_NAME = "1" }',
    '[adapters.mail]', 'type = "email"', 'agent = "assistant"', 'password_env = "MAIL_PASSWORD"',
    '[adapters.mail.imap]', 'host = "imap.example.com"',
    '',
  ].join('\n');
  assert.deepEqual(unknownConfigKeys(text, FILE), []);
});

test('the example, with every key switched on, has no unknown key', () => {
  assert.deepEqual(unknownConfigKeys(renderConfigExample().replace(/^#(?=[[a-z"])/gm, ''), FILE), []);
});

test('a key nothing is close to gets no suggestion', () => {
  assert.deepEqual(unknownConfigKeys('[runs]\nzzzzzzzzzz = 1\n', FILE), [{ file: FILE, key: 'runs.zzzzzzzzzz', line: 2 }]);
});
