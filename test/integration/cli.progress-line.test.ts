/**
 * The progress line of a long offline command on a real terminal (util-linux `script`):
 * `kowalski backup` and `restore` draw `backup: N/M files (P %)` on stderr while they copy,
 * ending at 100 %, `vault reindex` counts the notes it reads and `bundle import` the entries
 * and files it checks; the same commands piped print no progress and no `\r` at all.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { cli, outputOf } from '../../testkit/cli.js';
import { cleanups } from '../../testkit/cleanup.js';
import { tempDir } from '../../testkit/tmp.js';
import { testEngine } from '../support/engine.js';
import { startPty } from '../support/pty.js';
import { SAMPLE, sampleEntries } from '../support/bundles.js';
import { rawZip } from '../support/zip-writer.js';

const NOTES = 300;

async function homeWithNotes(t: TestContext): Promise<{ root: string; home: string }> {
  const root = tempDir(t, 'kw-progress-');
  const home = path.join(root, 'home');
  const engine = await testEngine(t, {}, home);
  await engine.close();
  fs.mkdirSync(path.join(home, 'vault', 'notes'), { recursive: true });
  for (let i = 0; i < NOTES; i++) fs.writeFileSync(path.join(home, 'vault', 'notes', `n${i}.md`), `# note ${i}\n`);
  return { root, home };
}

test('backup and restore show a progress line on a terminal and none when piped', { timeout: 120_000 }, async (t) => {
  const { root, home } = await homeWithNotes(t);

  const pty = startPty(home, ['backup', path.join(root, 'tty.zip')], { limitMs: 100_000 });
  cleanups(t)(() => {
    if (pty.child.exitCode === null) pty.child.kill('SIGKILL');
  });
  const onTty = await pty.exited;
  assert.equal(onTty.code, 0, onTty.output);
  assert.match(onTty.output, /backup: \d+\/\d+ files \(\d+ %\)/);
  const total = /backup: \d+\/(\d+) files/.exec(onTty.output)![1]!;
  assert.ok(Number(total) >= NOTES, `counts the notes: ${total}`);
  assert.match(onTty.output, new RegExp(`backup: ${total}/${total} files \\(100 %\\)[^\\n]*\\n`), 'ends at 100 % with a newline');
  assert.match(onTty.output, /^backed up /m, 'the result still prints on its own line');

  const restore = startPty(home, ['restore', path.join(root, 'tty.zip'), '--to', path.join(root, 'restored-tty')], { limitMs: 100_000 });
  const restored = await restore.exited;
  assert.equal(restored.code, 0, restored.output);
  assert.match(restored.output, /restore: (\d+)\/\1 files \(100 %\)/);

  const piped = await cli(home, ['backup', path.join(root, 'piped.zip')]);
  assert.equal(piped.code, 0, outputOf(piped));
  assert.match(piped.stdout, /^backed up /);
  assert.doesNotMatch(piped.stderr, /files|%/, 'no progress when stderr is not a terminal');
  assert.ok(!piped.stderr.includes('\r') && !piped.stdout.includes('\r'), 'no carriage return');

  const pipedRestore = await cli(home, ['restore', path.join(root, 'piped.zip'), '--to', path.join(root, 'restored-piped')]);
  assert.equal(pipedRestore.code, 0, outputOf(pipedRestore));
  assert.ok(!pipedRestore.stderr.includes('\r') && !pipedRestore.stderr.includes('restore:'), pipedRestore.stderr);
});

test('vault reindex on its own engine counts the notes read on a terminal, and nothing piped', { timeout: 120_000 }, async (t) => {
  const { home } = await homeWithNotes(t);
  const pty = startPty(home, ['vault', 'reindex'], { limitMs: 100_000 });
  cleanups(t)(() => {
    if (pty.child.exitCode === null) pty.child.kill('SIGKILL');
  });
  const onTty = await pty.exited;
  assert.equal(onTty.code, 0, onTty.output);
  const notes = /^reindexed (\d+) note/m.exec(onTty.output)?.[1];
  assert.ok(notes !== undefined && Number(notes) >= NOTES, onTty.output);
  assert.match(onTty.output, new RegExp(`reindex: ${notes} notes[^\\n]*\\n`), 'the last count is drawn, then a newline');

  const piped = await cli(home, ['vault', 'reindex']);
  assert.equal(piped.code, 0, outputOf(piped));
  assert.match(piped.stdout, /^reindexed \d+ note/);
  assert.ok(!piped.stderr.includes('\r') && !piped.stderr.includes('reindex:'), piped.stderr);
});

test('bundle import counts the entries and files it checks on a terminal, ends on the horde checked, and draws nothing piped', { timeout: 120_000 }, async (t) => {
  const root = tempDir(t, 'kw-progress-bundle-');
  const home = path.join(root, 'home');
  fs.mkdirSync(home, { mode: 0o700 });
  const files: Record<string, string> = { ...SAMPLE };
  for (let i = 0; i < 200; i++) files[`prompts/p${String(i).padStart(3, '0')}.md`] = `Prompt ${i}.\n`;
  const bundle = path.join(root, 'sample.kwf.zip');
  fs.writeFileSync(bundle, rawZip(sampleEntries(files)));

  const pty = startPty(home, ['bundle', 'import', bundle, '--dry-run'], { limitMs: 100_000 });
  cleanups(t)(() => {
    if (pty.child.exitCode === null) pty.child.kill('SIGKILL');
  });
  const onTty = await pty.exited;
  assert.equal(onTty.code, 0, onTty.output);
  assert.match(onTty.output, new RegExp(`import: \\d+/${Object.keys(files).length + 1} entries \\(\\d+ %\\)`), 'the entries, the manifest with them');
  assert.match(onTty.output, /import: 1\/1 horde \(100 %\)[^\n]*\n/, 'ends on the horde checked, then a newline');
  assert.match(onTty.output, /^dry run: nothing was installed/m);

  const piped = await cli(home, ['bundle', 'import', bundle, '--dry-run']);
  assert.equal(piped.code, 0, outputOf(piped));
  assert.ok(!piped.stderr.includes('\r') && !piped.stderr.includes('import:'), piped.stderr);
});
