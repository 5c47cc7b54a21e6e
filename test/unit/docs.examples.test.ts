import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';
import { ERROR_CODES } from '../../core/index.js';
import { formatProblems, loadHorde } from '../../engine/horde/index.js';

const DOCS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs');
const EXAMPLES = path.join(DOCS, 'examples');
/** The pages for horde authors, checked here. */
const AUTHOR_DOCS = ['horde-format.md', 'step-kinds.md', 'edges.md', 'approvals.md'];

function exampleFolders(): string[] {
  return fs.readdirSync(EXAMPLES, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
}

function docText(name: string): string {
  return fs.readFileSync(path.join(DOCS, name), 'utf8');
}

void test('every example horde in docs/examples loads with no errors and no warnings', async () => {
  const folders = exampleFolders();
  assert.ok(folders.length >= 3, 'there are examples');
  for (const name of folders) {
    const r = await loadHorde(path.join(EXAMPLES, name));
    assert.ok(r.ok, `docs/examples/${name}:\n${r.ok ? '' : formatProblems(r.problems)}`);
    assert.equal(formatProblems(r.warnings), '', `docs/examples/${name} has warnings`);
    assert.equal(r.horde.id, name, 'an example folder is named after its id');
  }
});

void test('every examples/<name> a doc mentions exists, and every example is mentioned', () => {
  const mentioned = new Set<string>();
  const docs = fs.readdirSync(DOCS).filter((f) => f.endsWith('.md'));
  for (const doc of docs) {
    for (const m of docText(doc).matchAll(/(?<!\.\.\/)examples\/([a-z0-9][a-z0-9-]*)/g)) {
      const name = m[1] ?? '';
      mentioned.add(name);
      assert.ok(fs.existsSync(path.join(EXAMPLES, name, 'horde.md')), `docs/${doc} refers to examples/${name}, which is not a horde folder`);
    }
  }
  for (const name of exampleFolders()) assert.ok(mentioned.has(name), `docs/examples/${name} is not mentioned by any doc`);
});

void test('the author docs: their relative links resolve, their TOML blocks parse, their codes exist', () => {
  for (const doc of AUTHOR_DOCS) {
    const text = docText(doc);
    for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
      const target = m[1] ?? '';
      if (/^[a-z]+:/.test(target)) continue;
      assert.ok(fs.existsSync(path.join(DOCS, target)), `docs/${doc} links to ${target}, which does not exist`);
    }
    for (const m of text.matchAll(/```toml\n([\s\S]*?)```/g)) {
      assert.doesNotThrow(() => parse(m[1] ?? ''), `a toml block of docs/${doc} does not parse:\n${m[1] ?? ''}`);
    }
    for (const m of text.matchAll(/\bKW_(?:ERR|WARN)_[A-Z_]+/g)) {
      assert.ok(Object.hasOwn(ERROR_CODES, m[0]), `docs/${doc} names ${m[0]}, which is not in core/errors.ts`);
    }
  }
});

void test('every key of a loaded horde.md and agents file is described in horde-format.md', async () => {
  const format = docText('horde-format.md');
  const keys = [
    'id', 'display_name', 'description', 'pipeline', '[[edges]]', '[[triggers]]', 'confirm_commands', 'workdir', 'delivery_root_rel',
    'name', 'kind', 'prompt_file', 'output', 'writes', 'context_paths', 'reads', 'tool_ids', 'tools', 'fs_tool', 'model',
    'timeout_secs', 'isolation', 'verify_command', 'verify_cwd', 'apply_mode', 'normalize_sections', '[[inputs]]',
    'schedule', 'timezone', 'catch_up', 'path', 'globs', 'debounce_ms', 'secret_env', 'enabled', 'overlap', 'input',
  ];
  for (const key of keys) assert.ok(format.includes(`\`${key}\``) || format.includes(`${key} =`), `horde-format.md does not mention ${key}`);
});
