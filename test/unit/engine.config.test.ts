/** config.toml and the data directory: defaults, every key, and errors that name the file and the key. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { KowalskiError } from '../../core/index.js';
import { DEFAULT_CONFIG, loadConfig, parseConfig, resolveDataDir } from '../../engine/index.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';

test('a missing config.toml is the defaults: synchronous FULL, 4 parallel steps, 600 s per step, no model', (t) => {
  const config = loadConfig(path.join(tempDir(t), 'config.toml'));
  assert.deepEqual(config, DEFAULT_CONFIG);
  assert.equal(config.store.synchronous, 'full');
  assert.equal(config.model.default, undefined);
});

test('every key is read, and unknown sections are kept for the parts that use them', (t) => {
  const file = path.join(tempDir(t), 'config.toml');
  fs.writeFileSync(file, '[store]\nsynchronous = "normal"\n[runs]\nmax_parallel_steps = 9\nstep_timeout_secs = 30\n[model]\ndefault = "ollama:qwen2.5:7b"\n[tools]\nroot = "~/files"\n');
  const config = loadConfig(file);
  assert.equal(config.store.synchronous, 'normal');
  assert.deepEqual(config.runs, { maxParallelSteps: 9, stepTimeoutSecs: 30 });
  assert.equal(config.model.default, 'ollama:qwen2.5:7b');
  assert.deepEqual({ ...(config.raw.tools as object) }, { root: '~/files' });
  assert.equal(config.tools.root, '~/files');
});

test('web search is read with the environment it is used with: a Brave key in BRAVE_API_KEY alone is enough', (t) => {
  const before = process.env.BRAVE_API_KEY;
  cleanups(t)(() => {
    if (before === undefined) delete process.env.BRAVE_API_KEY;
    else process.env.BRAVE_API_KEY = before;
  });
  const text = '[tools.web_search]\nprovider = "brave"\n';
  process.env.BRAVE_API_KEY = 'brave-key-from-env';
  assert.equal(parseConfig(text, '/k/config.toml').webSearch?.provider, 'brave');
  delete process.env.BRAVE_API_KEY;
  assert.throws(() => parseConfig(text, '/k/config.toml'), { code: 'KW_ERR_CONFIG_INVALID', message: /BRAVE_API_KEY/ });
});

test('the model section: tool calling globally and per model, the loop bounds', (t) => {
  const file = path.join(tempDir(t), 'config.toml');
  fs.writeFileSync(file, '[model]\ntool_calling = "native"\nmax_tool_iterations = 6\nmax_tool_errors = 1\n[model.tool_calling_by_model]\n"ollama:llama3.2:1b" = "text"\n');
  const { model } = loadConfig(file);
  assert.deepEqual(model, { toolCalling: 'native', toolCallingByModel: { 'ollama:llama3.2:1b': 'text' }, maxToolIterations: 6, maxToolErrors: 1 });
});

test('a bad value is an error naming the file and the key; a syntax error names the line', () => {
  const cases: [string, string, number | undefined][] = [
    ['[store]\nsynchronous = "sometimes"\n', 'store.synchronous', undefined],
    ['[runs]\nmax_parallel_steps = 0\n', 'runs.max_parallel_steps', undefined],
    ['[runs]\nstep_timeout_secs = "ten"\n', 'runs.step_timeout_secs', undefined],
    ['[model]\ndefault = "qwen"\n', 'model.default', undefined],
    ['[model]\ntool_calling = "sometimes"\n', 'model.tool_calling', undefined],
    ['[model.tool_calling_by_model]\n"qwen" = "text"\n', 'model.tool_calling_by_model."qwen"', undefined],
    ['[model.tool_calling_by_model]\n"ollama:qwen" = "json"\n', 'model.tool_calling_by_model."ollama:qwen"', undefined],
    ['[model]\nmax_tool_errors = 0\n', 'model.max_tool_errors', undefined],
    ['[tools]\nroot = 7\n', 'tools.root', undefined],
    ['[tools.web_search]\nprovider = "bing"\n', 'tools.web_search.provider', undefined],
    ['store = 3\n', 'store', undefined],
    ['[runs]\nmax_parallel_steps = \n', '(syntax)', 2],
  ];
  for (const [text, key, line] of cases) {
    assert.throws(() => parseConfig(text, '/home/me/.local/share/kowalski/config.toml'), (err: KowalskiError) => {
      assert.equal(err.code, 'KW_ERR_CONFIG_INVALID');
      assert.equal(err.where?.file, '/home/me/.local/share/kowalski/config.toml');
      assert.equal(err.where?.key, key);
      if (line !== undefined) assert.equal(err.where?.line, line);
      assert.match(err.message, new RegExp(key.replace(/[().]/g, '\\$&')));
      return true;
    }, key);
  }
  // A syntax error names the line in its words too; a [section] written twice says so.
  assert.throws(() => parseConfig('[runs]\nmax_parallel_steps = 2\n[runs]\nstep_timeout_secs = 60\n', '/k/config.toml'),
    { code: 'KW_ERR_CONFIG_INVALID', message: /^\/k\/config\.toml:3: \(syntax\): .*redefine.*: is a \[section\] written twice\? Put its keys under the first one$/ });
});

test('a bad [[mcp.servers]] entry stops the config from loading, naming the key', () => {
  assert.throws(() => parseConfig('[[mcp.servers]]\ncommand = "x"\n', '/k/config.toml'), (err: KowalskiError) => {
    assert.equal(err.code, 'KW_ERR_MCP_CONFIG');
    assert.deepEqual(err.where, { file: '/k/config.toml', key: 'mcp.servers[0].name' });
    return true;
  });
});

test('the data directory: KOWALSKI_HOME, then XDG_DATA_HOME, then the platform\'s folder', () => {
  assert.equal(resolveDataDir({ KOWALSKI_HOME: '/data/kw', HOME: '/home/me' }, 'linux'), '/data/kw');
  assert.equal(resolveDataDir({ XDG_DATA_HOME: '/xdg', HOME: '/home/me' }, 'linux'), '/xdg/kowalski');
  assert.equal(resolveDataDir({ HOME: '/home/me' }, 'linux'), '/home/me/.local/share/kowalski');
  assert.equal(resolveDataDir({ HOME: '/Users/me' }, 'darwin'), '/Users/me/Library/Application Support/kowalski');
  assert.equal(resolveDataDir({ HOME: 'C:\\Users\\me', APPDATA: 'C:\\Users\\me\\AppData\\Roaming' }, 'win32'), path.join('C:\\Users\\me\\AppData\\Roaming', 'kowalski'));
});

test('[vault] max_note_bytes: 1 MiB by default, read when set, and a bad value names the key', () => {
  assert.equal(parseConfig('', '/k/config.toml').vault.maxNoteBytes, 1024 * 1024);
  assert.equal(parseConfig('[vault]\nmax_note_bytes = 4096\n', '/k/config.toml').vault.maxNoteBytes, 4096);
  for (const bad of ['0', '-1', '"1MiB"', '1.5', String(17 * 1024 * 1024)]) {
    assert.throws(() => parseConfig(`[vault]\nmax_note_bytes = ${bad}\n`, '/k/config.toml'), (err: KowalskiError) => {
      assert.equal(err.code, 'KW_ERR_CONFIG_INVALID');
      assert.match(err.message, /^\/k\/config\.toml: vault\.max_note_bytes: must be /);
      return true;
    });
  }
});
