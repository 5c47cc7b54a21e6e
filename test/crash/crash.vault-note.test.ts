/**
 * Durability of a `vault_note` step: SIGKILL after the vault write's intent, after the note
 * is in place, and after the step's work but before its result is committed; restart. The
 * run succeeds, the note holds what the step read exactly once, and the audit has one write,
 * done, by the run: the attempt after the kill found the first attempt's write by its key.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createEngine } from '../../engine/index.js';
import { tempDir } from '../../testkit/tmp.js';
import { harness } from '../../testkit/crash/support.js';
import { writeHorde } from '../support/engine.js';
import { testOwnCode } from '../../testkit/dist.js';

const NOTE = 'logs/checks.md';

for (const point of ['vault-after-intent:1', 'vault-after-file:1', 'before-result-commit:2']) {
  test(`kill -9 at ${point} of a vault_note step: the note is written once, one audited write by the run`, async (t) => {
    const home = path.join(tempDir(t, 'kw-crash-note-'), 'home');
    const horde = path.join(home, 'hordes', 'logged');
    writeHorde(horde, 'id = "logged"\npipeline = ["check", "file"]\nconfirm_commands = false', {
      check: 'kind = "verify"\nverify_command = "echo checked"',
      file: `kind = "vault_note"\ncontext_paths = ["@step:check@"]\nnote = "${NOTE}"\nnote_mode = "append"`,
    });
    const first = await harness(home, ['start', horde, '1'], { env: { KOWALSKI_CRASH_AT: point } });
    assert.equal(first.signal, 'SIGKILL', `killed where asked (exit ${first.code}): ${first.stderr}\n${first.lines.join('\n')}`);
    const runId = first.lines.find((l) => l.startsWith('ACK '))!.slice(4);
    const second = await harness(home, ['resume']);
    assert.equal(second.code, 0, `${second.stderr}\n${second.lines.join('\n')}`);
    assert.ok(second.lines.includes(`DONE ${runId} succeeded`), second.lines.join('\n'));

    const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
    try {
      const run = engine.getRun(runId);
      const check = fs.readFileSync(path.join(run.workdir, run.steps.find((s) => s.name === 'check')!.artifact!), 'utf8');
      assert.equal(engine.vault.read(NOTE).content, check, 'the note holds what the step read, once');
      assert.deepEqual(engine.vault.writes({ limit: 10 }).map((w) => [w.op, w.path, w.state, w.by]), [['create', NOTE, 'done', `run:${runId}`]]);
    } finally {
      await engine.close();
    }
  });
}
