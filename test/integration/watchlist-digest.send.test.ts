/**
 * The built-in watchlist-digest horde's `send` step end to end: the digest the fake model
 * wrote, sent through a configured Slack adapter (a fake Slack Web API on 127.0.0.1) or
 * email adapter (an SMTP server on 127.0.0.1), the message each received checked against
 * the digest; off when `send_via` is empty; refused with its code when the adapter is not
 * configured, sends nothing, is switched off, or the service refuses; and, in an imported
 * horde, only after the operator approved the adapter and recipient shown.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { IMPORT_MARKER } from '../../engine/horde/catalog.js';
import { cleanups } from '../../testkit/cleanup.js';
import { fakeSlackApi } from '../../testkit/fake-chat-apis.js';
import type { FakeChatApi } from '../../testkit/fake-chat-apis.js';
import { startSmtp } from '../support/mail-servers.js';
import type { FakeSmtp } from '../support/mail-servers.js';
import { DIGEST, digestSetup, runDigest, stepOf } from '../support/watchlist-digest.js';
import type { DigestSetup } from '../support/watchlist-digest.js';

const BUILTIN = fileURLToPath(new URL('../../hordes/watchlist-digest/', import.meta.url));
const TOKEN = 'xoxb-digest-test-token';
const TOKEN_ENV = 'KW_TEST_DIGEST_SLACK_TOKEN';
const OWN = 'digests@example.com';

interface Setup extends DigestSetup {
  slack: FakeChatApi;
  smtp: FakeSmtp;
}

/** The digest's engine with a Slack adapter (a fake Slack Web API), an email adapter (an SMTP server) and a webhook adapter. */
async function setup(t: TestContext, options: { slackEnabled?: boolean } = {}): Promise<Setup> {
  const slack = await fakeSlackApi(cleanups(t), TOKEN);
  const smtp = await startSmtp(t);
  process.env[TOKEN_ENV] = TOKEN;
  cleanups(t)(() => delete process.env[TOKEN_ENV]);
  // An embedded engine, as `kowalski run` without the server: no adapter is started, and a send still goes.
  const s = await digestSetup(t, {
    config: () => `[adapters.team-slack]
type = "slack"
enabled = ${options.slackEnabled ?? true}
signing_secret = "not-used-for-sending"
bot_token_env = "${TOKEN_ENV}"
api_url = "${slack.url}"

[adapters.mail]
type = "email"
enabled = true
address = "${OWN}"
imap = { host = "127.0.0.1", port = 1, secure = false, user = "nobody", password = "not-used-for-sending" }
smtp = { host = "127.0.0.1", port = ${smtp.port}, secure = false }

[adapters.hook]
type = "webhook"
enabled = true
secret = "a-webhook-secret-for-tests"
`,
  });
  return { ...s, slack, smtp };
}

/** A run of the horde with the fixtures' watchlist and closes, and `extra` answers. */
function run(s: Setup, extra: Record<string, string>, hordeId = 'watchlist-digest'): ReturnType<typeof runDigest> {
  return runDigest(s, { watchlist: s.watchlist, prices: s.prices, ...extra }, hordeId);
}

const sendStep = (s: Setup, runId: string) => stepOf(s, runId, 'send');

test('watchlist-digest sends the digest through a Slack adapter to the channel named, once; the note is written too', async (t) => {
  const s = await setup(t);
  const { runId, state, workdir } = await run(s, { send_via: 'team-slack', send_to: '#trading' });
  assert.equal(state, 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));
  const digest = fs.readFileSync(path.join(workdir, 'digest.md'), 'utf8');
  assert.equal(digest.trim(), DIGEST.trim());
  const posts = s.slack.callsTo('/chat.postMessage');
  assert.equal(posts.length, 1);
  assert.equal(posts[0]!.headers.authorization, `Bearer ${TOKEN}`);
  assert.equal(posts[0]!.body.channel, '#trading');
  assert.equal(posts[0]!.body.thread_ts, undefined, 'a new message, not a reply in a thread');
  assert.equal(posts[0]!.body.text, digest, 'the digest word for word');
  assert.equal(s.slack.callsTo('/auth.test').length, 0, 'sending needs no started adapter');
  assert.equal(s.smtp.sent.length, 0);
  assert.match(sendStep(s, runId)?.summary ?? '', /^sent through team-slack to #trading$/);
  const report = fs.readFileSync(path.join(workdir, 'send.md'), 'utf8');
  assert.match(report, /through the adapter `team-slack` to `#trading` \(message `1800000000\.000001`\)/);
  const day = new Date(s.engine.getRun(runId).run.createdAt).toISOString().slice(0, 10);
  assert.equal(s.engine.vault.read(`digests/watchlist-${day}.md`).content, digest);
  // Sending leaves the adapter's status with its activity.
  assert.ok(s.engine.adapters.status('team-slack').lastActivityAt !== null);
});

test('watchlist-digest sends the digest as a mail through an email adapter, subject with the run\'s day, a Message-ID made from the run and step', async (t) => {
  const s = await setup(t);
  const { runId, state, workdir } = await run(s, { send_via: 'mail', send_to: 'ann@example.org' });
  assert.equal(state, 'succeeded', JSON.stringify(s.engine.getRun(runId).steps));
  assert.equal(s.smtp.sent.length, 1);
  const mail = s.smtp.sent[0]!;
  const day = new Date(s.engine.getRun(runId).run.createdAt).toISOString().slice(0, 10);
  assert.equal(mail.from?.text, OWN);
  assert.equal((Array.isArray(mail.to) ? mail.to[0] : mail.to)?.text, 'ann@example.org');
  assert.equal(mail.subject, `Watchlist digest ${day}`);
  assert.equal(mail.headers.get('auto-submitted'), 'auto-generated');
  assert.match(mail.messageId ?? '', /^<kowalski-send\.[0-9a-f]{32}@example\.com>$/);
  assert.equal(mail.text?.trim(), fs.readFileSync(path.join(workdir, 'digest.md'), 'utf8').trim());
  assert.equal(s.slack.calls.length, 0);
});

test('watchlist-digest with send_via left empty sends nothing, and says so', async (t) => {
  const s = await setup(t);
  const { runId, state, workdir } = await run(s, {});
  assert.equal(state, 'succeeded');
  assert.equal(sendStep(s, runId)?.summary, 'not sent: no adapter given');
  assert.match(fs.readFileSync(path.join(workdir, 'send.md'), 'utf8'), /Nothing was sent/);
  assert.equal(s.slack.calls.length + s.smtp.sent.length, 0);
});

test('a send through an adapter that is not configured, sends nothing, is switched off, or refuses: the step fails with its code, nothing is sent', async (t) => {
  const s = await setup(t, { slackEnabled: false });
  const cases: Array<[Record<string, string>, string, RegExp]> = [
    [{ send_via: 'nope', send_to: '#x' }, 'KW_ERR_ADAPTER_NOT_FOUND', /no adapter "nope" is configured; configured: team-slack, mail, hook/],
    [{ send_via: 'hook', send_to: '#x' }, 'KW_ERR_ADAPTER_NO_OUTBOUND', /the adapter "hook" is of type webhook, which sends nothing of its own/],
    [{ send_via: 'team-slack', send_to: '#x' }, 'KW_ERR_ADAPTER_DISABLED', /the adapter "team-slack" is switched off/],
    [{ send_via: 'mail', send_to: 'not an address' }, 'KW_ERR_SEND_REFUSED', /email to not an address: "not an address" is not one mail address/],
    [{ send_via: 'mail' }, 'KW_ERR_INPUT_INVALID', /has no recipient/],
  ];
  for (const [extra, code, message] of cases) {
    const { runId, state } = await run(s, extra);
    assert.equal(state, 'failed', JSON.stringify(extra));
    const step = sendStep(s, runId);
    assert.equal(step?.error?.code, code, JSON.stringify(step));
    assert.match(step?.error?.message ?? '', message);
  }
  // The mail server refuses the mail (451 after the body): a refusal, nothing delivered.
  s.smtp.refuseNext(1);
  const refused = await run(s, { send_via: 'mail', send_to: 'ann@example.org' });
  assert.equal(refused.state, 'failed');
  assert.equal(sendStep(s, refused.runId)?.error?.code, 'KW_ERR_SEND_REFUSED');
  assert.match(sendStep(s, refused.runId)?.error?.message ?? '', /email to ann@example\.org: SMTP 127\.0\.0\.1:\d+: .*try again later/);
  assert.equal(s.slack.calls.length + s.smtp.sent.length, 0);
  await s.engine.adapters.enable('team-slack', 'test');
  s.slack.script('/chat.postMessage', [{ status: 200, body: { ok: false, error: 'channel_not_found' } }]);
  const slackRefused = await run(s, { send_via: 'team-slack', send_to: '#nowhere' });
  assert.equal(slackRefused.state, 'failed');
  assert.equal(sendStep(s, slackRefused.runId)?.error?.code, 'KW_ERR_SEND_REFUSED');
  assert.match(sendStep(s, slackRefused.runId)?.error?.message ?? '', /Slack chat\.postMessage refused: channel_not_found \(the app cannot see that channel\)/);
});

test('an imported horde\'s send waits for the operator\'s approval, which shows the adapter and the recipient; approved, it sends once', async (t) => {
  const s = await setup(t);
  const folder = path.join(s.home, 'hordes', 'watchlist-digest-imported');
  fs.cpSync(BUILTIN, folder, { recursive: true });
  const hordeMd = path.join(folder, 'horde.md');
  fs.writeFileSync(hordeMd, fs.readFileSync(hordeMd, 'utf8').replace('id = "watchlist-digest"', 'id = "watchlist-digest-imported"'));
  fs.writeFileSync(path.join(folder, IMPORT_MARKER), '{}');
  const { runId, state } = await run(s, { send_via: 'team-slack', send_to: '#trading' }, 'watchlist-digest-imported');
  assert.equal(state, 'awaiting_input');
  const view = s.engine.getRun(runId);
  assert.deepEqual(view.pending.map((a) => a.step), ['send'], 'the prices step, its tool left empty, calls nothing and asks nothing');
  assert.match(JSON.stringify(view.pending[0]), /kowalski-send.*adapter=team-slack.*to=#trading.*reads=@step:digest@/);
  assert.equal(s.slack.calls.length, 0, 'nothing is sent before the approval');
  await s.engine.approve(runId);
  assert.equal(await s.engine.waitForRun(runId), 'succeeded');
  assert.equal(s.slack.callsTo('/chat.postMessage').length, 1);
});
