/**
 * Live progress of one run on the terminal: a redrawn step list with states and
 * durations on a TTY; one plain line per event otherwise (logs, CI, pipes).
 */
import type { Engine, EngineEventMap, RunView } from '../../engine/index.js';
import { approveCommand } from './common.js';

const MARK: Record<string, string> = { pending: '·', awaiting_approval: '⏸', running: '▶', passed: '✔', failed: '✘', interrupted: '↻', cancelled: '■' };

function seconds(ms: number | null): string {
  return ms === null ? '' : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 0)}s`;
}

export function describeParked(view: RunView): string {
  const lines: string[] = [];
  for (const p of view.pending) {
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
  return lines.join('\n');
}

type RunEvent = EngineEventMap['run:event'];

/**
 * Record every run event from now on. `startRun`, `approve` and `deny` commit their
 * first events (run.created, the first step.started, approval.granted …) before they
 * return, so a follower attached afterwards would never print them: buffer them here
 * and hand the buffer to `followRun`.
 */
export function recordEvents(engine: Engine): { events: RunEvent[]; off: () => void } {
  const events: RunEvent[] = [];
  const off = engine.on('run:event', (e) => void events.push(e));
  return { events, off };
}

/**
 * Follow a run until the returned function is called; prints to stderr so stdout stays for --json.
 * `missed` (from `recordEvents`) is printed first and its recording stopped.
 */
export function followRun(engine: Engine, runId: string, out: NodeJS.WriteStream = process.stderr, missed?: { events: RunEvent[]; off: () => void }): () => void {
  const tty = out.isTTY === true;
  let drawn = 0;
  const draw = (): void => {
    const view = engine.getRun(runId);
    const now = Date.now();
    const lines = view.steps.map((s) => {
      const running = s.state === 'running' ? view.attempts.find((a) => a.step === s.name && a.attempt === s.attempt) : undefined;
      const dur = running === undefined ? seconds(s.durationMs) : seconds(now - running.startedAt);
      const attempt = s.attempt > 1 ? ` #${s.attempt}` : '';
      return `  ${MARK[s.state] ?? '?'} ${s.name.padEnd(20)} ${s.state.padEnd(17)}${attempt.padEnd(4)} ${dur}${s.summary === null ? '' : `  ${s.summary}`}`;
    });
    lines.unshift(`run ${runId} (${view.run.hordeId}): ${view.run.state}`);
    if (drawn > 0) out.write(`\x1b[${drawn}A\x1b[J`);
    out.write(`${lines.join('\n')}\n`);
    drawn = lines.length;
  };
  if (tty) draw();
  const print = ({ stored, state }: RunEvent): void => {
    if (stored.runId !== runId) return;
    if (tty) {
      draw();
      return;
    }
    const e = stored.event;
    const t = new Date(stored.at).toTimeString().slice(0, 8);
    switch (e.type) {
      case 'run.created': out.write(`[${t}] run ${runId} created (${e.hordeId})\n`); break;
      case 'step.started': out.write(`[${t}] ${e.step} #${e.attempt} started\n`); break;
      case 'step.finished': out.write(`[${t}] ${e.step} #${e.attempt} ${e.outcome === 'pass' ? 'passed' : 'failed'} in ${seconds(e.durationMs)}${e.summary === undefined ? '' : ` (${e.summary})`}${e.error === undefined ? '' : `: ${e.error.message} [${e.error.code}]`}\n`); break;
      case 'step.interrupted': out.write(`[${t}] ${e.step} #${e.attempt} was interrupted\n`); break;
      case 'approval.requested': out.write(`[${t}] ${e.step} waits for approval\n`); break;
      case 'approval.granted': out.write(`[${t}] ${e.step} approved by ${e.by}\n`); break;
      case 'approval.denied': out.write(`[${t}] ${e.step} denied by ${e.by}: ${e.reason}\n`); break;
      case 'run.cancelled': out.write(`[${t}] run cancelled: ${e.reason}\n`); break;
      case 'step.spawned': break;
    }
    if (state === 'succeeded' || state === 'failed' || state === 'cancelled') out.write(`[${t}] run ${state}\n`);
  };
  const off = engine.on('run:event', print);
  if (missed !== undefined) {
    missed.off();
    if (!tty) for (const e of missed.events) print(e);
  }
  const ticker = tty ? setInterval(draw, 500) : undefined;
  return () => {
    off();
    if (ticker !== undefined) clearInterval(ticker);
    if (tty) draw();
  };
}
