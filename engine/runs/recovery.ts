/**
 * Boot recovery: replay every run that was queued or running when the engine stopped
 * and continue it. A step started with no result is interrupted: its leftover processes
 * are killed first, then it runs again as a new attempt — or, when it is not safe to
 * repeat (apply), the run parks with "outcome unknown" for the operator.
 */
import { KowalskiError, messageOf } from '../../core/index.js';
import { killLeftovers } from '../../steps/index.js';
import type { RunEvent } from '../../actors/index.js';
import type { Supervisor } from './supervisor.js';
import type { RunQueries } from '../store/queries.js';
import type { RecoverySummary } from '../../contract/health.js';
export type { RecoverySummary } from '../../contract/health.js';

export async function recoverRuns(resumer: Resumer, queries: RunQueries): Promise<RecoverySummary> {
  const summary: RecoverySummary = { ...emptyRecovery(), parked: queries.countByState().awaiting_input ?? 0 };
  await Promise.all(queries.unfinishedRunIds().map((runId) => resumer.resume(runId, summary)));
  return summary;
}

/**
 * Resumes runs on this node, each once: recovery at start, the cluster's adoptions and the
 * operator's resume may ask for the same run at once. A second ask while a resume is under
 * way waits for it (the run's steps then running are this node's own, not interrupted ones);
 * a run this node executes already is left as it is.
 */
export class Resumer {
  private readonly underWay = new Map<string, Promise<RecoverySummary>>();

  constructor(private readonly supervisor: Supervisor) {}

  /** Resume `runId` unless this node executes it already; what it did (resumed, retried, failed) is added to `summary`. */
  async resume(runId: string, summary: RecoverySummary): Promise<void> {
    const pending = this.underWay.get(runId);
    if (pending !== undefined) {
      const done = await pending;
      summary.resumed.push(...done.resumed);
      summary.failed.push(...done.failed);
      return;
    }
    if (this.supervisor.isLive(runId)) return;
    const own = emptyRecovery();
    const resuming = resumeRun(this.supervisor, runId, own).then(() => own).finally(() => this.underWay.delete(runId));
    this.underWay.set(runId, resuming);
    addTo(summary, await resuming);
  }
}

/** Add what one run's resume did to a summary. */
function addTo(summary: RecoverySummary, done: RecoverySummary): void {
  summary.resumed.push(...done.resumed);
  summary.retried.push(...done.retried);
  summary.outcomeUnknown.push(...done.outcomeUnknown);
  summary.failed.push(...done.failed);
  summary.killedProcesses += done.killedProcesses;
}

/**
 * Replay one queued or running run and continue it; its interrupted steps are recorded
 * (and their leftover processes killed) before anything starts again. Resolves once committed.
 * Only through a Resumer: two at once on one run would both take its steps for interrupted.
 */
async function resumeRun(supervisor: Supervisor, runId: string, summary: RecoverySummary): Promise<void> {
  let run;
  try {
    run = supervisor.load(runId);
  } catch (err) {
    // Another node of a shared store executes it: nothing to do here.
    if (err instanceof KowalskiError && err.code === 'KW_ERR_RUN_ELSEWHERE') return;
    summary.failed.push({ runId, message: messageOf(err) });
    return;
  }
  const interrupted: RunEvent[] = [];
  for (const name of run.actor.context.graph.pipeline) {
    const s = run.actor.context.steps[name]!;
    if (s.status !== 'running' || run.running.has(name)) continue;
    if (s.token !== undefined) summary.killedProcesses += await killLeftovers({ token: s.token, ...(s.pgid === undefined ? {} : { pgid: s.pgid }) });
    interrupted.push({ type: 'step.interrupted', step: name, attempt: s.attempts });
    if (run.actor.context.policy[name]?.idempotent === false) summary.outcomeUnknown.push({ runId, step: name });
    else summary.retried.push({ runId, step: name, attempt: s.attempts + 1 });
  }
  summary.resumed.push(runId);
  await supervisor.submitAndWait(run, interrupted);
}

/** A summary of nothing done yet, filled in as runs are resumed. */
export function emptyRecovery(): RecoverySummary {
  return { resumed: [], retried: [], parked: 0, outcomeUnknown: [], killedProcesses: 0, chats: [], vault: { completed: 0, failed: 0, swept: 0 }, failed: [] };
}

export function formatRecovery(s: RecoverySummary): string {
  const parts = [`resumed ${s.resumed.length} run${s.resumed.length === 1 ? '' : 's'}`];
  if (s.retried.length > 0) parts.push(`${s.retried.length} interrupted step${s.retried.length === 1 ? '' : 's'} run again`);
  if (s.outcomeUnknown.length > 0) parts.push(`${s.outcomeUnknown.length} parked with outcome unknown (${s.outcomeUnknown.map((o) => `${o.runId}/${o.step}`).join(', ')})`);
  parts.push(`${s.parked} still parked waiting for the operator`);
  if (s.vault.completed > 0) parts.push(`${s.vault.completed} interrupted vault write${s.vault.completed === 1 ? '' : 's'} completed`);
  if (s.vault.failed > 0) parts.push(`${s.vault.failed} interrupted vault write${s.vault.failed === 1 ? '' : 's'} found changed and reported (kowalski vault writes)`);
  if (s.killedProcesses > 0) parts.push(`${s.killedProcesses} leftover process${s.killedProcesses === 1 ? '' : 'es'} killed`);
  if (s.failed.length > 0) parts.push(`${s.failed.length} could not be replayed: ${s.failed.map((f) => `${f.runId}: ${f.message}`).join('; ')}`);
  return `recovery: ${parts.join('; ')}`;
}
