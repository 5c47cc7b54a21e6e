/** reviewBundle's report and installBundle: round trips, a new id, replacing, ids that are taken, and nothing ever run. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import { discardBundle, exportBundle, installBundle, reviewBundle, rewriteId } from '../../bundles/index.js';
import type { ImportMarker, StagedBundle } from '../../bundles/index.js';
import { KowalskiError } from '../../core/index.js';
import { IMPORT_MARKER, catalogOf } from '../../engine/index.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';

/** The sample horde; its verify step would append to `proof` if it ever ran. */
const sample = (proof: string): Record<string, string> => ({
  'horde.md': '---\n# the id below is rewritten on import under another id\nid = "sample"   # keep me\ndisplay_name = "Sample"\ndescription = "A horde to bundle."\npipeline = ["ask", "check"]\n\n[[triggers]]\nname = "nightly"\nkind = "cron"\nschedule = "0 6 * * *"\n\n[[triggers]]\nname = "inbox"\nkind = "watch"\npath = "~/Inbox"\n---\n# Sample\n\nid = "not-this-one" (the body is documentation)\n',
  'agents/ask.md': '---\nname = "ask"\nkind = "process"\nprompt_file = "prompts/ask.md"\ntools = ["web_fetch", "files.read_text"]\nmodel = "ollama:qwen2.5:7b"\n---\n',
  'agents/check.md': `---\nname = "check"\nkind = "verify"\nverify_command = ${JSON.stringify(`echo ran >> ${proof}`)}\n---\n`,
  'prompts/ask.md': 'Say hi.\n',
  'data/rows.csv': Array.from({ length: 5000 }, (_, i) => `${i},${(i * 7919) % 104729},row ${i}`).join('\n'),
});

function writeFiles(dir: string, files: Record<string, string>): string {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/** Every file under `dir` (relative path → bytes), dot-files included. */
function readTree(dir: string, rel = ''): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel === '' ? d.name : `${rel}/${d.name}`;
    if (d.isDirectory()) for (const [k, v] of readTree(dir, r)) out.set(k, v);
    else out.set(r, fs.readFileSync(path.join(dir, r)));
  }
  return out;
}

interface Setup {
  dataDir: string;
  /** Would exist if a command of the bundle had run. */
  proof: string;
  source: string;
  hordes: string;
  review(bytes?: Uint8Array): Promise<StagedBundle>;
}

async function setup(t: TestContext): Promise<Setup & { bytes: Uint8Array }> {
  const root = tempDir(t, 'kw-install-');
  const dataDir = path.join(root, 'data');
  const proof = path.join(root, 'PROOF');
  const source = writeFiles(path.join(root, 'src', 'sample'), sample(proof));
  const bytes = await exportBundle(source, 'sample');
  return {
    dataDir, source, bytes, proof, hordes: path.join(dataDir, 'hordes'),
    async review(b = bytes) {
      const staged = await reviewBundle(b, { dataDir });
      cleanups(t)(() => discardBundle(staged));
      return staged;
    },
  };
}

async function rejection(promise: Promise<unknown>): Promise<KowalskiError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof KowalskiError, String(err));
    return err;
  }
  assert.fail('expected a refusal');
}

describe('the review', () => {
  test('shows steps, every command it will ask to run, tools, MCP servers, triggers and warnings; nothing runs', async (t) => {
    const s = await setup(t);
    const staged = await s.review();
    const r = staged.report;
    assert.deepEqual(r.horde, {
      id: 'sample', displayName: 'Sample', description: 'A horde to bundle.', pipeline: ['ask', 'check'], confirmCommands: true,
      steps: [
        { name: 'ask', kind: 'process', tools: ['web_fetch', 'files.read_text'], model: 'ollama:qwen2.5:7b' },
        { name: 'check', kind: 'verify', tools: [], command: `echo ran >> ${s.proof}` },
      ],
      triggers: [{ name: 'nightly', kind: 'cron', schedule: '0 6 * * *' }, { name: 'inbox', kind: 'watch', path: '~/Inbox' }],
    });
    assert.deepEqual(r.commands, [`echo ran >> ${s.proof}`]);
    assert.deepEqual(r.tools, ['files.read_text', 'web_fetch']);
    assert.deepEqual(r.mcpServers, ['files']);
    assert.deepEqual(r.warnings.map((w) => [w.code, w.file, w.key]), [['KW_WARN_TOOL_UNKNOWN', 'agents/ask.md', 'tools[1]']]);
    assert.equal(r.existing, null);
    assert.equal(r.manifest.hordeId, 'sample');
    assert.match(staged.sha256, /^[0-9a-f]{64}$/);
    // Reviewed, nothing installed: the catalog has no "sample" and no command ran anywhere.
    assert.equal((await catalogOf({ dataDir: s.dataDir })).entries.some((e) => e.id === 'sample'), false);
    assert.equal(fs.existsSync(s.hordes), false);
    assert.equal(fs.existsSync(s.proof), false, 'nothing in a bundle runs at review');
  });

  test("shows what a send step and an mcp_call step reach: the adapter and recipient, the tool, as written", async (t) => {
    const s = await setup(t);
    const horde = path.join(s.source, 'horde.md');
    fs.writeFileSync(horde, fs.readFileSync(horde, 'utf8').replace('pipeline = ["ask", "check"]', 'pipeline = ["ask", "quote", "post"]'));
    fs.writeFileSync(path.join(s.source, 'agents', 'quote.md'), '---\nname = "quote"\nkind = "mcp_call"\ntool = "bank.quote"\narguments = { symbol = "ACME" }\noutput = "inputs/prices/prices.json"\n---\n');
    fs.writeFileSync(path.join(s.source, 'agents', 'post.md'), '---\nname = "post"\nkind = "send"\nreads = ["@step:ask@"]\nadapter = "team-slack"\nto = "#desk"\n---\n');
    const staged = await s.review(await exportBundle(s.source, 'sample'));
    assert.deepEqual(staged.report.horde.steps.map((x) => [x.name, x.kind, x.reaches]), [
      ['ask', 'process', undefined],
      ['quote', 'mcp_call', 'calls MCP tool bank.quote'],
      ['post', 'send', 'sends through adapter team-slack to #desk'],
    ]);
    assert.deepEqual(staged.report.mcpServers, ['bank', 'files'], "the server of the tool it calls is among the MCP servers it wants");
    assert.deepEqual(staged.report.manifest.mcpServers, ['bank', 'files']);
  });

  test('says when the horde runs its commands without asking (confirm_commands = false)', async (t) => {
    const s = await setup(t);
    const horde = path.join(s.source, 'horde.md');
    fs.writeFileSync(horde, fs.readFileSync(horde, 'utf8').replace('pipeline = ', 'confirm_commands = false\npipeline = '));
    const staged = await s.review(await exportBundle(s.source, 'sample'));
    assert.equal(staged.report.horde.confirmCommands, false);
    assert.deepEqual(staged.report.commands, [`echo ran >> ${s.proof}`]);
  });

  test('says when the id is already taken, and by what', async (t) => {
    const s = await setup(t);
    writeFiles(path.join(s.hordes, 'folder-name'), { 'horde.md': '---\nid = "sample"\npipeline = ["a"]\n---\n', 'agents/a.md': '---\nname = "a"\nkind = "verify"\nverify_command = "true"\n---\n' });
    assert.deepEqual((await s.review()).report.existing, { hordeId: 'sample', origin: 'user' });
    const builtin = await exportBundle(path.join(import.meta.dirname, '..', '..', 'hordes', 'project-check'), 'project-check');
    assert.deepEqual((await s.review(builtin)).report.existing, { hordeId: 'project-check', origin: 'builtin' });
  });
});

describe('installBundle', () => {
  test('export then import round-trips to the same files, marked imported, and no command runs', async (t) => {
    const s = await setup(t);
    const staged = await s.review();
    const installed = await installBundle(staged, { now: () => new Date('2025-03-01T12:00:00Z') });
    assert.deepEqual(installed, { hordeId: 'sample', dir: path.join(s.hordes, 'sample'), replaced: [] });
    const got = readTree(installed.dir);
    const marker = JSON.parse(got.get(IMPORT_MARKER)!.toString('utf8')) as ImportMarker;
    assert.deepEqual(marker, { importedAt: '2025-03-01T12:00:00.000Z', sha256: staged.sha256, sourceHordeId: 'sample' });
    got.delete(IMPORT_MARKER);
    assert.deepEqual(got, readTree(s.source), 'byte-equal files');
    const entry = (await catalogOf({ dataDir: s.dataDir })).entries.find((e) => e.id === 'sample');
    assert.equal(entry?.origin, 'imported');
    assert.ok(entry?.result.ok && entry.result.horde.origin === 'imported');
    assert.equal(fs.existsSync(s.proof), false, 'nothing in a bundle runs at import');
    // The scratch folders are gone once the staged bundle is discarded.
    await discardBundle(staged);
    assert.deepEqual(fs.readdirSync(path.join(s.dataDir, 'tmp')), []);
  });

  test('under a new id only the id line of horde.md differs, and the installed horde carries the new id', async (t) => {
    const s = await setup(t);
    const installed = await installBundle(await s.review(), { id: 'my-copy' });
    assert.equal(installed.dir, path.join(s.hordes, 'my-copy'));
    const got = readTree(installed.dir);
    const want = readTree(s.source);
    for (const [rel, data] of want) if (rel !== 'horde.md') assert.deepEqual(got.get(rel), data, rel);
    const before = want.get('horde.md')!.toString('utf8').split('\n');
    const after = got.get('horde.md')!.toString('utf8').split('\n');
    assert.equal(after.length, before.length);
    assert.deepEqual(before.flatMap((line, i) => (line === after[i] ? [] : [[line, after[i]]])), [['id = "sample"   # keep me', 'id = "my-copy"   # keep me']]);
    const catalog = await catalogOf({ dataDir: s.dataDir });
    assert.deepEqual(catalog.entries.filter((e) => e.origin !== 'builtin').map((e) => [e.id, e.origin, e.result.ok]), [['my-copy', 'imported', true]]);
    const marker = JSON.parse(got.get(IMPORT_MARKER)!.toString('utf8')) as ImportMarker;
    assert.equal(marker.sourceHordeId, 'sample');
  });

  test('an id already installed is refused without replace, and nothing changes', async (t) => {
    const s = await setup(t);
    await installBundle(await s.review());
    fs.writeFileSync(path.join(s.hordes, 'sample', 'prompts', 'ask.md'), 'edited by the user\n');
    const err = await rejection(installBundle(await s.review()));
    assert.equal(err.code, 'KW_ERR_HORDE_EXISTS');
    assert.match(err.message, /"sample" is already installed \(imported, in .*\): choose another id, or replace it/);
    assert.equal(fs.readFileSync(path.join(s.hordes, 'sample', 'prompts', 'ask.md'), 'utf8'), 'edited by the user\n');
  });

  test('replace swaps the folder of the horde with that id, wherever it is, for the bundle', async (t) => {
    const s = await setup(t);
    const old = writeFiles(path.join(s.hordes, 'old-folder'), {
      'horde.md': '---\nid = "sample"\npipeline = ["a"]\n---\n',
      'agents/a.md': '---\nname = "a"\nkind = "verify"\nverify_command = "true"\n---\n',
      'notes.txt': 'only in the old one',
    });
    const installed = await installBundle(await s.review(), { replace: true });
    assert.deepEqual(installed.replaced, [old]);
    assert.equal(fs.existsSync(old), false);
    const got = readTree(installed.dir);
    got.delete(IMPORT_MARKER);
    assert.deepEqual(got, readTree(s.source));
    const ids = (await catalogOf({ dataDir: s.dataDir })).entries.filter((e) => e.id === 'sample');
    assert.deepEqual(ids.map((e) => [e.dir, e.origin, e.result.ok]), [[installed.dir, 'imported', true]]);
    assert.deepEqual(fs.readdirSync(path.join(s.dataDir, 'tmp')).filter((n) => n.startsWith('install-')), [], 'the old folder is removed after the rename');
  });

  test('a built-in id is never replaced: choose a new id', async (t) => {
    const s = await setup(t);
    const builtin = await exportBundle(path.join(import.meta.dirname, '..', '..', 'hordes', 'project-check'), 'project-check');
    const staged = await s.review(builtin);
    for (const replace of [false, true]) {
      const err = await rejection(installBundle(staged, { replace }));
      assert.equal(err.code, 'KW_ERR_HORDE_EXISTS');
      assert.match(err.message, /"project-check" is built in and can never be replaced: install it under a new id/);
    }
    assert.equal(fs.existsSync(s.hordes), false);
    const installed = await installBundle(staged, { id: 'my-check' });
    assert.equal(installed.hordeId, 'my-check');
  });

  test('a folder already at hordes/<id> that holds something else is never overwritten', async (t) => {
    const s = await setup(t);
    writeFiles(path.join(s.hordes, 'sample'), { 'README.md': 'my notes, not a horde' });
    const err = await rejection(installBundle(await s.review(), { replace: true }));
    assert.equal(err.code, 'KW_ERR_HORDE_EXISTS');
    assert.match(err.message, /already exists and holds something else/);
    assert.deepEqual([...readTree(path.join(s.hordes, 'sample')).keys()], ['README.md']);
  });

  test('an id the loader would refuse is a usage error', async (t) => {
    const s = await setup(t);
    const staged = await s.review();
    for (const id of ['Sample', 'my_copy', '-x', '', 'a/b', '..', 'x'.repeat(101)]) {
      const err = await rejection(installBundle(staged, { id }));
      assert.equal(err.code, 'KW_ERR_USAGE', id);
    }
    assert.equal(fs.existsSync(s.hordes), false);
  });
});

describe('rewriteId', () => {
  test('rewrites only the top-level id line of the front matter, keeping spacing, line endings and comments around it', () => {
    assert.equal(rewriteId('---\nid = "a"\npipeline = ["x"]\n---\nid = "a"\n', 'b'), '---\nid = "b"\npipeline = ["x"]\n---\nid = "a"\n');
    assert.equal(rewriteId("+++\r\n  id='a' # c\r\n+++\r\n", 'b'), '+++\r\n  id="b" # c\r\n+++\r\n');
    assert.throws(() => rewriteId('---\npipeline = ["x"]\n\n[extra]\nid = "a"\n---\n', 'b'), /not written as one simple id = "…" line/);
  });
});
