/**
 * `kowalski init` through the real CLI: a new data folder gets a config.toml, owner-only,
 * that is config.example.toml's text, that the real reader takes and that means the
 * defaults; a second init refuses with exit 2 and KW_ERR_CONFIG_EXISTS naming the file,
 * and leaves the file as it was.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { DEFAULT_CONFIG, loadConfig, renderConfigExample } from '../../engine/index.js';
import { cli, cliSandbox, outputOf, stdoutJson } from '../../testkit/cli.js';

const mode = (file: string): number => fs.statSync(file).mode & 0o777;

test('init writes config.toml owner-only with every key, then refuses to write over it', async (t) => {
  const { home } = cliSandbox(t);
  const file = path.join(home, 'config.toml');

  const first = await cli(home, ['init']);
  assert.equal(first.code, 0, outputOf(first));
  assert.equal(mode(home), 0o700, 'the data folder it made is owner-only');
  assert.equal(mode(file), 0o600, 'config.toml is owner-only');
  const text = fs.readFileSync(file, 'utf8');
  assert.equal(text, renderConfigExample());
  assert.match(text, /^#max_parallel_steps = 4$/m);
  const { raw: _raw, ...config } = loadConfig(file);
  const { raw: _none, ...defaults } = DEFAULT_CONFIG;
  assert.deepEqual(config, defaults, 'it parses, through the real reader, to the defaults');
  assert.match(first.stdout, new RegExp(`^wrote ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(owner-only, 0600\\)`, 'm'));
  assert.match(first.stdout, /^next: set \[model\] default/m);

  fs.appendFileSync(file, '[runs]\nmax_parallel_steps = 2\n'); // the operator's edit
  const edited = fs.readFileSync(file, 'utf8');
  const second = await cli(home, ['init']);
  assert.equal(second.code, 2, outputOf(second));
  assert.match(second.stderr, /\[KW_ERR_CONFIG_EXISTS\]\n$/);
  assert.ok(second.stderr.includes(`${file} already exists`), second.stderr);
  assert.equal(second.stdout, '');
  assert.equal(fs.readFileSync(file, 'utf8'), edited, 'config.toml is unchanged');
  assert.equal(mode(file), 0o600);

  const json = await cli(home, ['init', '--json']);
  assert.equal(json.code, 2, outputOf(json));
  assert.deepEqual(stdoutJson(json), { error: { code: 'KW_ERR_CONFIG_EXISTS', message: `${file} already exists; init writes only a new one and left it unchanged: edit it (config.example.toml lists every key), or move it aside and run init again`, where: { file } } });
});

test('init in an existing data folder keeps the folder as it is and prints JSON with --json', async (t) => {
  const { home } = cliSandbox(t);
  fs.mkdirSync(home, { mode: 0o750 });
  fs.chmodSync(home, 0o750);
  const r = await cli(home, ['init', '--json']);
  assert.equal(r.code, 0, outputOf(r));
  const file = path.join(home, 'config.toml');
  assert.deepEqual(stdoutJson(r), { file, createdDataFolder: false, next: 'set [model] default (or choose a model in the app: kowalski serve), then check with kowalski doctor' });
  assert.equal(mode(home), 0o750);
  assert.equal(mode(file), 0o600);
});

test('a data folder that is a file: exit 2 naming it, nothing written', async (t) => {
  const { root, home } = cliSandbox(t);
  fs.writeFileSync(home, 'not a folder');
  const r = await cli(home, ['init']);
  assert.equal(r.code, 2, outputOf(r));
  assert.match(r.stderr, new RegExp(`the data folder ${home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is a file, not a folder.*\\[KW_ERR_USAGE\\]\\n$`));
  assert.deepEqual(fs.readdirSync(root), ['home']);
});
