/**
 * One life of `kowalski serve` for the serve soak (`soak-serve.ts`): the real CLI as a
 * child process (through tsx), its address read from what it prints, and the client
 * that starts runs over HTTP and webhooks while it lives. Everything the server
 * acknowledges is appended to the soak's books (a file outside the data folder) before
 * anything else happens.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BENCH_AUTH } from './token.js';

/** The CLI next to this module: `bin/kowalski.ts` through tsx, or under dist/ the compiled `bin/kowalski.js` (starts several times faster). */
const COMPILED = import.meta.url.endsWith('.js');
const CLI = fileURLToPath(new URL(`../bin/kowalski.${COMPILED ? 'js' : 'ts'}`, import.meta.url));
const REPO = fileURLToPath(new URL(COMPILED ? '../..' : '..', import.meta.url));

/** Wall clock in ms with sub-ms precision, comparable with `date +%s.%N`. */
export const now = (): number => performance.timeOrigin + performance.now();

export interface Server {
  child: ChildProcess;
  origin: string;
  spawnAt: number;
  /** Resolves with the exit's signal (or code) and when it was seen. */
  exited: Promise<{ how: string; at: number; stderr: string }>;
}

/** Start `kowalski serve --port 0` on `home`; resolves once it says where it listens (rejects after `limitMs`). */
export function startServer(home: string, limitMs = 120_000): Promise<Server> {
  const spawnAt = now();
  const child = spawn(process.execPath, [...(COMPILED ? [] : ['--import', 'tsx']), CLI, 'serve', '--port', '0', '--no-open'], {
    cwd: REPO,
    env: { ...process.env, KOWALSKI_HOME: home },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<{ how: string; at: number; stderr: string }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ how: signal ?? String(code), at: now(), stderr }));
  });
  return new Promise((resolve, reject) => {
    const limit = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kowalski serve did not listen in ${limitMs} ms:\n${stderr}`));
    }, limitMs);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const at = / at (http:\/\/[^/\s]+)\//.exec(stderr);
      if (at !== null) {
        clearTimeout(limit);
        resolve({ child, origin: at[1]!, spawnAt, exited });
      }
    });
    void exited.then(({ how }) => {
      clearTimeout(limit);
      reject(new Error(`kowalski serve ended (${how}) before it listened:\n${stderr}`));
    });
  });
}

/** What the soak knows from outside the engine; `record` appends each fact to the books file first. */
export interface Books {
  /** Acknowledged runs: id → how it was started (`api`, `hook`, `gate`). */
  acked: Map<string, string>;
  /** Webhook delivery id → the run its acknowledgement named. */
  deliveries: Map<string, string>;
  /** Deliveries sent whose answer never came (the server died): sent again in the next life. */
  unanswered: Set<string>;
  /** Gate runs seen parked, and those whose approval was acknowledged or only sent. */
  parked: Set<string>;
  approved: Set<string>;
  approving: Set<string>;
  /** Delivery ids handed out so far (`d0`, `d1`, …). */
  deliveriesSent: number;
  record(line: string): void;
}

export function openBooks(file: string): Books {
  fs.writeFileSync(file, '');
  return {
    acked: new Map(), deliveries: new Map(), unanswered: new Set(), parked: new Set(), approved: new Set(), approving: new Set(), deliveriesSent: 0,
    record: (line) => fs.appendFileSync(file, `${line} ${now().toFixed(1)}\n`),
  };
}

export interface DriveCounts {
  requests: number;
  viaApi: number;
  viaHook: number;
  viaGate: number;
  /** Deliveries sent again after a kill: answered as duplicates (committed, answer lost) or started anew. */
  redeliveredDuplicate: number;
  redeliveredNew: number;
  /** Acknowledged deliveries sent again: the same run, or (a problem) another answer. */
  replayedSame: number;
  approvals: number;
  /** Answers that were neither the expected one nor a dead connection. */
  unexpected: number;
}

export const emptyDriveCounts = (): DriveCounts => ({ requests: 0, viaApi: 0, viaHook: 0, viaGate: 0, redeliveredDuplicate: 0, redeliveredNew: 0, replayedSame: 0, approvals: 0, unexpected: 0 });

interface Answer { status: number; body: Record<string, unknown> }

/** One request; undefined when the server is gone (connection refused or reset, or no answer in 30 s). */
async function call(origin: string, method: string, route: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer | undefined> {
  try {
    const res = await fetch(`${origin}${route}`, {
      method,
      headers: body === undefined ? { ...BENCH_AUTH, ...headers } : { ...BENCH_AUTH, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? {} : JSON.parse(text) as Record<string, unknown> };
  } catch {
    return undefined;
  }
}

/** Every run the server lists: id → state (undefined when the server died meanwhile). */
export async function listRuns(origin: string): Promise<Map<string, string> | undefined> {
  const states = new Map<string, string>();
  let cursor: string | null = null;
  do {
    const page: Answer | undefined = await call(origin, 'GET', `/api/runs?limit=500${cursor === null ? '' : `&cursor=${cursor}`}`, undefined);
    if (page?.status !== 200) return undefined;
    for (const r of page.body.runs as { id: string; state: string }[]) states.set(r.id, r.state);
    cursor = page.body.nextCursor as string | null;
  } while (cursor !== null);
  return states;
}

export interface DriveOptions {
  /** Concurrent clients, and the pause each makes between its requests, ms. */
  clients: number;
  paceMs: number;
  /** No new run while this many acknowledged ones may be unfinished. */
  inFlight: number;
}

/**
 * Start runs until the server dies (or `stop()` is called): over `POST /api/hordes/soak/runs`,
 * over the webhook `POST /hooks/soak/in` (each delivery with its own id), runs of `gate`
 * (which park), approvals of parked runs, and deliveries sent again.
 */
export function drive(origin: string, books: Books, counts: DriveCounts, problems: string[], options: DriveOptions, unfinishedAtStart: number): { stop: () => void; done: Promise<void> } {
  let stopped = false;
  let unfinished = unfinishedAtStart;
  const started = (runId: string, via: string, delivery = '-'): void => {
    books.record(`ack ${runId} ${via} ${delivery}`);
    books.acked.set(runId, via);
    unfinished++;
  };
  const hook = async (id: string, again: boolean): Promise<boolean> => {
    counts.requests++;
    const a = await call(origin, 'POST', '/hooks/soak/in', { delivery: id }, { 'x-request-id': id });
    if (a === undefined) {
      books.unanswered.add(id);
      return false;
    }
    books.unanswered.delete(id);
    const runId = a.body.runId as string | undefined;
    if (runId === undefined || (a.status !== 202 && a.status !== 200)) {
      counts.unexpected++;
      problems.push(`delivery ${id}: ${a.status} ${JSON.stringify(a.body)}`);
      return true;
    }
    const known = books.deliveries.get(id);
    if (known !== undefined) {
      if (known === runId && a.body.duplicate === true) counts.replayedSame++;
      else problems.push(`delivery ${id} acknowledged run ${known}, now ${a.status} ${JSON.stringify(a.body)}`);
      return true;
    }
    books.deliveries.set(id, runId);
    if (!books.acked.has(runId)) started(runId, 'hook', id);
    if (again && a.body.duplicate === true) counts.redeliveredDuplicate++;
    else if (again) counts.redeliveredNew++;
    else counts.viaHook++;
    return true;
  };
  const startVia = async (horde: string, via: 'api' | 'gate'): Promise<boolean> => {
    counts.requests++;
    const a = await call(origin, 'POST', `/api/hordes/${horde}/runs`, { input: {} });
    if (a === undefined) return false;
    if (a.status !== 201 || typeof a.body.runId !== 'string') {
      counts.unexpected++;
      problems.push(`POST /api/hordes/${horde}/runs: ${a.status} ${JSON.stringify(a.body)}`);
      return true;
    }
    started(a.body.runId, via);
    if (via === 'api') counts.viaApi++;
    else counts.viaGate++;
    return true;
  };
  const approve = async (): Promise<boolean> => {
    const waiting = [...books.parked].filter((id) => !books.approved.has(id) && !books.approving.has(id));
    if (waiting.length === 0) return true;
    const id = waiting[Math.floor(Math.random() * waiting.length)]!;
    books.approving.add(id);
    books.record(`approving ${id}`);
    counts.requests++;
    const a = await call(origin, 'POST', `/api/runs/${id}/approve`, {});
    if (a === undefined) return false;
    if (a.status !== 200) {
      counts.unexpected++;
      problems.push(`approve ${id}: ${a.status} ${JSON.stringify(a.body)}`);
      return true;
    }
    books.record(`approved ${id}`);
    books.approved.add(id);
    counts.approvals++;
    return true;
  };
  const one = async (): Promise<boolean> => {
    const r = Math.random();
    if (unfinished >= options.inFlight && r < 0.9) return approve();
    if (r < 0.4) return startVia('soak', 'api');
    if (r < 0.8) return hook(`d${books.deliveriesSent++}`, false);
    if (r < 0.88) return startVia('gate', 'gate');
    if (r < 0.95) return approve();
    const acked = [...books.deliveries.keys()];
    return acked.length === 0 || hook(acked[Math.floor(Math.random() * acked.length)]!, true);
  };
  const client = async (): Promise<void> => {
    while (!stopped && await one()) await new Promise((resolve) => setTimeout(resolve, options.paceMs));
  };
  const done = (async () => {
    // What the last life sent and never heard back about goes first.
    for (const id of [...books.unanswered]) if (stopped || !(await hook(id, true))) return;
    await Promise.all(Array.from({ length: options.clients }, client));
  })();
  return { stop: () => void (stopped = true), done };
}
