/**
 * The chat side of the nodes kill test (pg-nodes-kills.ts, issue 40): while runs go through
 * three `kowalski serve` nodes on one Postgres store and nodes are SIGKILLed, clients chat
 * through the nodes' API and Slack sends events to them.
 *
 * - Chat sessions (`POST /api/chat/sessions`, then each turn's message) with the team of
 *   chat-ledger.ts: topic `team` delegates to alpha (reads a file) and beta (the ledger MCP
 *   tool, not safe to repeat); topic `vault` delegates to alpha and scribe (creates a vault
 *   note). A client whose node does not answer asks another node what was recorded before
 *   it sends again; it waits for each turn's end before the next.
 * - Slack events (signed as Slack signs them), one DM each with a `vault` message to boss,
 *   delivered to one node and, when it does not answer, again (as Slack's retry) to another.
 * - Every life of a node has its own fake model server, so the model ledger (outside the
 *   engine) knows which life asked each call; the lives killed or stopped by the fence are
 *   the only ones whose calls may be asked again.
 *
 * After the last run, `check` reads the store through an engine of its own: the invariants of
 * chat-support.ts (every turn done with its answer, no answered model call asked again, one
 * trace per call with its delegation parent, the ledger tool and each vault note written
 * once), and the fake Slack's ledger: each event answered in its thread, by one post, or by
 * one more only when a node died after the post before it (a reply is at least once: a node
 * killed between a successful send and its record sends it again, docs/adapters.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeTeam } from '../chat.js';
import { fakeSlackApi, slackSigned } from '../fake-chat-apis.js';
import type { FakeChatApi } from '../fake-chat-apis.js';
import { startFakeOllama } from '../fake-models.js';
import type { FakeModelServer } from '../fake-models.js';
import { answerOf, CALLS_PER_TURN, ModelLedger, team, vaultAnswer } from './chat-ledger.js';
import { checkChat } from './chat-support.js';
import type { ChatCheck, Chatting } from './chat-support.js';
import { call } from './pg-nodes.js';
import type { Answer, NodeSlot } from './pg-nodes.js';

export interface NodesChatOptions {
  /** Chat sessions of each topic (`team`, `vault`), started through the nodes in turn. */
  sessions: number;
  /** Turns per session. */
  turns: number;
  /** Slack events (each a DM whose message boss answers with the `vault` topic). */
  slack: number;
  /** Delay between an answer's streamed pieces, ms (so that kills land mid-answer too; default 20). */
  paceMs?: number;
}

export interface NodesChatResult extends ChatCheck {
  /** Model requests in all (every life). */
  requests: number;
  /** Chat turns held by a node when it was killed (their lease then passed on). */
  turnsCut: number;
  /** `duplicates`: posts after the first of an event, each after a node died (the at-least-once window). */
  slack: { events: number; posts: number; redelivered: number; duplicates: number };
}

const SLACK_SECRET = 'nodes-kill-test-signing-secret';
const SLACK_TOKEN = 'xoxb-nodes-kill-test';
const TOPICS = ['team', 'vault'] as const;

/** What the driver gives the chat clients. */
export interface ChatDriving {
  slots: NodeSlot[];
  /** Resolves when `condition()` holds (the driver's deadline bounds it). */
  until(condition: () => boolean, what: string): Promise<void>;
  /** Kills whose node listens again: wave `w` starts once this is `w`. */
  restarted(): number;
  waves: number;
  problems: string[];
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const nodeAnswered = (a: Answer | undefined): a is Answer => a !== undefined && (a.body.error as { code?: string } | undefined)?.code !== 'KW_ERR_STORE_FENCED';

export class NodesChat {
  readonly ledger: ModelLedger;
  private readonly models: FakeModelServer[] = [];
  private readonly closers: Array<() => unknown> = [];
  private slackApi?: FakeChatApi;
  /** Node id → its life number (the ledger's `life`). */
  private readonly lives = new Map<string, number>();
  /** Lives begun so far (numbered before any await: slots start together). */
  private livesBegun = 0;
  /** The life each slot is starting. */
  private readonly starting = new Map<NodeSlot, number>();
  private turnsCut = 0;
  /** When each killed or fenced node was known dead (Date.now()). */
  private readonly ends: number[] = [];
  private redelivered = 0;
  private readonly files: string;
  private readonly toolLedger: string;

  constructor(private readonly o: NodesChatOptions, dir: string) {
    const pace = o.paceMs ?? 20;
    this.ledger = new ModelLedger(() => pace);
    this.files = path.join(dir, 'chat-files');
    this.toolLedger = path.join(dir, 'tool-ledger');
  }

  /** The fake Slack, the files alpha reads, and the team in every node's data folder. */
  async setUp(slots: readonly NodeSlot[]): Promise<void> {
    this.slackApi = await fakeSlackApi((fn) => void this.closers.push(fn), SLACK_TOKEN);
    fs.mkdirSync(this.files, { recursive: true });
    fs.writeFileSync(path.join(this.files, 'a.txt'), '1');
    for (const slot of slots) writeTeam(slot.home, team(CALLS_PER_TURN.vault!));
  }

  /** The environment every node starts with (the Slack bot token). */
  readonly env = { KW_TEST_SLACK_TOKEN: SLACK_TOKEN };

  /** Before a node's next life: a fake model of its own, and the config naming it (appended to the run side's `base`). */
  async beforeStart(slot: NodeSlot, base: string): Promise<void> {
    const life = ++this.livesBegun;
    this.starting.set(slot, life);
    const server = await startFakeOllama((body) => {
      this.ledger.life = life;
      return this.ledger.script(body);
    });
    this.models[life - 1] = server;
    fs.writeFileSync(path.join(slot.home, 'config.toml'), `${base}[model]
default = "ollama:qwen2.5:7b"
[providers.ollama]
host = "${server.url}"
[tools]
root = ${JSON.stringify(this.files)}
[[mcp.servers]]
name = "ledger"
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(new URL('./ledger.mjs', import.meta.url).pathname)}]
env = { LEDGER_FILE = ${JSON.stringify(this.toolLedger)} }
[adapters.slack]
enabled = true
agent = "boss"
signing_secret = "${SLACK_SECRET}"
bot_token_env = "KW_TEST_SLACK_TOKEN"
api_url = "${this.slackApi!.url}"
`);
  }

  /** The node of a life that just started (its id as the store knows it). */
  started(slot: NodeSlot): void {
    this.lives.set(slot.up!.nodeId, this.starting.get(slot)!);
  }

  /** A node that was killed, or whose engine the fence stopped: its calls may be asked again. `heldTurns`: the chat turns it held. */
  ended(nodeId: string, heldTurns: number): void {
    const life = this.lives.get(nodeId);
    if (life !== undefined) this.ledger.killed.add(life);
    this.turnsCut += heldTurns;
    this.ends.push(Date.now());
  }

  /** The chat clients and Slack: resolves once every session has all its turns ended and every event was taken by a node. */
  async drive(d: ChatDriving): Promise<void> {
    const items = [
      ...TOPICS.flatMap((topic) => Array.from({ length: this.o.sessions }, (_, i) => () => this.session(d, `${topic} ${i}`, i))),
      ...Array.from({ length: this.o.slack }, (_, j) => () => this.deliver(d, j)),
    ];
    // Mixed (a fixed stride through the list, so every wave gets each kind of work), then spread over the waves in that order.
    const sorted = items.map((run, k) => ({ run, key: (k * 7) % items.length })).sort((a, b) => a.key - b.key)
      .map(({ run }, at) => ({ run, wave: Math.floor((at * d.waves) / items.length) }));
    let next = 0;
    const client = async (): Promise<void> => {
      for (let k = next++; k < sorted.length; k = next++) {
        await d.until(() => d.restarted() >= sorted[k]!.wave, `chat wave ${sorted[k]!.wave}`);
        await sorted[k]!.run();
      }
    };
    await Promise.all([client(), client(), client()]);
  }

  /** Every answer posted (bounded by the driver's deadline). */
  async posted(d: ChatDriving): Promise<void> {
    await d.until(() => this.slackApi!.callsTo('/chat.postMessage').length >= this.o.slack, `${this.o.slack} Slack replies posted`);
  }

  /** One request through the nodes from `first` on, until one answers (a node down or stopped passes it on). */
  private async anyNode(d: ChatDriving, first: number, method: string, route: string, body?: unknown): Promise<Answer> {
    for (let k = first; ; k++) {
      const slot = d.slots[k % d.slots.length]!;
      const a = await call(slot, method, route, body);
      if (nodeAnswered(a)) return a;
      if (k % d.slots.length === d.slots.length - 1) await pause(100);
    }
  }

  /** A session titled `title`, created through node `index` (or the next that answers; one already recorded is found, not made twice), and its turns. */
  private async session(d: ChatDriving, title: string, index: number): Promise<void> {
    let id: string | undefined;
    for (let k = index; id === undefined; k++) {
      const a = await call(d.slots[k % d.slots.length]!, 'POST', '/api/chat/sessions', { agent: 'boss', title });
      if (nodeAnswered(a) && a.status === 201) id = a.body.id as string;
      else if (nodeAnswered(a)) {
        d.problems.push(`create session ${title}: ${a.status} ${JSON.stringify(a.body)}`);
        return;
      } else {
        // No answer: it may have been recorded. Another node says.
        const list = await this.anyNode(d, k + 1, 'GET', '/api/chat/sessions?limit=500');
        id = (list.body.sessions as Array<{ id: string; title: string }>).find((s) => s.title === title)?.id;
        if (id === undefined) await pause(100);
      }
    }
    for (let turn = 1; turn <= this.o.turns; turn++) {
      await this.turn(d, id, title, turn, index + turn);
    }
  }

  /** Send turn `turn` (once, whatever node answers or dies) and wait for its end. */
  private async turn(d: ChatDriving, id: string, title: string, turn: number, first: number): Promise<void> {
    const text = `${title} turn ${turn}`;
    const view = async (k: number): Promise<{ state: string; turns: number; transcript: Array<{ turn: number; text: string }> }> =>
      (await this.anyNode(d, k, 'GET', `/api/chat/sessions/${id}`)).body as never;
    for (let k = first; ;) {
      const a = await call(d.slots[k % d.slots.length]!, 'POST', `/api/chat/sessions/${id}/messages`, { text });
      if (nodeAnswered(a) && a.status === 202) break;
      const busy = nodeAnswered(a) && a.status === 409 && (a.body.error as { code?: string }).code === 'KW_ERR_CHAT_BUSY';
      if (nodeAnswered(a) && !busy) {
        d.problems.push(`${text}: ${a.status} ${JSON.stringify(a.body)}`);
        return;
      }
      // No answer (the node died or stopped): another node says whether the message was recorded.
      if (!busy && (await view(k + 1)).transcript.some((t) => t.turn === turn && t.text === text)) break;
      k++;
      await pause(busy ? 200 : 50);
    }
    for (let k = first; ; k++) {
      const v = await view(k);
      if (v.turns >= turn && v.state !== 'running') return;
      await pause(100);
    }
  }

  /** Slack event `j`: a DM to boss, to node j and, while unanswered, again to the next (Slack's retry). */
  private async deliver(d: ChatDriving, j: number): Promise<void> {
    const body = JSON.stringify({
      token: 'legacy', team_id: 'T1', api_app_id: 'A1', type: 'event_callback', event_id: `EvNodes${j}`, event_time: 1_800_000_000,
      event: { type: 'message', channel_type: 'im', user: 'U2', channel: `D${j}`, ts: `1800000000.${String(j).padStart(6, '0')}`, text: `vault slack ${j}` },
    });
    for (let k = j, tries = 0; ; k++, tries++) {
      const slot = d.slots[k % d.slots.length]!;
      const up = slot.up;
      let status: number | undefined;
      if (up !== undefined) {
        const retry: Record<string, string> = tries === 0 ? {} : { 'x-slack-retry-num': String(tries), 'x-slack-retry-reason': 'http_timeout' };
        try {
          const res = await fetch(`${up.origin}/adapters/slack/events`, {
            method: 'POST', headers: slackSigned(SLACK_SECRET, body, Math.floor(Date.now() / 1000), retry), body, signal: AbortSignal.timeout(30_000),
          });
          status = res.status;
          await res.arrayBuffer();
        } catch {
          status = undefined;
        }
      }
      if (status === 200) return;
      if (status !== undefined && status !== 409 && status !== 503) {
        d.problems.push(`Slack event ${j} to node ${slot.index}: ${status}`);
        return;
      }
      if (tries > 0) this.redelivered++;
      await pause(status === undefined ? 50 : 200); // 409: that node's adapter has not started yet
    }
  }

  /** The invariants, read through an engine on `home` (a node's data folder; every node stopped). */
  async check(home: string): Promise<NodesChatResult> {
    const slackSessions: Chatting = { agent: 'boss', sessions: this.o.slack, turns: 1, topic: 'slack:', messageOf: (_title, _turn, text) => text.split('\n').at(-1)! };
    const whats: Chatting[] = [...TOPICS.map((topic) => ({ agent: 'boss', sessions: this.o.sessions, turns: this.o.turns, topic })), slackSessions];
    const check = await checkChat(home, this.ledger, this.models, this.toolLedger, whats, answerOf);
    const posts = this.slackApi!.callsTo('/chat.postMessage');
    let duplicates = 0;
    for (let j = 0; j < this.o.slack; j++) {
      const mine = posts.filter((p) => p.body?.channel === `D${j}`).sort((a, b) => a.at - b.at);
      const want = { channel: `D${j}`, thread_ts: `1800000000.${String(j).padStart(6, '0')}`, text: vaultAnswer(`vault slack ${j}`), unfurl_links: false };
      if (mine.length === 0) check.problems.push(`Slack event ${j} was not answered`);
      for (const [i, post] of mine.entries()) {
        if (JSON.stringify(post.body) !== JSON.stringify(want)) check.problems.push(`Slack event ${j}: posted ${JSON.stringify(post.body)}, not ${JSON.stringify(want)}`);
        if (i === 0) continue;
        duplicates++;
        const before = mine[i - 1]!.at;
        if (!this.ends.some((end) => before <= end && end <= post.at)) check.problems.push(`Slack event ${j} was answered by ${mine.length} posts: post ${i + 1} came with no node dead since the one before`);
      }
    }
    return {
      ...check, requests: this.ledger.asked.length, turnsCut: this.turnsCut,
      slack: { events: this.o.slack, posts: posts.length, redelivered: this.redelivered, duplicates },
    };
  }

  async close(): Promise<void> {
    for (const m of this.models) await m.close();
    for (const fn of this.closers.reverse()) await fn();
  }
}
