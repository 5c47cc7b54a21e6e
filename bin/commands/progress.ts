/**
 * Live progress of one run on the terminal: a redrawn step list with states and
 * durations on a TTY; one plain line per event otherwise (logs, CI, pipes). The events
 * come from either source — an embedded engine or the server's websocket — in the same
 * shape, so what is printed does not depend on where the run is.
 */
import type { RunState, RunView, StoredEvent } from '../../engine/index.js';
import { FINAL_RUN_STATES } from '../../engine/index.js';
import { BUDGET_KEYS, BUDGET_LABELS, describeOver } from '../../core/index.js';
import { approveCommand } from './common.js';

/** One committed event of the run, with the run's state right after it (`null` when it was read from the log rather than heard live). */
export interface FollowedEvent {
  stored: StoredEvent;
  state: RunState | null;
}

export interface ProgressPrinter {
  event(e: FollowedEvent): void;
  /** Stop printing; `state` is where the run settled (undefined when following it failed). Prints the run's end if no event said it. */
  end(state: RunState | undefined): Promise<void>;
}

const MARK: Record<string, string> = { pending: '·', awaiting_approval: '⏸', running: '▶', passed: '✔', failed: '✘', interrupted: '↻', cancelled: '■' };
const TTY_REDRAW_MS = 500;

function seconds(ms: number | null): string {
  return ms === null ? '' : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 0)}s`;
}

export function describeParked(view: RunView): string {
  const lines: string[] = [];
  for (const p of view.pending) {
    if (p.reason === 'review') {
      lines.push(`step "${p.step}" waits for your review of ${p.artifact ?? '?'} (in ${view.workdir}):`);
      lines.push(`  hash: ${p.hash}`);
      lines.push(`read:    kowalski review ${view.run.id} --step ${p.step}`);
      lines.push(`approve: ${approveCommand(view.run.id, p.step)} --hash ${p.hash}`);
      lines.push(`edit:    kowalski review ${view.run.id} --step ${p.step} --edit`);
      lines.push(`deny:    kowalski deny ${view.run.id} --step ${p.step} --reason "…"`);
      continue;
    }
    const why = p.reason === 'outcome_unknown'
      ? `step "${p.step}" was interrupted and is not safe to repeat: its outcome is unknown. Check the project, then approve to run it again or deny to fail it.`
      : `step "${p.step}" wants to run a command:`;
    lines.push(why);
    lines.push(`  argv: ${JSON.stringify(p.command.argv)}`);
    lines.push(`  cwd:  ${p.command.cwd}`);
    lines.push(`  env:  ${p.command.env.join(' ')}`);
    lines.push(`  hash: ${p.hash}`);
    lines.push(`approve: ${approveCommand(view.run.id, p.step)}`);
    lines.push(`deny:    kowalski deny ${view.run.id} --step ${p.step} --reason "…"`);
  }
  const parked = view.budget.parked;
  if (parked !== null && view.run.state === 'awaiting_input') {
    lines.push(`run ${view.run.id} is parked: its budget is spent (${describeOver(parked.over, view.budget.limits, parked.spent)}).`);
    lines.push(...budgetLines(view.budget));
    lines.push(`raise:  kowalski budget ${view.run.id} ${parked.over.map((k) => `--${k.replace('_', '-')} <more>`).join(' ')}`);
    lines.push(`cancel: kowalski cancel ${view.run.id}`);
  }
  return lines.join('\n');
}

/** One line per limit kind: spent, and the limit when there is one. */
export function budgetLines(budget: RunView['budget']): string[] {
  return BUDGET_KEYS.map((k) => {
    const limit = budget.limits[k];
    const spent = Math.round(budget.spent[k] * 10_000) / 10_000;
    const unpriced = k === 'cost_usd' && budget.spent.unpriced > 0 ? ` (${budget.spent.unpriced} model calls of unknown price not counted)` : '';
    return `  ${BUDGET_LABELS[k].padEnd(14)} ${String(spent).padStart(10)}${limit === undefined ? '   no limit' : ` of ${limit}`}${unpriced}`;
  });
}

/** The plain line for an event, or undefined for events that are not shown. */
function eventLine(runId: string, e: StoredEvent['event']): string | undefined {
  switch (e.type) {
    case 'run.created': return `run ${runId} created (${e.hordeId})`;
    case 'step.started': return `${e.step} #${e.attempt} started`;
    case 'step.finished': return `${e.step} #${e.attempt} ${e.outcome === 'pass' ? 'passed' : 'failed'} in ${seconds(e.durationMs)}${e.summary === undefined ? '' : ` (${e.summary})`}${e.error === undefined ? '' : `: ${e.error.message} [${e.error.code}]`}`;
    case 'step.interrupted': return `${e.step} #${e.attempt} was interrupted`;
    case 'approval.requested': return e.reason === 'review' ? `${e.step} waits for review of ${e.artifact?.path ?? '?'}` : `${e.step} waits for approval`;
    case 'artifact.edited': return `${e.step}: ${e.path} edited by ${e.by}`;
    case 'approval.granted': return `${e.step} approved by ${e.by}`;
    case 'approval.denied': return `${e.step} denied by ${e.by}: ${e.reason}`;
    case 'run.cancelled': return `run cancelled: ${e.reason}`;
    case 'budget.exceeded': return `run parked: its budget is spent (${describeOver(e.over, e.limits, e.spent)})`;
    case 'budget.raised': return `budget raised by ${e.by}: ${Object.entries(e.limits).map(([k, v]) => `${k} = ${v}`).join(', ')}`;
    case 'step.spawned': return undefined;
  }
}

function linePrinter(runId: string, out: NodeJS.WritableStream): ProgressPrinter {
  const clock = (at: number): string => `[${new Date(at).toTimeString().slice(0, 8)}]`;
  let lastAt: number | undefined;
  let ended = false;
  return {
    event({ stored, state }) {
      if (stored.runId !== runId) return;
      lastAt = stored.at;
      const line = eventLine(runId, stored.event);
      if (line !== undefined) out.write(`${clock(stored.at)} ${line}\n`);
      if (state !== null && FINAL_RUN_STATES.has(state)) {
        out.write(`${clock(stored.at)} run ${state}\n`);
        ended = true;
      }
    },
    // The run may have ended before it was followed (its last events then come from the log, without a state).
    async end(state) {
      if (!ended && state !== undefined && FINAL_RUN_STATES.has(state)) out.write(`${clock(lastAt ?? Date.now())} run ${state}\n`);
      ended = true;
    },
  };
}

function ttyPrinter(runId: string, view: () => Promise<RunView>, out: NodeJS.WritableStream): ProgressPrinter {
  let drawn = 0;
  const render = (v: RunView): void => {
    const now = Date.now();
    const lines = v.steps.map((s) => {
      const running = s.state === 'running' ? v.attempts.find((a) => a.step === s.name && a.attempt === s.attempt) : undefined;
      const dur = running === undefined ? seconds(s.durationMs) : seconds(now - running.startedAt);
      const attempt = s.attempt > 1 ? ` #${s.attempt}` : '';
      return `  ${MARK[s.state] ?? '?'} ${s.name.padEnd(20)} ${s.state.padEnd(17)}${attempt.padEnd(4)} ${dur}${s.summary === null ? '' : `  ${s.summary}`}`;
    });
    lines.unshift(`run ${runId} (${v.run.hordeId}): ${v.run.state}`);
    if (drawn > 0) out.write(`\x1b[${drawn}A\x1b[J`);
    out.write(`${lines.join('\n')}\n`);
    drawn = lines.length;
  };
  // Draws run one after another (the view may come over the network); a request made while one waits joins it.
  let drawing: Promise<void> = Promise.resolve();
  let queued = false;
  const draw = (): Promise<void> => {
    if (!queued) {
      queued = true;
      drawing = drawing.then(async () => {
        queued = false;
        render(await view());
      }).catch(() => undefined); // a drawing that could not read the run is skipped; following it reports what went wrong
    }
    return drawing;
  };
  void draw();
  const ticker = setInterval(() => void draw(), TTY_REDRAW_MS);
  return {
    event: ({ stored }) => {
      if (stored.runId === runId) void draw();
    },
    async end() {
      clearInterval(ticker);
      await draw();
    },
  };
}

/** Print a run's progress to `out` (stderr by default, so stdout stays for the result and --json). `view` reads the run, for the TTY drawing. */
export function progressPrinter(runId: string, view: () => Promise<RunView>, out: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr): ProgressPrinter {
  return out.isTTY === true ? ttyPrinter(runId, view, out) : linePrinter(runId, out);
}
