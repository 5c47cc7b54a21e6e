/** exportBundle: what goes into a .kwf.zip (and what never does), its manifest, and deterministic bytes. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { unzipSync } from 'fflate';
import { exportBundle } from '../../bundles/index.js';
import type { Manifest } from '../../bundles/index.js';
import { KowalskiError } from '../../core/index.js';
import { tempDir } from '../../testkit/tmp.js';

/** A horde with a model step (two tools, one of an MCP server), a verify step, a prompt, a data file and a cron trigger. */
function writeSample(dir: string): string {
  const files: Record<string, string> = {
    'horde.md': '---\nid = "sample"\ndisplay_name = "Sample"\ndescription = "A horde to bundle."\npipeline = ["ask", "check"]\n\n[[triggers]]\nname = "nightly"\nkind = "cron"\nschedule = "0 6 * * *"\n---\n# Sample\n',
    'agents/ask.md': '---\nname = "ask"\nkind = "process"\nprompt_file = "prompts/ask.md"\ntools = ["web_fetch", "files.read_text"]\nmodel = "ollama:qwen2.5:7b"\n---\nAsks.\n',
    'agents/check.md': '---\nname = "check"\nkind = "verify"\nverify_command = "npm test"\n---\n',
    'prompts/ask.md': 'Say hi.\n',
    'data/table.csv': 'a,b\n1,2\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const sha = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

async function refusal(promise: Promise<unknown>): Promise<KowalskiError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof KowalskiError, String(err));
    return err;
  }
  assert.fail('the export should have been refused');
}

describe('exportBundle', () => {
  test('the bundle holds every regular file of the folder and a manifest listing each with its size and sha256', async (t) => {
    const dir = writeSample(path.join(tempDir(t), 'sample'));
    const files = unzipSync(await exportBundle(dir, 'sample'));
    assert.deepEqual(Object.keys(files), ['agents/ask.md', 'agents/check.md', 'data/table.csv', 'horde.md', 'kwf-manifest.json', 'prompts/ask.md']);
    for (const name of Object.keys(files).filter((n) => n !== 'kwf-manifest.json')) {
      assert.deepEqual(Buffer.from(files[name]!), fs.readFileSync(path.join(dir, name)), name);
    }
    const manifest = JSON.parse(Buffer.from(files['kwf-manifest.json']!).toString('utf8')) as Manifest;
    assert.deepEqual(manifest, {
      format: 1,
      hordeId: 'sample',
      files: ['agents/ask.md', 'agents/check.md', 'data/table.csv', 'horde.md', 'prompts/ask.md'].map((p) => {
        const data = fs.readFileSync(path.join(dir, p));
        return { path: p, bytes: data.length, sha256: sha(data) };
      }),
      tools: ['files.read_text', 'web_fetch'],
      mcpServers: ['files'],
      commands: ['npm test'],
    });
  });

  test('the same folder gives the same bytes, even after its files are touched; a changed file changes them', async (t) => {
    const dir = writeSample(path.join(tempDir(t), 'sample'));
    const first = await exportBundle(dir, 'sample');
    const later = new Date(Date.now() + 86_400_000);
    for (const rel of ['horde.md', 'agents/ask.md', 'prompts/ask.md']) fs.utimesSync(path.join(dir, rel), later, later);
    const second = await exportBundle(dir, 'sample');
    assert.equal(Buffer.compare(Buffer.from(first), Buffer.from(second)), 0, 'touching mtimes must not change the bundle');
    // Every entry carries the fixed time 1980-01-01 00:00 (DOS date 0x0021, time 0) and Unix mode 0644 regular file.
    const buf = Buffer.from(first);
    const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    let at = buf.readUInt32LE(eocd + 16);
    for (let i = 0; i < buf.readUInt16LE(eocd + 10); i++) {
      assert.equal(buf.readUInt32LE(at), 0x02014b50);
      assert.equal(buf.readUInt16LE(at + 12), 0, 'DOS time');
      assert.equal(buf.readUInt16LE(at + 14), 0x0021, 'DOS date 1980-01-01');
      assert.equal(buf.readUInt32LE(at + 38) >>> 16, 0o100644, 'external attributes: regular file 0644');
      at += 46 + buf.readUInt16LE(at + 28) + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
    }
    fs.appendFileSync(path.join(dir, 'prompts/ask.md'), 'And bye.\n');
    assert.notEqual(Buffer.compare(Buffer.from(first), Buffer.from(await exportBundle(dir, 'sample'))), 0);
  });

  test('dot-files and dot-folders (the import marker, .git) are left out', async (t) => {
    const dir = writeSample(path.join(tempDir(t), 'sample'));
    fs.writeFileSync(path.join(dir, '.kowalski-import.json'), '{"importedAt":"x"}');
    fs.mkdirSync(path.join(dir, '.git'));
    fs.writeFileSync(path.join(dir, '.git', 'config'), '[core]');
    fs.writeFileSync(path.join(dir, 'prompts', '.draft.md'), 'draft');
    const names = Object.keys(unzipSync(await exportBundle(dir, 'sample')));
    assert.ok(names.every((n) => !n.split('/').some((s) => s.startsWith('.'))), names.join(', '));
    assert.equal(names.length, 6);
  });

  test('a symlink in the folder is an export error naming it, and is never followed', async (t) => {
    const root = tempDir(t);
    const dir = writeSample(path.join(root, 'sample'));
    fs.writeFileSync(path.join(root, 'secret.txt'), 'do not export me');
    fs.symlinkSync(path.join(root, 'secret.txt'), path.join(dir, 'data', 'link.txt'));
    const err = await refusal(exportBundle(dir, 'sample'));
    assert.equal(err.code, 'KW_ERR_HORDE_INVALID');
    assert.match(err.message, /"data\/link\.txt": it is a symbolic link/);
    assert.deepEqual(err.where, { file: 'data/link.txt' });
  });

  test('a folder an import would refuse is refused at export: a bad name, a file over the cap, an invalid horde, another id', async (t) => {
    const root = tempDir(t);
    const dir = writeSample(path.join(root, 'sample'));
    fs.writeFileSync(path.join(dir, 'data', 'what?.csv'), 'x');
    const badName = await refusal(exportBundle(dir, 'sample'));
    assert.equal(badName.code, 'KW_ERR_HORDE_INVALID');
    assert.match(badName.message, /"data\/what\?\.csv": the name holds a character Windows forbids/);
    fs.rmSync(path.join(dir, 'data', 'what?.csv'));

    fs.writeFileSync(path.join(dir, 'data', 'big.bin'), Buffer.alloc(2048));
    const big = await refusal(exportBundle(dir, 'sample', { limits: { maxEntryBytes: 1024 } }));
    assert.equal(big.code, 'KW_ERR_HORDE_TOO_LARGE');
    assert.match(big.message, /"data\/big\.bin": it is 2 KiB, a bundle entry may hold at most 1 KiB/);

    const other = await refusal(exportBundle(dir, 'another'));
    assert.equal(other.code, 'KW_ERR_USAGE');
    assert.match(other.message, /holds the horde "sample", not "another"/);

    fs.writeFileSync(path.join(dir, 'agents', 'check.md'), '---\nname = "check"\nkind = "frobnicate"\n---\n');
    const invalid = await refusal(exportBundle(dir, 'sample'));
    assert.equal(invalid.code, 'KW_ERR_HORDE_INVALID');
    assert.match(invalid.message, /agents\/check\.md:3: .*frobnicate/);
  });
});
