/**
 * Serve soak (a script, not a CI test; issue 16): SIGKILL a real `kowalski serve` `--kills`
 * times at random moments while clients start runs over HTTP (`POST /api/hordes/soak/runs`)
 * and webhooks (`POST /hooks/soak/in`), park runs at an approval gate and approve some,
 * restarting it each time; then one clean life lets every run finish. Checked against
 * books kept outside the engine (every acknowledgement appended to a file before anything
 * else, every step's command appending start/end to a ledger):
 * - before every restart: `PRAGMA integrity_check` of the database is `ok`;
 * - after every restart (through the API): every acknowledged run is there, every parked
 *   run not approved is still parked;
 * - at the end: every acknowledged run finished (the gate's as approved or still parked),
 *   each step passed exactly once, no step ran again after its passed attempt was
 *   committed, no process of the runs is left.
 *
 *   node --import tsx bench/soak-serve.ts [--kills=1000] [--max-delay-ms=1500] [--sleep=0.1] [--clients=3] [--pace-ms=40] [--in-flight=12] [--max-seconds=…] [--keep]
 *
 * Prints a table of counts; exit status 1 when a count that must be 0 is not.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openHistory } from '../engine/index.js';
import { numberOption } from './args.js';
import { removeDir, tempDir } from './setup.js';
import type { Attempt } from './soak-ledger.js';
import { ledgerMark, processesOfRuns, readLedger } from './soak-ledger.js';
import type { Books, Server } from './soak-serve-life.js';
import { drive, emptyDriveCounts, listRuns, now, openBooks, startServer } from './soak-serve-life.js';
import { BENCH_TOKEN } from './token.js';

const KILLS = numberOption('kills', 1000);
const MAX_DELAY_MS = numberOption('max-delay-ms', 1500);
const SLEEP_S = numberOption('sleep', 0.1);
const CLIENTS = numberOption('clients', 3);
const PACE_MS = numberOption('pace-ms', 40);
const IN_FLIGHT = numberOption('in-flight', 12);
/** Stop killing after this long (then the clean life; the table counts the kills made), e.g. to fit a time box. */
const MAX_SECONDS = numberOption('max-seconds', Infinity);

/** `<home>/hordes/soak` (four verify steps, `c` isolated, a webhook trigger) and `<home>/hordes/gate` (one verify step that asks first). */
function writeHordes(home: string, ledger: string): void {
  const command = `${ledgerMark(ledger, 'start')}; sleep ${SLEEP_S}; ${ledgerMark(ledger, 'end')}`;
  const soak = path.join(home, 'hordes', 'soak');
  fs.mkdirSync(path.join(soak, 'agents'), { recursive: true });
  const edges = [['a', 'b'], ['a', 'c'], ['b', 'd'], ['c', 'd']].map(([from, to]) => `[[edges]]\nfrom = "${from}"\nto = "${to}"\nwhen = "pass"\n`).join('');
  fs.writeFileSync(path.join(soak, 'horde.md'), `---\nid = "soak"\npipeline = ["a", "b", "c", "d"]\nconfirm_commands = false\n${edges}[[triggers]]\nname = "in"\nkind = "webhook"\noverlap = "parallel"\n---\n`);
  for (const step of ['a', 'b', 'c', 'd']) {
    const isolation = step === 'c' ? 'isolation = "process"\n' : '';
    fs.writeFileSync(path.join(soak, 'agents', `${step}.md`), `---\nname = "${step}"\nkind = "verify"\n${isolation}verify_command = '${command}'\n---\n`);
  }
  const gate = path.join(home, 'hordes', 'gate');
  fs.mkdirSync(path.join(gate, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(gate, 'horde.md'), '---\nid = "gate"\npipeline = ["wait"]\n---\n');
  fs.writeFileSync(path.join(gate, 'agents', 'wait.md'), `---\nname = "wait"\nkind = "verify"\nverify_command = '${command}'\n---\n`);
}

/** `PRAGMA integrity_check` of the database a dead server left (read only: the next start does the rest). */
function integrity(home: string): string {
  const file = path.join(home, 'kowalski.sqlite');
  if (!fs.existsSync(file)) return 'ok';
  const db = new Database(file, { readonly: true });
  try {
    return (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
  } finally {
    db.close();
  }
}

const count = {
  kills: 0, lives: 0, integrityOk: 0, integrityBad: 0, checksAfterRestart: 0, ackedLost: 0, parkedSeen: 0, parkedLost: 0,
  steps: 0, attempts: 0, finishedReRun: 0, interruptedReRun: 0, notFinished: 0, strayProcesses: 0,
};

/** After a restart: every acknowledged run is listed, every parked run not approved still parked; gate runs parked now join the parked. Returns the unfinished count, or undefined when the server died first. */
async function checkAfterRestart(origin: string, books: Books, problems: string[]): Promise<number | undefined> {
  const states = await listRuns(origin);
  if (states === undefined) return undefined;
  count.checksAfterRestart++;
  for (const id of books.acked.keys()) {
    if (!states.has(id)) {
      count.ackedLost++;
      problems.push(`life ${count.lives}: acknowledged run ${id} is missing`);
    }
  }
  for (const id of books.parked) {
    if (!books.approving.has(id) && states.get(id) !== 'awaiting_input') {
      count.parkedLost++;
      problems.push(`life ${count.lives}: parked run ${id} is ${states.get(id) ?? 'missing'}`);
    }
  }
  for (const [id, via] of books.acked) {
    if (via === 'gate' && !books.parked.has(id) && states.get(id) === 'awaiting_input') {
      books.parked.add(id);
      books.record(`parked ${id}`);
      count.parkedSeen++;
    }
  }
  return [...states.values()].filter((s) => s === 'queued' || s === 'running').length;
}

/** Poll until no run is queued or running (the clean life), at most `limitMs`. */
async function settle(server: Server, limitMs: number): Promise<void> {
  const until = Date.now() + limitMs;
  for (;;) {
    const states = await listRuns(server.origin);
    if (states !== undefined && ![...states.values()].some((s) => s === 'queued' || s === 'running')) return;
    if (Date.now() > until) throw new Error(`runs still unfinished after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Every run at the end, against the books and the ledger. */
function finalCheck(home: string, ledger: string, books: Books, problems: string[]): void {
  const history = openHistory(home);
  if (history === undefined) throw new Error('no database');
  const steps = readLedger(ledger);
  const ids = new Set<string>();
  try {
    for (const id of books.acked.keys()) {
      ids.add(id);
      const view = history.getRun(id);
      const parkedStill = books.acked.get(id) === 'gate' && !books.approved.has(id);
      const expected = parkedStill ? (books.approving.has(id) ? ['awaiting_input', 'succeeded'] : ['awaiting_input']) : ['succeeded'];
      if (!expected.includes(view.run.state)) {
        count.notFinished++;
        problems.push(`run ${id} (${books.acked.get(id)}) is ${view.run.state}`);
      }
      for (const step of view.steps) {
        count.steps++;
        const passed = view.attempts.filter((a) => a.step === step.name && a.state === 'passed');
        if (view.run.state === 'succeeded' && passed.length !== 1) problems.push(`${id}/${step.name} passed ${passed.length} times`);
        const p = passed[0]?.attempt;
        const attempts = steps.get(`${id}/${step.name}`) ?? new Map<number, Attempt>();
        if (p !== undefined && attempts.get(p)?.end === undefined) problems.push(`${id}/${step.name}: the passed attempt ${p} has no end in the ledger`);
        for (const n of attempts.keys()) {
          count.attempts++;
          if (p !== undefined && n > p) {
            count.finishedReRun++;
            problems.push(`${id}/${step.name}: attempt ${n} ran after attempt ${p} passed`);
          } else if (p !== undefined && n < p) count.interruptedReRun++;
        }
      }
    }
  } finally {
    history.close();
  }
  const stray = processesOfRuns(ids);
  count.strayProcesses = stray.length;
  if (stray.length > 0) problems.push(`processes of the runs are still alive: ${stray.join(', ')}`);
}

async function main(): Promise<void> {
  const dir = tempDir('soak-serve');
  const home = path.join(dir, 'home');
  const ledger = path.join(dir, 'ledger');
  fs.writeFileSync(ledger, '');
  writeHordes(home, ledger);
  // serve keeps the token it finds: the driver's requests carry it.
  fs.writeFileSync(path.join(home, 'api-token'), `${BENCH_TOKEN}\n`, { mode: 0o600 });
  const books = openBooks(path.join(dir, 'books'));
  const drove = emptyDriveCounts();
  const problems: string[] = [];
  const began = Date.now();
  const killToExit: number[] = [];
  const startMs: number[] = [];
  for (;;) {
    const verdict = integrity(home);
    if (verdict === 'ok') count.integrityOk++;
    else {
      count.integrityBad++;
      problems.push(`after life ${count.lives}: integrity_check: ${verdict}`);
    }
    const last = count.kills >= KILLS || Date.now() - began > MAX_SECONDS * 1000;
    const server = await startServer(home);
    count.lives++;
    startMs.push(now() - server.spawnAt);
    const unfinished = await checkAfterRestart(server.origin, books, problems);
    if (last) {
      const { stop, done } = drive(server.origin, books, drove, problems, { clients: 0, paceMs: PACE_MS, inFlight: 0 }, 0);
      await done;
      stop();
      await settle(server, 300_000);
      await checkAfterRestart(server.origin, books, problems);
      server.child.kill('SIGTERM');
      const { how, stderr } = await server.exited;
      if (how !== '0') problems.push(`the clean life ended with ${how}: ${stderr}`);
      break;
    }
    const driver = drive(server.origin, books, drove, problems, { clients: CLIENTS, paceMs: PACE_MS, inFlight: IN_FLIGHT }, unfinished ?? 0);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * MAX_DELAY_MS));
    const killAt = now();
    server.child.kill('SIGKILL');
    const { how, at } = await server.exited;
    driver.stop();
    await driver.done;
    if (how !== 'SIGKILL') problems.push(`life ${count.lives} ended with ${how} before its kill`);
    count.kills++;
    killToExit.push(at - killAt);
    if (count.kills % 10 === 0) process.stderr.write(`${count.kills} kills, ${books.acked.size} runs acknowledged, ${Math.round((Date.now() - began) / 1000)} s\n`);
  }
  finalCheck(home, ledger, books, problems);
  const seconds = Math.round((Date.now() - began) / 1000);
  const median = (v: number[]): number => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? NaN;
  const rows: [string, number | string, string][] = [
    ['SIGKILLs of kowalski serve', count.kills < KILLS ? `${count.kills} of ${KILLS} (stopped at --max-seconds)` : count.kills, `${count.lives} lives (the last one clean), ${seconds} s; start to listening median ${median(startMs).toFixed(0)} ms, kill to exit median ${median(killToExit).toFixed(1)} ms`],
    ['requests sent', drove.requests, `${CLIENTS} clients, ${PACE_MS} ms apart, kill ≤ ${MAX_DELAY_MS} ms after listening`],
    ['runs acknowledged', books.acked.size, `API ${drove.viaApi}, webhook ${drove.viaHook}, gate ${drove.viaGate}; deliveries sent again after a kill: ${drove.redeliveredDuplicate} already committed, ${drove.redeliveredNew} new`],
    ['acknowledged runs lost', count.ackedLost, `checked after each of ${count.checksAfterRestart} restarts and at the end (must be 0)`],
    ['acknowledged deliveries sent again, same run', drove.replayedSame, 'a delivery id answers with the run it started'],
    ['finished steps re-run', count.finishedReRun, `an attempt in the ledger after the step's passed attempt (must be 0); ${count.steps} steps, ${count.attempts} attempts`],
    ['interrupted steps run again', count.interruptedReRun, 'attempts before the passed one: cut by a kill before their result was committed (allowed)'],
    ['parked runs seen / lost', `${count.parkedSeen} / ${count.parkedLost}`, `lost: not parked after a restart without an approval (must be 0); ${drove.approvals} approvals acknowledged`],
    ['runs not finished as expected', count.notFinished, 'at the end (must be 0)'],
    ['integrity_check ok / not ok', `${count.integrityOk} / ${count.integrityBad}`, 'before every start (must be all ok)'],
    ['processes of the runs left', count.strayProcesses, 'must be 0'],
    ['unexpected answers', drove.unexpected, 'must be 0'],
  ];
  process.stdout.write(`| count | value | note |\n|---|---|---|\n${rows.map(([a, b, c]) => `| ${a} | ${b} | ${c} |`).join('\n')}\n`);
  for (const p of problems.slice(0, 50)) process.stdout.write(`PROBLEM ${p}\n`);
  if (process.argv.includes('--keep')) process.stderr.write(`kept ${dir}\n`);
  else removeDir(dir);
  process.exitCode = problems.length > 0 ? 1 : 0;
}

await main();
