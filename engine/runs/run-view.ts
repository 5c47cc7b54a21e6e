/** One run as the CLI and the API show it: its row, its steps in pipeline order, its approvals, its delivery. */
import fs from 'node:fs';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import type { HordeDef } from '../../core/index.js';
import { askedByOf } from './agent-provenance.js';
import { readBudgetView } from './budget.js';
import type { DataPaths } from '../base/data-dir.js';
import type { EventLog } from '../store/event-log.js';
import type { TraceStore } from '../store/traces.js';
import type { ApprovalRow, AttemptRow, RunQueries, RunRow } from '../store/queries.js';
import type { Delivery, RunView, StepView } from '../../contract/runs.js';
export type { Delivery, RunView, StepView } from '../../contract/runs.js';

function isFile(abs: string): boolean {
  try {
    return fs.statSync(abs).isFile();
  } catch {
    return false;
  }
}

/**
 * The horde's `delivery_root_rel` when that file is in the workdir; else the artifact of the
 * last step (in pipeline order) that passed with one still on disk; else none.
 */
export function findDelivery(horde: HordeDef | undefined, workdir: string, steps: readonly StepView[]): Delivery | null {
  const title = horde?.display.delivery_title ?? null;
  const rel = horde?.deliveryRootRel;
  const byLast = [...steps].reverse();
  if (rel !== undefined && isFile(path.join(workdir, rel))) {
    return { artifact: rel, path: path.join(workdir, rel), step: byLast.find((s) => s.artifact === rel)?.name ?? null, title };
  }
  const last = byLast.find((s) => s.state === 'passed' && s.artifact !== null && isFile(path.join(workdir, s.artifact)));
  if (last === undefined || last.artifact === null) return null;
  return { artifact: last.artifact, path: path.join(workdir, last.artifact), step: last.name, title };
}

/** The run's row; KW_ERR_RUN_NOT_FOUND naming the data directory when there is none. */
export function requireRunRow(queries: RunQueries, runId: string, paths: DataPaths): RunRow {
  const run = queries.getRun(runId);
  if (run === undefined) throw new KowalskiError('KW_ERR_RUN_NOT_FOUND', `no run ${runId} in ${paths.dataDir}`);
  return run;
}

/** The horde the run started with (from its first event), and its workdir. */
function runStart(log: EventLog, runId: string, paths: DataPaths): { horde: HordeDef | undefined; workdir: string } {
  const first = log.readAfter(runId, 0, 1)[0]?.event;
  const horde = first?.type === 'run.created' ? first.horde : undefined;
  return { horde, workdir: path.join(paths.runDir(runId), horde?.workdir ?? 'output') };
}

/** The run's workdir (absolute); KW_ERR_RUN_NOT_FOUND for an unknown run. */
export function runWorkdir(queries: RunQueries, log: EventLog, runId: string, paths: DataPaths): string {
  requireRunRow(queries, runId, paths);
  return runStart(log, runId, paths).workdir;
}

/** The run as the operator reads it; its budget's spent amounts come from `traces`, its wall time up to `now`. */
export function readRunView(queries: RunQueries, log: EventLog, traces: TraceStore, runId: string, paths: DataPaths, now: number): RunView {
  const run = requireRunRow(queries, runId, paths);
  const { horde, workdir } = runStart(log, runId, paths);
  const attempts = queries.attempts(runId);
  const latest = new Map<string, AttemptRow>();
  for (const a of attempts) {
    const prev = latest.get(a.step);
    if (prev === undefined || a.attempt > prev.attempt) latest.set(a.step, a);
  }
  const approvals = queries.approvals(runId);
  const pending = approvals.filter((a) => a.state === 'pending');
  const asked = new Set(pending.map((a) => a.step));
  /** The step's latest decision, when it was a denial that no attempt followed. */
  const denied = new Map<string, ApprovalRow>();
  for (const a of approvals) {
    if (a.state === 'denied') denied.set(a.step, a);
    else denied.delete(a.step);
  }
  const pipeline = horde?.pipeline ?? [...latest.keys()];
  const steps: StepView[] = pipeline.map((name) => {
    const a = latest.get(name);
    const notRun: StepView = {
      name, kind: horde?.steps[name]?.kind ?? '?', state: 'pending', attempt: a?.attempt ?? 0, outcome: null,
      durationMs: null, artifact: null, summary: null, error: null,
    };
    if (asked.has(name)) return { ...notRun, state: 'awaiting_approval' };
    const d = denied.get(name);
    if (d !== undefined && (a === undefined || a.startedAt < (d.decidedAt ?? 0))) {
      const reason = d.denyReason ?? '';
      return {
        ...notRun, state: 'failed', outcome: 'fail', summary: `denied: ${reason}`,
        error: { code: 'KW_ERR_APPROVAL_DENIED', message: `the operator denied "${name}": ${reason}` },
      };
    }
    if (a === undefined) return notRun;
    return {
      ...notRun, state: a.state,
      outcome: a.state === 'passed' ? 'pass' : a.state === 'failed' ? 'fail' : null,
      durationMs: a.durationMs, artifact: a.artifact, summary: a.summary,
      error: a.errorCode === null ? null : { code: a.errorCode, message: a.error },
    };
  });
  const budget = readBudgetView(log.read(runId), traces, run, now);
  return { run, steps, attempts, approvals, pending, workdir, budget, delivery: findDelivery(horde, workdir, steps), askedBy: askedByOf(run.provenance) };
}
