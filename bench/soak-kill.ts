/**
 * Kill soak (a script, not a CI test): SIGKILL a real engine process (`soak-engine.ts`)
 * at random moments while runs of a horde of 0.3 s verify commands are in flight,
 * restart it each time, then check the ledger the commands write outside the engine
 * against the final database.
 *
 *   node --import tsx bench/soak-kill.ts [--kills=100] [--runs=2] [--max-delay-ms=1200] [--sleep=0.3] [--parallel=4] [--in-flight=0] [--keep]
 *
 * `--runs` runs start in each engine life; with `--in-flight=N` each life instead tops the
 * unfinished runs it recovered up to N (so N stay in flight however many lives end early);
 * `--sleep` is each command's duration, s; `--parallel` the engine's maxParallelSteps.
 *
 * Each command appends `<run> <step> <attempt> start|end <epoch s>` to the ledger. A
 * command is the engine's that was alive when it started. It counts (exit status 1 when
 * the first is not 0, or when a run did not succeed exactly once per step):
 * - ended after its engine was dead (its exit seen) while a later attempt finished;
 * - ended between the SIGKILL and the engine's exit (the kernel still tearing it down);
 * - ended before the SIGKILL but ran again (its result was not yet committed).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openHistory } from '../engine/index.js';
import { numberOption } from './args.js';
import { benchModule, removeDir, tempDir } from './setup.js';
import type { Attempt } from './soak-ledger.js';
import { ledgerMark, processesOfRuns, readLedger } from './soak-ledger.js';

const KILLS = numberOption('kills', 100);
const RUNS_PER_START = numberOption('runs', 2);
const MAX_DELAY_MS = numberOption('max-delay-ms', 1200);
const SLEEP_S = numberOption('sleep', 0.3);
const PARALLEL = numberOption('parallel', 4);
const IN_FLIGHT = numberOption('in-flight', 0);

/** Wall clock in ms with sub-ms precision, comparable with `date +%s.%N`. */
const now = (): number => performance.timeOrigin + performance.now();

interface Life { spawnAt: number; killAt?: number; exitAt: number; killedProcesses: number }

function writeHorde(dir: string, ledger: string): string {
  const h = path.join(dir, 'horde');
  fs.mkdirSync(path.join(h, 'agents'), { recursive: true });
  const edges = [['a', 'b'], ['a', 'c'], ['b', 'd'], ['c', 'd']].map(([from, to]) => `[[edges]]\nfrom = "${from}"\nto = "${to}"\nwhen = "pass"\n`).join('');
  fs.writeFileSync(path.join(h, 'horde.md'), `---\nid = "soak"\npipeline = ["a", "b", "c", "d"]\nconfirm_commands = false\n${edges}---\n`);
  const command = `${ledgerMark(ledger, 'start')}; sleep ${SLEEP_S}; ${ledgerMark(ledger, 'end')}`;
  for (const step of ['a', 'b', 'c', 'd']) {
    // `c` runs in an isolated child process, the others in pool threads.
    const isolation = step === 'c' ? 'isolation = "process"\n' : '';
    fs.writeFileSync(path.join(h, 'agents', `${step}.md`), `---\nname = "${step}"\nkind = "verify"\n${isolation}verify_command = '${command}'\n---\n`);
  }
  return h;
}

/** Start the engine; SIGKILL it `delayMs` after READY (never, when undefined). */
function engineLife(dataDir: string, horde: string, runs: number, delayMs: number | undefined): Promise<Life> {
  return new Promise((resolve, reject) => {
    const life: Life = { spawnAt: now(), exitAt: 0, killedProcesses: 0 };
    const child = spawn(process.execPath, [...process.execArgv, benchModule('soak-engine'), dataDir, horde, String(runs), String(PARALLEL), String(IN_FLIGHT)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const limit = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the engine did not finish in 120 s:\n${err}`));
    }, 120_000);
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const recovered = /^RECOVERED (.*)$/m.exec(out);
      if (recovered !== null) life.killedProcesses = (JSON.parse(recovered[1]!) as { killedProcesses: number }).killedProcesses;
      if (delayMs !== undefined && life.killAt === undefined && out.includes('READY\n')) {
        life.killAt = -1;
        setTimeout(() => {
          life.killAt = now();
          child.kill('SIGKILL');
        }, delayMs);
      }
    });
    child.once('exit', (code, signal) => {
      life.exitAt = now();
      clearTimeout(limit);
      if (signal === 'SIGKILL' && (life.killAt ?? -1) > 0) resolve(life);
      else if (code === 0 && out.includes('IDLE\n')) resolve({ spawnAt: life.spawnAt, exitAt: life.exitAt, killedProcesses: life.killedProcesses });
      else reject(new Error(`the engine ended with ${signal ?? code}:\n${err}\n${out}`));
    });
  });
}

const quantile = (values: number[], q: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN;

async function main(): Promise<void> {
  const dir = tempDir('soak');
  const dataDir = path.join(dir, 'home');
  const ledger = path.join(dir, 'ledger');
  fs.writeFileSync(ledger, '');
  const horde = writeHorde(dir, ledger);
  const began = Date.now();
  const lives: Life[] = [];
  while (lives.filter((l) => l.killAt !== undefined).length < KILLS) {
    lives.push(await engineLife(dataDir, horde, IN_FLIGHT > 0 ? IN_FLIGHT : RUNS_PER_START, Math.random() * MAX_DELAY_MS));
    const done = lives.filter((l) => l.killAt !== undefined).length;
    if (done % 10 === 0 && lives.at(-1)?.killAt !== undefined) process.stderr.write(`${done} kills, ${Math.round((Date.now() - began) / 1000)} s\n`);
  }
  lives.push(await engineLife(dataDir, horde, 0, undefined));

  const history = openHistory(dataDir);
  if (history === undefined) throw new Error('no database');
  const ids: string[] = [];
  for (;;) {
    const page = history.listRuns({ limit: 500, ...(ids.length === 0 ? {} : { cursor: ids.at(-1)! }) });
    ids.push(...page.map((r) => r.id));
    if (page.length < 500) break;
  }
  const steps = readLedger(ledger);
  const problems: string[] = [];
  /** How long after the SIGKILL each command that ended while its engine was dying ended, ms. */
  const dyingMs: number[] = [];
  const count = { steps: 0, attempts: 0, partial: 0, afterDeathRetried: 0, whileDyingRetried: 0, whileDyingIsolated: 0, beforeKillRanAgain: 0, committedBeforeKill: 0, unattributed: 0 };
  for (const id of ids) {
    const view = history.getRun(id);
    if (view.run.state !== 'succeeded') problems.push(`run ${id} is ${view.run.state}`);
    for (const step of view.steps) {
      count.steps++;
      const passed = view.attempts.filter((a) => a.step === step.name && a.state === 'passed');
      if (passed.length !== 1) problems.push(`${id}/${step.name} passed ${passed.length} times`);
      const p = passed[0]?.attempt ?? 0;
      const attempts = steps.get(`${id}/${step.name}`) ?? new Map<number, Attempt>();
      if (attempts.get(p)?.end === undefined) problems.push(`${id}/${step.name}: the passed attempt ${p} has no end in the ledger`);
      for (const [n, a] of attempts) {
        count.attempts++;
        if (n > p) problems.push(`${id}/${step.name}: attempt ${n} ran after attempt ${p} passed`);
        const life = lives.find((l) => l.spawnAt <= a.start && a.start <= l.exitAt);
        if (life === undefined) {
          count.unattributed++;
          continue;
        }
        if (life.killAt === undefined) continue;
        const retried = [...attempts].some(([m, b]) => m > n && b.end !== undefined);
        if (a.end === undefined) count.partial++;
        else if (a.end > life.exitAt && retried) count.afterDeathRetried++;
        else if (a.end > life.killAt && retried) {
          count.whileDyingRetried++;
          dyingMs.push(+(a.end - life.killAt).toFixed(1));
          if (step.name === 'c') count.whileDyingIsolated++;
        }
        else if (a.end <= life.killAt && n !== p) count.beforeKillRanAgain++;
        else if (a.end <= life.killAt) count.committedBeforeKill++;
        else problems.push(`${id}/${step.name}: attempt ${n} ended after the kill and nothing finished after it`);
      }
    }
  }
  history.close();
  const stray = processesOfRuns(new Set(ids));
  if (stray.length > 0) problems.push(`processes of the runs are still alive: ${stray.join(', ')}`);
  const killed = lives.filter((l) => l.killAt !== undefined);
  const dying = killed.map((l) => l.exitAt - l.killAt!);
  const report = {
    kills: killed.length,
    seconds: Math.round((Date.now() - began) / 1000),
    runs: ids.length,
    ...count,
    recoveryKilledProcesses: lives.reduce((sum, l) => sum + l.killedProcesses, 0),
    whileDyingEndedMsAfterKill: dyingMs,
    killToExitMs: { p50: +quantile(dying, 0.5).toFixed(1), p95: +quantile(dying, 0.95).toFixed(1), max: +Math.max(...dying).toFixed(1) },
    problems,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  if (process.argv.includes('--keep')) process.stderr.write(`kept ${dir}\n`);
  else removeDir(dir);
  process.exitCode = problems.length > 0 || count.afterDeathRetried > 0 ? 1 : 0;
}

await main();
