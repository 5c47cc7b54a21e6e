/**
 * A Slack message acknowledged and then the server SIGKILLed before its answer was posted:
 * after the restart the turn goes on from its log and the answer is posted once, in its
 * thread; Slack's retry of the same event after the restart starts nothing. The ledger of
 * posts is the fake Slack API's, outside the server.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cleanups } from '../../testkit/cleanup.js';
import type { RunningCli } from '../../testkit/cli.js';
import { fakeSlackApi, slackSigned } from '../../testkit/fake-chat-apis.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { waitFor } from '../../testkit/wait.js';
import { serveWithAdapter } from '../support/adapters.js';

const SECRET = 'crash-test-signing-secret';
const TOKEN = 'xoxb-crash-test';

test('SIGKILL after a Slack event is acknowledged and before its reply: after the restart the reply is sent once', async (t) => {
  const home = tempDir(t, 'kw-slack-crash-');
  // The first model call never answers (the server dies during it); the turn asks again after the restart.
  const model = await startFakeOllama((_body, i) => (i === 0 ? { hang: true } : { text: 'Filed under invoices.' }));
  cleanups(t)(() => model.close());
  const slack = await fakeSlackApi(cleanups(t), TOKEN);
  fs.writeFileSync(path.join(home, 'config.toml'), [
    '[model]', 'default = "ollama:qwen2.5:7b"', '[providers.ollama]', `host = "${model.url}"`,
    '[adapters.slack]', 'enabled = true', `signing_secret = "${SECRET}"`, 'bot_token_env = "KW_TEST_SLACK_TOKEN"', `api_url = "${slack.url}"`, '',
  ].join('\n'));
  const serve = (): Promise<{ server: RunningCli; url: string }> => serveWithAdapter(t, home, 'slack', { KW_TEST_SLACK_TOKEN: TOKEN });
  const body = JSON.stringify({
    type: 'event_callback', event_id: 'EvCRASH', team_id: 'T1',
    event: { type: 'message', channel_type: 'im', user: 'U2', channel: 'D7', ts: '1800000000.000300', text: 'file this invoice' },
  });
  const deliver = (extra: Record<string, string> = {}): Promise<Response> =>
    fetch(`${current.url}/adapters/slack/events`, { method: 'POST', headers: slackSigned(SECRET, body, Math.floor(Date.now() / 1000), extra), body });

  let current = await serve();
  const acked = await deliver();
  assert.equal(acked.status, 200);
  assert.equal(((await acked.json()) as { duplicate: boolean }).duplicate, false);
  await waitFor(() => model.requests.length === 1, 'the turn to call the model');
  current.server.child.kill('SIGKILL');
  await current.server.exited;
  assert.equal(slack.callsTo('/chat.postMessage').length, 0, 'nothing was posted before the kill');

  current = await serve();
  await waitFor(() => slack.callsTo('/chat.postMessage').length >= 1, 'the answer posted after the restart', 60_000);
  const retry = await deliver({ 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' });
  assert.equal(((await retry.json()) as { duplicate: boolean }).duplicate, true);
  current.server.child.kill('SIGTERM');
  await current.server.exited;

  const posts = slack.callsTo('/chat.postMessage');
  assert.equal(posts.length, 1, 'posted once');
  assert.deepEqual(posts[0]!.body, { channel: 'D7', thread_ts: '1800000000.000300', text: 'Filed under invoices.', unfurl_links: false });
  assert.equal(model.requests.length, 2, 'the model call cut by the kill was asked again, once');
});
