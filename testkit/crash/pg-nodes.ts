/**
 * Real `kowalski serve` nodes on one Postgres store, for the kill tests of issue 18
 * (pg-nodes-kills.ts): each node has its own data folder (config.toml naming the
 * database, the shared run folders, a short lease) with the same two hordes, its own
 * port, and is spoken to over HTTP as any client would. A node killed and started again
 * on its data folder is a new node of the store (a new row of `nodes`).
 */
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { startCli } from '../cli.js';
import type { RunningCli } from '../cli.js';

/** The verify steps append `<run> <step> <attempt> start|end` to the ledger, outside the engine. */
export const LEDGER_STEPS = ['a', 'b', 'c', 'd'];

export interface NodeSlot {
  /** 0, 1, 2: the data folder's place; each life there is a new node. */
  index: number;
  home: string;
  /** The node id of each life, oldest first. */
  ids: string[];
  /** The life answering now; undefined between a kill and the next listen. */
  up?: { cli: RunningCli; origin: string; nodeId: string; token: string | undefined };
}

export interface Answer { status: number; body: Record<string, unknown> }

/** The shell command of a ledger step: its start, `sleepS` of work, its end. */
function ledgerCommand(ledger: string, sleepS: number): string {
  const mark = (what: string) => `echo "$KOWALSKI_RUN_ID $KOWALSKI_STEP $KOWALSKI_ATTEMPT ${what}" >> ${ledger}`;
  return `${mark('start')}; sleep ${sleepS}; ${mark('end')}`;
}

function writeHordeFolder(dir: string, front: string, steps: Record<string, string>): void {
  fs.mkdirSync(path.join(dir, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'horde.md'), `---\n${front}---\n`);
  for (const [name, toml] of Object.entries(steps)) fs.writeFileSync(path.join(dir, 'agents', `${name}.md`), `---\nname = "${name}"\n${toml}---\n`);
}

/**
 * A data folder of a node: config.toml (`[store]` url, files, lease_secs) and two hordes.
 * `soak`: a → (b, c) → d, verify steps that ask nobody. `gate`: a → b → check → d, where
 * `check` is a review of b's artifact, so the run parks there until someone approves it.
 */
export function writeNodeHome(home: string, o: { url: string; files: string; leaseSecs: number; ledger: string; sleepS: number }): void {
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(home, 'config.toml'), nodeConfig(o));
  const verify = `kind = "verify"\nverify_command = ${JSON.stringify(ledgerCommand(o.ledger, o.sleepS))}\n`;
  const edges = [['a', 'b'], ['a', 'c'], ['b', 'd'], ['c', 'd']].map(([from, to]) => `[[edges]]\nfrom = "${from}"\nto = "${to}"\nwhen = "pass"\n`).join('');
  writeHordeFolder(path.join(home, 'hordes', 'soak'), `id = "soak"\npipeline = ["a", "b", "c", "d"]\nconfirm_commands = false\n${edges}`, { a: verify, b: verify, c: verify, d: verify });
  writeHordeFolder(path.join(home, 'hordes', 'gate'), 'id = "gate"\npipeline = ["a", "b", "check", "d"]\nconfirm_commands = false\n', {
    a: verify, b: verify, check: 'kind = "review"\n', d: verify,
  });
}

/** A node's config.toml: the store (the chat side of the test adds its own tables after it). */
export function nodeConfig(o: { url: string; files: string; leaseSecs: number }): string {
  return `[store]\nurl = ${JSON.stringify(o.url)}\nfiles = ${JSON.stringify(o.files)}\nlease_secs = ${o.leaseSecs}\n`;
}

/** What a node's life tells beyond its answers: an end nobody asked for, its engine stopping while the process lives on. */
export interface NodeWatch {
  died(how: string, stderr: string): void;
  /** `node`: the life whose engine stopped. */
  engineStopped(line: string, node: string): void;
}

/**
 * Start `kowalski serve` on the slot's data folder; resolves once it listens, with its node
 * id (the newest `nodes` row of its pid).
 */
export async function startNode(slot: NodeSlot, db: pg.Client, watch: NodeWatch, env: Record<string, string> = {}): Promise<void> {
  const cli = startCli(slot.home, ['serve', '--port', '0', '--no-open'], { limitMs: 3_600_000, env });
  cli.exited.catch(() => undefined); // the limit is a guard only; every life is killed or stopped long before
  const line = await cli.stderrLine(/ at http:\/\/[^/\s]+\//);
  const origin = / at (http:\/\/[^/\s]+)\//.exec(line)![1]!;
  const row = await db.query<{ id: string }>('SELECT id FROM nodes WHERE pid = $1 ORDER BY started_at DESC LIMIT 1', [cli.child.pid]);
  if (row.rows[0] === undefined) throw new Error(`node ${slot.index} listens at ${origin} but its pid ${cli.child.pid} is not in the nodes table`);
  const tokenFile = path.join(slot.home, 'api-token');
  const token = fs.existsSync(tokenFile) ? fs.readFileSync(tokenFile, 'utf8').trim() : undefined;
  const life = { cli, origin, nodeId: row.rows[0].id, token };
  slot.up = life;
  slot.ids.push(life.nodeId);
  void cli.exited.then((r) => {
    if (slot.up !== life) return; // killed or stopped on purpose: killNode and stopNode clear `up` first
    slot.up = undefined;
    watch.died(r.signal ?? String(r.code), r.stderr);
  });
  cli.stderrLine(/the engine stopped/).then((line) => watch.engineStopped(line, life.nodeId), () => undefined);
}

/** SIGKILL the slot's node; resolves once it is gone. Returns the node id it had. */
export async function killNode(slot: NodeSlot): Promise<string> {
  const up = slot.up!;
  slot.up = undefined;
  up.cli.child.kill('SIGKILL');
  await up.cli.exited;
  return up.nodeId;
}

/** SIGTERM: a clean stop; resolves with how it ended ('0' when clean). */
export async function stopNode(slot: NodeSlot): Promise<string> {
  const up = slot.up;
  if (up === undefined) return '0';
  slot.up = undefined;
  up.cli.child.kill('SIGTERM');
  const r = await up.cli.exited;
  return r.signal ?? String(r.code);
}

/**
 * One request to the slot's node (with the bearer token of its data folder when it has
 * one; on loopback none is needed). Undefined when there was no answer: the node is down,
 * or died before it answered.
 */
export async function call(slot: NodeSlot, method: string, route: string, body?: unknown): Promise<Answer | undefined> {
  const up = slot.up;
  if (up === undefined) return undefined;
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  if (up.token !== undefined) headers.authorization = `Bearer ${up.token}`;
  try {
    const res = await fetch(`${up.origin}${route}`, {
      method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? {} : JSON.parse(text) as Record<string, unknown> };
  } catch {
    return undefined;
  }
}
