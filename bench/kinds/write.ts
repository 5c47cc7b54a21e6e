/** The benchmarks' artifact step kind: writes a small Markdown file to its output, for a review step to park on. */
import fs from 'node:fs';
import path from 'node:path';
import type { StepContext, StepResult } from '../../steps/index.js';

export default function write(ctx: StepContext): Promise<StepResult> {
  const out = path.join(ctx.task.workdir, ctx.task.step.output);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `# ${ctx.task.step.name}\n\nrun ${ctx.task.runId}\n`);
  return Promise.resolve({ outcome: 'pass', artifact: ctx.task.step.output });
}
