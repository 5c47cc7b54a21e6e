/**
 * A run as an agent is told it (`run_horde`): its state in words, what it delivered when it
 * succeeded (the delivery's text, bounded), why it failed, or what it is parked on — and where
 * the operator sees it. Words for a model: plain sentences, ids quoted as they are.
 */
import fs from 'node:fs';
import path from 'node:path';
import { formatBytes } from '../../core/index.js';
import type { Delivery, RunView } from '../../contract/runs.js';

/** Longest delivery text given back, in characters: the run's page has the whole file. */
const MAX_DELIVERY_CHARS = 8000;
/** Deliveries read as text, by extension; any other is named, not read. */
const TEXT_EXTENSIONS = new Set(['.md', '.markdown', '.txt', '.csv', '.tsv', '.json', '.html', '.htm', '.xml', '.yaml', '.yml', '.toml', '.log']);

/** Where the operator sees a run: the app's address when a server announced one, else the Runs screen. */
function runWhere(runId: string, appUrl: string | null): string {
  return appUrl === null ? `the Runs screen (run ${runId})` : `${appUrl.replace(/\/+$/, '')}/#/runs/${runId}`;
}

function deliveryText(delivery: Delivery): string {
  const ext = path.extname(delivery.artifact).toLowerCase();
  let size: number;
  try {
    size = fs.statSync(delivery.path).size;
  } catch {
    return `Its delivery ${delivery.artifact} is gone from the run's folder.`;
  }
  if (!TEXT_EXTENSIONS.has(ext)) return `Its delivery is ${delivery.artifact} (${formatBytes(size)}), not text: the operator opens it on the run's page.`;
  // Read no more than can be given back (4 bytes a character at most in UTF-8).
  const fd = fs.openSync(delivery.path, 'r');
  let text: string;
  try {
    const buf = Buffer.alloc(Math.min(size, MAX_DELIVERY_CHARS * 4));
    text = buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
  const cut = text.length > MAX_DELIVERY_CHARS || size > MAX_DELIVERY_CHARS * 4;
  const shown = cut ? `${text.slice(0, MAX_DELIVERY_CHARS)}\n\n[cut at ${MAX_DELIVERY_CHARS} characters of ${formatBytes(size)}: the whole file is on the run's page]` : text;
  return `Its delivery, ${delivery.artifact}:\n\n${shown}`;
}

function parkedOn(view: RunView): string {
  if (view.budget.parked !== null) return `its budget ran out (${view.budget.parked.over.join(', ')})`;
  const steps = [...new Set(view.pending.map((a) => a.step))];
  if (steps.length === 0) return 'the operator';
  const review = view.pending.some((a) => a.artifact !== null);
  return `the operator's ${review ? 'review' : 'approval'} of step ${steps.map((s) => `"${s}"`).join(', ')}`;
}

function failure(view: RunView): string {
  const step = view.steps.find((s) => s.state === 'failed' && s.error !== null);
  const code = step?.error?.code ?? view.run.errorCode;
  const message = step?.error?.message ?? view.run.error;
  const where = step === undefined ? '' : ` at step "${step.name}"`;
  return `failed${where}${code === null || code === undefined ? '' : `: ${code}`}${message === null || message === undefined ? '' : ` ${message}`}`;
}

/**
 * What the agent reads. `waitedSecs` is how long the call waited: a run still going after it
 * goes on without the agent.
 */
export function runOutcomeText(view: RunView, appUrl: string | null, waitedSecs: number): string {
  const head = `Run ${view.run.id} of horde "${view.run.hordeId}"`;
  const where = runWhere(view.run.id, appUrl);
  switch (view.run.state) {
    case 'succeeded':
      return `${head} succeeded. ${view.delivery === null ? 'It delivered no file.' : deliveryText(view.delivery)}`;
    case 'failed':
      return `${head} ${failure(view)}. The operator sees it at ${where}.`;
    case 'cancelled':
      return `${head} was cancelled. The operator sees it at ${where}.`;
    case 'awaiting_input':
      return `${head} is parked, waiting for the operator: it waits on ${parkedOn(view)}. You cannot approve it; the operator decides at ${where}. Call run_horde with {"run_id": "${view.run.id}"} later to see how it ended.`;
    case 'queued':
    case 'running':
      return `${head} is still running after ${waitedSecs} s; it goes on without you. The operator sees it at ${where}. Call run_horde with {"run_id": "${view.run.id}"} to wait for it again.`;
  }
}
