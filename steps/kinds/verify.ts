/**
 * `verify`: runs the step's verify_command (exactly the approved one) and passes or
 * fails by its exit status. A non-zero exit is a `fail` outcome, not an error.
 */
import { KowalskiError } from '../../core/index.js';
import { fence, inlineCode, writeArtifact } from '../artifact.js';
import type { CapturedOutput } from '../capture.js';
import { approvedCommand, commandEnv } from '../command.js';
import type { ExecResult } from '../exec.js';
import type { StepContext, StepResult } from '../protocol.js';
import { runCommand } from '../spawner-client.js';

function outcomeLine(result: ExecResult): string {
  return result.signal !== null ? `killed by ${result.signal}` : `exit ${result.exitCode ?? '?'}`;
}

function streamSection(title: string, out: CapturedOutput): string {
  const note = out.droppedBytes > 0 ? ` (${out.totalBytes} bytes, ${out.droppedBytes} dropped from the middle)` : ` (${out.totalBytes} bytes)`;
  return `## ${title}${note}\n\n${out.totalBytes === 0 ? '_(empty)_' : fence(out.text, 'text')}\n`;
}

export default async function verify(ctx: StepContext): Promise<StepResult> {
  const { task } = ctx;
  const spec = approvedCommand(task);
  const command = spec.argv[2] ?? spec.argv.join(' ');
  ctx.progress(`running ${command}`);
  let result: ExecResult;
  try {
    result = await runCommand(spec, {
      spawner: task.spawner,
      lifeline: task.lifeline,
      env: commandEnv(spec, task),
      signal: ctx.signal,
      spawned: (pgid) => ctx.spawned(pgid),
      outputBytes: task.limits.outputBytes,
    });
  } catch (err) {
    if (err instanceof KowalskiError && err.code === 'KW_ERR_COMMAND_SPAWN') {
      throw new KowalskiError(err.code, err.message, { where: { file: task.step.file, key: 'verify_cwd' } });
    }
    throw err;
  }
  if (result.aborted) {
    throw new KowalskiError('KW_ERR_STEP_CANCELLED', `the command of step \`${task.step.name}\` was stopped`);
  }
  const passed = result.exitCode === 0;
  const summary = outcomeLine(result);
  const markdown = [
    `# Verify: ${task.step.displayName}`,
    '',
    `**${passed ? 'PASS' : 'FAIL'}** — ${summary}`,
    '',
    `- command: ${inlineCode(command)}`,
    `- cwd: ${inlineCode(spec.cwd)}`,
    `- exit code: ${result.exitCode ?? `none (${result.signal ?? 'unknown'})`}`,
    `- duration: ${result.durationMs} ms`,
    `- attempt: ${task.attempt}`,
    `- command hash: ${inlineCode(spec.hash)}`,
    '',
    streamSection('stdout', result.stdout),
    streamSection('stderr', result.stderr),
  ].join('\n');
  const artifact = writeArtifact(task, markdown);
  return { outcome: passed ? 'pass' : 'fail', artifact, summary };
}
