/**
 * Durability of a `send` step, against a fake Slack Web API on 127.0.0.1: SIGKILL after the
 * delivery's intent is committed (nothing sent), after Slack took the message (its result not
 * yet committed), and after the step's work but before its result is committed; restart.
 * Slack never gets the message twice: a delivery recorded as sent is given back to the next
 * attempt (the run succeeds), and one begun whose outcome is not known is not made again
 * (the step fails with KW_ERR_SEND_OUTCOME_UNKNOWN, naming the channel to check).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createEngine } from '../../engine/index.js';
import { tempDir } from '../../testkit/tmp.js';
import { harness } from '../../testkit/crash/support.js';
import { cleanups } from '../../testkit/cleanup.js';
import { writeHorde } from '../support/engine.js';
import { fakeSlackApi } from '../../testkit/fake-chat-apis.js';
import { testOwnCode } from '../../testkit/dist.js';

const TOKEN = 'xoxb-crash-send-token';

const CASES: Array<{ point: string; posts: number; state: 'succeeded' | 'failed' }> = [
  { point: 'send-after-intent:1', posts: 0, state: 'failed' },
  { point: 'send-after-delivery:1', posts: 1, state: 'failed' },
  { point: 'before-result-commit:2', posts: 1, state: 'succeeded' },
];

for (const { point, posts, state } of CASES) {
  test(`kill -9 at ${point} of a send step: Slack gets the message ${posts === 0 ? 'never' : 'once'}, the run ${state === 'succeeded' ? 'succeeds with the first delivery' : 'fails with the outcome unknown'}`, async (t) => {
    const slack = await fakeSlackApi(cleanups(t), TOKEN);
    const home = path.join(tempDir(t, 'kw-crash-send-'), 'home');
    fs.mkdirSync(home, { recursive: true });
    fs.writeFileSync(path.join(home, 'config.toml'), `[adapters.team-slack]\ntype = "slack"\nenabled = true\nsigning_secret = "unused"\nbot_token_env = "KW_TEST_CRASH_SLACK_TOKEN"\napi_url = "${slack.url}"\n`);
    const env = { KW_TEST_CRASH_SLACK_TOKEN: TOKEN };
    const horde = path.join(home, 'hordes', 'told');
    writeHorde(horde, 'id = "told"\npipeline = ["check", "tell"]\nconfirm_commands = false', {
      check: 'kind = "verify"\nverify_command = "echo all green"',
      tell: 'kind = "send"\ncontext_paths = ["@step:check@"]\nadapter = "team-slack"\nto = "#ops"',
    });
    const first = await harness(home, ['start', horde, '1'], { env: { ...env, KOWALSKI_CRASH_AT: point } });
    assert.equal(first.signal, 'SIGKILL', `killed where asked (exit ${first.code}): ${first.stderr}\n${first.lines.join('\n')}`);
    const runId = first.lines.find((l) => l.startsWith('ACK '))!.slice(4);
    const second = await harness(home, ['resume'], { env });
    assert.equal(second.code, 0, `${second.stderr}\n${second.lines.join('\n')}`);
    assert.ok(second.lines.includes(`DONE ${runId} ${state}`), second.lines.join('\n'));
    assert.equal(slack.callsTo('/chat.postMessage').length, posts, 'never sent twice');

    const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
    cleanups(t)(() => engine.close());
    const run = engine.getRun(runId);
    const tell = run.steps.find((s) => s.name === 'tell')!;
    if (state === 'succeeded') {
      const check = fs.readFileSync(path.join(run.workdir, run.steps.find((s) => s.name === 'check')!.artifact!), 'utf8');
      assert.equal(slack.callsTo('/chat.postMessage')[0]!.body.text, check);
      assert.match(fs.readFileSync(path.join(run.workdir, 'tell.md'), 'utf8'), /sent by an earlier attempt of this step, before an interruption; it was not sent again/);
    } else {
      assert.equal(tell.error?.code, 'KW_ERR_SEND_OUTCOME_UNKNOWN', JSON.stringify(tell));
      assert.match(tell.error?.message ?? '', /began sending through the adapter "team-slack" to #ops, but whether it arrived is not known \(kowalski stopped while it was being sent\); it is not sent again: check #ops/);
    }
  });
}
