/**
 * The plugin adapter crash tests' world: the example plugin's `relay` adapter in a data
 * folder, served by testkit/crash/adapter-child.ts (a process per life, SIGKILLed at a named
 * crash point or at random), a sender that POSTs signed messages to its route, and two
 * ledgers kept in the test's process, which outlives every kill:
 * - the fake model's requests, each answer stamped (its input token count: the n-th request
 *   gets n), so the chat log tells which answer the engine recorded for each call;
 * - the fake relay's posts: the replies the plugin's `send` delivered.
 * `checkRelay` holds them against the database after the last life.
 */
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import Database from 'better-sqlite3';
import { createEngine } from '../../engine/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { startCli } from '../../testkit/cli.js';
import type { CliResult, RunningCli } from '../../testkit/cli.js';
import { nodeArgsFor, testOwnCode } from '../../testkit/dist.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { lastUserText } from './adapters.js';
import { serveHttp } from './http.js';
import { editManifest, installExample } from './plugin-home.js';

const CHILD = new URL('../../testkit/crash/adapter-child.ts', import.meta.url).pathname;
const SECRET = 'relay-crash-secret';

export interface RelayMessage { id: string; text: string; conversation: string }

/** One life of the server. */
export interface Life {
  n: number;
  cli: RunningCli;
  origin: string;
}

export type Delivered = { status: number; json: any } | 'cut';

export interface RelayWorld {
  home: string;
  model: FakeModelServer;
  /** The model's requests in order: the n-th is stamp n; `key` is its messages (the same call asked again has the same key). */
  asked: Array<{ stamp: number; key: string; life: number }>;
  /** What the plugin posted to the relay, and in which life. */
  replies: Array<{ inReplyTo: string; conversation: string; text: string; life: number }>;
  /** Lives that ended by SIGKILL. */
  killed: Set<number>;
  /** Start the next life (`crashAt`: KOWALSKI_CRASH_AT); resolves once its adapter runs. */
  start(crashAt?: string): Promise<Life>;
  /** The life's end: SIGKILLed (recorded as killed) or exited. */
  ended(life: Life): Promise<CliResult>;
  /** POST a message, signed, to the relay route of `life`: its answer, or `cut` when the server died first. */
  deliver(life: Life, m: RelayMessage): Promise<Delivered>;
}

/** `paceMs`: the delay between the streamed pieces of each answer (so a random kill lands mid-call too). */
export async function relayWorld(t: TestContext, paceMs = 0): Promise<RelayWorld> {
  let life = 0;
  const asked: RelayWorld['asked'] = [];
  const replies: RelayWorld['replies'] = [];
  const killed = new Set<number>();
  const model = await startFakeOllama((body) => {
    asked.push({ stamp: asked.length + 1, key: JSON.stringify(body?.messages), life });
    return { text: `echo: ${lastUserText(body).split('\n').at(-1) ?? ''}`, usage: { input: asked.length, output: 1 }, ...(paceMs > 0 ? { chunkDelayMs: paceMs } : {}) };
  });
  cleanups(t)(() => model.close());
  const relay = await serveHttp(t, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      replies.push({ ...(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { inReplyTo: string; conversation: string; text: string }), life });
      res.writeHead(204).end();
    });
  });

  const home = tempDir(t, 'kw-relay-crash-');
  const manifest = installExample(home, fs.realpathSync(tempDir(t, 'kw-relay-docs-')));
  editManifest(manifest, '[permissions]', '[permissions]\nnet = ["127.0.0.1"]');
  fs.writeFileSync(path.join(home, 'config.toml'), [
    '[model]', 'default = "ollama:qwen2.5:7b"', '[providers.ollama]', `host = "${model.url}"`,
    '[adapters.relay]', 'type = "plugin"', 'plugin = "hello"', 'adapter = "relay"', 'enabled = true', 'agent = "assistant"',
    `secret = "${SECRET}"`, `reply_url = "${relay.origin}/answers"`, '',
  ].join('\n'));
  const setup = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  setup.plugins.grant('hello', 'ann (test)');
  await setup.close();

  const exits = new Map<number, Promise<CliResult>>();
  return {
    home, model, asked, replies, killed,
    async start(crashAt) {
      life += 1;
      const n = life;
      const cli = startCli(home, [home], {
        command: [process.execPath, ...nodeArgsFor(CHILD)],
        limitMs: 180_000,
        env: { KOWALSKI_TEST_FETCH_ALLOW: relay.allow, ...(crashAt === undefined ? {} : { KOWALSKI_CRASH_AT: crashAt }) },
      });
      exits.set(n, cli.exited.then((r) => {
        if (r.signal === 'SIGKILL') killed.add(n);
        return r;
      }));
      cleanups(t)(async () => {
        if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
        await cli.exited.catch(() => undefined);
      });
      const origin = /^LISTENING (\S+)/.exec(await cli.stderrLine(/^LISTENING /))![1]!;
      return { n, cli, origin };
    },
    ended: (l) => exits.get(l.n)!,
    async deliver(l, m) {
      const body = JSON.stringify(m);
      const ts = String(Math.floor(Date.now() / 1000));
      const signature = createHmac('sha256', SECRET).update(`${ts}.${body}`).digest('hex');
      try {
        const res = await fetch(`${l.origin}/adapters/plugin/relay`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-relay-timestamp': ts, 'x-relay-signature': signature } });
        return { status: res.status, json: await res.json() };
      } catch {
        return 'cut';
      }
    },
  };
}

export interface RelayCheck {
  problems: string[];
  /** Model calls the engine recorded (one per message). */
  recordedCalls: number;
  /** Requests of a call asked again because the life that asked it was killed before its answer was recorded. */
  askedAgain: number;
  /** Replies the relay got again because the life that sent one was killed before it was recorded. */
  sentAgain: number;
}

/**
 * After the last life: each message recorded once, `replied` with its echo, one session per
 * conversation; each model call recorded once and never asked after its answer was recorded
 * (a call asked again only after a kill of the life that asked it); each reply delivered, and
 * delivered again only after a kill of the life that sent it (at least once, never lost).
 */
export async function checkRelay(world: RelayWorld, messages: RelayMessage[]): Promise<RelayCheck> {
  const problems: string[] = [];
  const out: RelayCheck = { problems, recordedCalls: 0, askedAgain: 0, sentAgain: 0 };
  const db = new Database(path.join(world.home, 'kowalski.sqlite'), { readonly: true });
  const rows = db.prepare("SELECT delivery_id, conversation, state, answer, session_id FROM adapter_messages WHERE adapter = 'relay'").all() as Array<{ delivery_id: string; conversation: string; state: string; answer: string | null; session_id: string | null }>;
  db.close();
  for (const m of messages) {
    const mine = rows.filter((r) => r.delivery_id === m.id);
    if (mine.length !== 1) problems.push(`${m.id} is recorded ${mine.length} times`);
    const row = mine[0];
    if (row !== undefined && (row.state !== 'replied' || row.answer !== `echo: ${m.text}`)) problems.push(`${m.id} is ${row.state} with ${JSON.stringify(row.answer)}, not replied with "echo: ${m.text}"`);
    const sent = world.replies.filter((r) => r.inReplyTo === m.id);
    if (sent.length === 0) problems.push(`${m.id}: no reply reached the relay`);
    for (const r of sent) if (r.text !== `echo: ${m.text}` || r.conversation !== m.conversation) problems.push(`${m.id}: the relay got ${JSON.stringify(r)}`);
    // Every send but the last came from a life killed before it recorded that send.
    for (const r of sent.slice(0, -1)) {
      out.sentAgain += 1;
      if (!world.killed.has(r.life)) problems.push(`${m.id}: sent again though life ${r.life}, which sent it, was not killed`);
    }
  }
  if (rows.length !== messages.length) problems.push(`${rows.length} records for ${messages.length} messages`);
  const conversations = new Set(messages.map((m) => m.conversation));
  for (const c of conversations) {
    const sessions = new Set(rows.filter((r) => r.conversation === c).map((r) => r.session_id));
    if (sessions.size !== 1) problems.push(`conversation ${c} went to ${sessions.size} sessions`);
  }

  // The answers the engine recorded, by stamp.
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: world.home });
  const recorded = new Set<number>();
  try {
    for (const s of engine.chat.list(1000).filter((x) => x.title.startsWith('relay: '))) {
      for (const { event: e } of engine.chat.events(s.id)) if (e.type === 'model.finished') recorded.add(e.response.usage.inputTokens);
    }
  } finally {
    await engine.close();
  }
  out.recordedCalls = recorded.size;
  if (recorded.size !== messages.length) problems.push(`${recorded.size} model calls recorded for ${messages.length} messages`);
  for (const a of world.asked) {
    const answered = world.asked.find((b) => b.key === a.key && recorded.has(b.stamp));
    if (answered === undefined) problems.push(`request ${a.stamp} (life ${a.life}): its call was never recorded`);
    else if (a.stamp > answered.stamp) problems.push(`request ${a.stamp} (life ${a.life}) asked again after its answer (request ${answered.stamp}) was recorded`);
    else if (a.stamp < answered.stamp) {
      out.askedAgain += 1;
      if (!world.killed.has(a.life)) problems.push(`request ${a.stamp} was asked again though life ${a.life}, which asked it, was not killed`);
    }
  }
  return out;
}
