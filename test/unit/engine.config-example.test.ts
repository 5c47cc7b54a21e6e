/**
 * config.example.toml: the committed file is what the catalog (engine/config/keys.ts) renders
 * now; it parses and means the defaults; with every `#` of a key removed it still passes the
 * real reader and sets every listed key; and every key the reader reads is listed — found by
 * recording what the reader reads, not by a second hand-kept list.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';
import { webSearchConfigFrom } from '../../agents/index.js';
import { CONFIG_SECTIONS, DEFAULT_CONFIG, configFrom, keyStatus, parseConfig, renderConfigExample } from '../../engine/index.js';
import type { ConfigValue } from '../../engine/index.js';
import { SECRET_KEY_NAME } from '../../engine/secrets/secret-list.js';

const FILE = fileURLToPath(new URL('../../config.example.toml', import.meta.url));
const example = renderConfigExample();
/** The example with every key, header and entry switched on (each `#` that starts a setting removed). */
const uncommented = example.replace(/^#(?=[[a-z"])/gm, '');

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** `section` (a table of the file) without the keys that apply only with another value of a key of it (Staan's market beside searxng). */
function applicable(sectionName: string, section: Table): Table {
  const out = { ...section };
  for (const key of CONFIG_SECTIONS.find((s) => s.name === sectionName)?.keys ?? []) {
    if (key.onlyWith !== undefined && !key.onlyWith.values.includes(String(section[key.onlyWith.key]))) delete out[key.key];
  }
  return out;
}

test('the committed config.example.toml is what the catalog renders now', () => {
  assert.equal(fs.readFileSync(FILE, 'utf8'), example, 'config.example.toml is out of date with engine/config/keys.ts: run `npm run config:example` and commit the file');
});

test('as written it parses and means the defaults', () => {
  const { raw, ...config } = parseConfig(example, FILE);
  const { raw: _none, ...defaults } = DEFAULT_CONFIG;
  assert.deepEqual(config, defaults);
  assert.ok(isTable(raw.model) && isTable(raw.tools), 'the harmless sections are written, for keys to be added under them');
});

test('with every key switched on it passes the real reader, and every listed key is set to its default or example', () => {
  const raw = parse(uncommented) as Table;
  const tools = raw.tools as { web_search: Table };
  const config = configFrom({ ...raw, tools: { ...tools, web_search: applicable('tools.web_search', tools.web_search) } }, FILE);
  assert.equal(config.mcpServers.length, 2);
  assert.equal(config.adapters.length, 1);
  for (const section of CONFIG_SECTIONS) {
    const path = section.name.replace('<name>', 'slack').split('.');
    let tables: unknown[] = [raw];
    for (const name of path) tables = tables.flatMap((t) => (isTable(t) ? [t[name]] : [])).flatMap((t) => (Array.isArray(t) ? t : [t]));
    assert.ok(tables.length > 0 && tables.every(isTable), `[${section.name}] is in the example`);
    for (const key of section.keys) {
      const written: unknown = (tables as Table[]).map((t) => t[key.key]).find((v) => v !== undefined);
      if (key.secret === true) {
        assert.equal(written, undefined, `${section.name}.${key.key} is a secret: the example gives it no value`);
        assert.match(example, new RegExp(`^# ${key.key}: `, 'm'), `${section.name}.${key.key} is named in a comment`);
      } else {
        assert.deepEqual(JSON.parse(JSON.stringify(written)), (key.default ?? key.example) as ConfigValue, `${section.name}.${key.key} is in the example with its default or example`);
      }
    }
  }
});

/** `value` with every key read below it recorded in `seen` as a dotted name (`mcp.servers[].name`). */
function recording(value: unknown, name: string, seen: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => recording(v, name, seen));
  if (!isTable(value)) return value;
  return new Proxy(value, {
    get(target, key, receiver) {
      if (typeof key !== 'string' || (key in Object.prototype && !Object.hasOwn(target, key))) return Reflect.get(target, key, receiver) as unknown;
      const entries = Array.isArray(target[key]) && (target[key] as unknown[]).some(isTable) ? '[]' : '';
      const full = `${name === '' ? '' : `${name}.`}${key}${entries}`;
      seen.add(full);
      return recording(target[key], full, seen);
    },
  });
}

test('every key the reader reads is in the catalog', () => {
  const seen = new Set<string>();
  const raw = parse(uncommented) as Table;
  const webSearch = (raw.tools as { web_search: Table }).web_search;
  configFrom(recording({ ...raw, tools: { ...(raw.tools as Table), web_search: applicable('tools.web_search', webSearch) } }, '', seen) as Table, FILE);
  // web search reads other keys for each provider: each one the catalog lists, with a key in the environment
  const choices = CONFIG_SECTIONS.find((s) => s.name === 'tools.web_search')?.keys.find((k) => k.key === 'provider')?.choices ?? [];
  assert.ok(choices.length > 1);
  for (const provider of choices) {
    const tools = { web_search: applicable('tools.web_search', { ...webSearch, provider }) };
    webSearchConfigFrom(recording({ tools }, '', seen) as Table, FILE, { BRAVE_API_KEY: 'k' });
  }
  const missing = [...seen].filter((name) => keyStatus(name.split('.')) === 'unknown');
  assert.deepEqual(missing, [], 'the reader reads keys the catalog (engine/config/keys.ts) does not list: add them there, then run `npm run config:example`');
  assert.ok(seen.has('tools.web_search.market') && seen.has('runs.max_parallel_steps') && seen.has('mcp.servers[].connect_timeout_secs') && seen.has('providers.ollama.host'), 'the recording sees the reader');
});

test('every key DEFAULT_CONFIG gives a value is in the catalog with that value', () => {
  const snake = (s: string): string => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const walk = (value: unknown, name: string[]): [string[], unknown][] =>
    isTable(value) && Object.keys(value).length > 0 ? Object.entries(value).flatMap(([k, v]) => walk(v, [...name, snake(k)])) : [[name, value]];
  const { store, runs, model, chat, vault } = DEFAULT_CONFIG;
  const leaves = walk({ store, runs, model, chat, vault }, []).filter(([, v]) => !isTable(v));
  assert.ok(leaves.length >= 12);
  for (const [name, value] of leaves) {
    const section = CONFIG_SECTIONS.find((s) => s.name === name.slice(0, -1).join('.'));
    assert.equal(section?.keys.find((k) => k.key === name.at(-1))?.default, value, `${name.join('.')} = ${JSON.stringify(value)} in DEFAULT_CONFIG and the catalog`);
  }
});

test("a key is marked secret exactly when its name says it holds one (the data folder's list of secrets)", () => {
  for (const section of CONFIG_SECTIONS) {
    for (const key of section.keys) assert.equal(key.secret === true, SECRET_KEY_NAME.test(key.key), `${section.name}.${key.key}`);
  }
});
