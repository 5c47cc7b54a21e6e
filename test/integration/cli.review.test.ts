/** A review step from the CLI, as real processes: `run` parks (exit 3) naming the review, `review` shows it, `review --edit` runs $EDITOR and approves the edit, `approve --hash`, `deny`. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cli, cliSandbox, outputOf, stdoutJson, writeHorde } from '../../testkit/cli.js';

/** A verify step writes its report (report.md); `check` reviews it; `use` copies what it then finds to seen.md. */
function writeReviewed(dir: string): string {
  return writeHorde(dir, 'id = "reviewed"\nconfirm_commands = false\npipeline = ["make", "check", "use"]', {
    make: 'kind = "verify"\nverify_command = "echo made"\noutput = "report.md"',
    check: 'kind = "review"',
    use: 'kind = "verify"\nverify_command = "cp {{workdir}}/report.md {{workdir}}/seen.md"',
  });
}

function runIdOf(stdout: string): string {
  const m = /^read: {4}kowalski review (\S+) --step check$/m.exec(stdout);
  assert.ok(m !== null, stdout);
  return m[1]!;
}

describe('review steps from the CLI', { concurrency: true }, () => {
  it('run parks at the review (exit 3); review shows the artifact and hash; review --edit with $EDITOR approves the edit and the next step reads it', async (t) => {
    const { root, home } = cliSandbox(t);
    const parked = await cli(home, ['run', writeReviewed(path.join(root, 'h'))]);
    assert.equal(parked.code, 3, outputOf(parked));
    const runId = runIdOf(parked.stdout);
    assert.match(parked.stdout, /^step "check" waits for your review of report\.md/m);
    assert.match(parked.stderr, /check waits for review of report\.md$/m);
    const shown = await cli(home, ['review', runId, '--json']);
    assert.equal(shown.code, 0, outputOf(shown));
    const view = stdoutJson<{ step: string; path: string; hash: string; content: string }>(shown);
    assert.deepEqual([view.step, view.path], ['check', 'report.md']);
    assert.match(view.content, /^# Verify: make/m);
    const plain = await cli(home, ['review', runId]);
    assert.ok(plain.stdout.includes(view.content), plain.stdout);
    assert.ok(plain.stdout.includes(`approve: kowalski approve ${runId} --step check --hash ${view.hash}`), plain.stdout);

    const editor = path.join(root, 'editor.sh');
    fs.writeFileSync(editor, '#!/bin/sh\nprintf "checked by hand\\n" >> "$1"\n', { mode: 0o755 });
    const edited = await cli(home, ['review', runId, '--edit'], { env: { EDITOR: editor, VISUAL: '' } });
    assert.equal(edited.code, 0, outputOf(edited));
    assert.match(edited.stderr, /report\.md edited \(sha256 [0-9a-f]{12} → [0-9a-f]{12}\) and approved/);
    assert.match(edited.stdout, /succeeded/);
    const workdir = path.join(home, 'runs', runId, 'output');
    assert.equal(fs.readFileSync(path.join(workdir, 'report.md'), 'utf8'), `${view.content}checked by hand\n`);
    assert.equal(fs.readFileSync(path.join(workdir, 'seen.md'), 'utf8'), `${view.content}checked by hand\n`, 'the step after the review read the edited file');
  });

  it('approve --hash of another view is refused (exit 1, KW_ERR_REVIEW_STALE); a failing editor approves nothing; deny fails the run', async (t) => {
    const { root, home } = cliSandbox(t);
    const parked = await cli(home, ['run', writeReviewed(path.join(root, 'h'))]);
    const runId = runIdOf(parked.stdout);
    const stale = await cli(home, ['approve', runId, '--hash', '0'.repeat(64)]);
    assert.equal(stale.code, 1, outputOf(stale));
    assert.match(stale.stderr, /KW_ERR_REVIEW_STALE/);
    const failing = await cli(home, ['review', runId, '--edit'], { env: { EDITOR: 'false', VISUAL: '' } });
    assert.equal(failing.code, 2, outputOf(failing));
    assert.match(failing.stderr, /the editor \(false\) exited with status 1; nothing was approved/);
    const denied = await cli(home, ['deny', runId, '--reason', 'the report is wrong']);
    assert.equal(denied.code, 1, outputOf(denied));
    assert.match(denied.stdout, /the report is wrong/);
  });
});
