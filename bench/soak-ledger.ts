/**
 * The ledger the kill soaks keep outside the engine (`soak-kill.ts`, `soak-serve.ts`):
 * each step's command appends `<run> <step> <attempt> start|end <epoch s>`, and the
 * processes of the runs are found by the run id in their environment.
 */
import fs from 'node:fs';

export interface Attempt { start: number; end?: number }

/** The shell command that appends one ledger line for the running step (`what`: start or end). */
export function ledgerMark(ledger: string, what: 'start' | 'end'): string {
  return `echo "$KOWALSKI_RUN_ID $KOWALSKI_STEP $KOWALSKI_ATTEMPT ${what} $(date +%s.%N)" >> ${ledger}`;
}

/** `run/step` → attempt → its start and end (epoch ms). */
export function readLedger(file: string): Map<string, Map<number, Attempt>> {
  const steps = new Map<string, Map<number, Attempt>>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const [run, step, attempt, what, time] = line.split(' ');
    if (time === undefined) continue;
    const key = `${run}/${step}`;
    const attempts = steps.get(key) ?? new Map<number, Attempt>();
    steps.set(key, attempts);
    const a = attempts.get(Number(attempt)) ?? { start: NaN };
    attempts.set(Number(attempt), a);
    if (what === 'start') a.start = Number(time) * 1000;
    else a.end = Number(time) * 1000;
  }
  return steps;
}

/** Pids of live processes whose environment names one of `runIds`. */
export function processesOfRuns(runIds: Set<string>): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const run = fs.readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').find((v) => v.startsWith('KOWALSKI_RUN_ID='));
      if (run !== undefined && runIds.has(run.slice('KOWALSKI_RUN_ID='.length))) found.push(Number(entry));
    } catch {
      // gone, or not ours
    }
  }
  return found;
}
