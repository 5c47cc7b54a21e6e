/**
 * A `send` step's delivery (steps/kinds/send.ts asks for it): its adapter, recipient and
 * subject filled with the run's answers, day and id, then sent through the configured
 * adapter (engine/adapters, registry.ts `send`). At most once per run and step: the intent
 * is committed to `step_sends` before the send and the outcome after, so an attempt after a
 * crash gets back a delivery that was made (`sent`), and refuses to send again when one was
 * begun whose outcome is not known (KW_ERR_SEND_OUTCOME_UNKNOWN): a message twice in a
 * channel is worse than one the operator sends again with a new run. A refusal (nothing was
 * delivered) may be tried again by a later attempt.
 */
import { createHash } from 'node:crypto';
import { KowalskiError, messageOf } from '../../core/index.js';
import type { ErrorCode, SendSpec } from '../../core/index.js';
import { fillStepField } from '../../core/step-fields.js';
import type { SendAnswer } from '../../steps/index.js';
import type { OutboundMessage, OutboundReceipt } from '../adapters/index.js';
import type { CrashHook } from '../base/crash.js';
import type { StepSendQueries, StepSendRow } from '../store/sql/step-sends.js';

export interface StepSendDeps {
  queries: StepSendQueries;
  send(adapter: string, message: OutboundMessage): Promise<OutboundReceipt>;
  /** The run's answers and when it was created, ms (its `{{date}}`). */
  runOf(runId: string): { input: Readonly<Record<string, string>>; createdAt: number } | undefined;
  now(): number;
  crash: CrashHook;
}

/** Errors that come before anything is handed to the service: nothing was sent. */
const NOT_SENT: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'KW_ERR_SEND_REFUSED', 'KW_ERR_ADAPTER_NOT_FOUND', 'KW_ERR_ADAPTER_NO_OUTBOUND', 'KW_ERR_ADAPTER_DISABLED', 'KW_ERR_ADAPTER_CONFIG', 'KW_ERR_CONFIG_INVALID',
]);

export async function sendStepMessage(deps: StepSendDeps, at: { runId: string; step: string }, spec: SendSpec, text: string): Promise<SendAnswer> {
  const run = deps.runOf(at.runId);
  const values = { input: run?.input ?? {}, date: new Date(run?.createdAt ?? deps.now()).toISOString().slice(0, 10), runId: at.runId };
  const adapter = fillStepField(spec.adapter, values);
  const bytes = Buffer.byteLength(text);
  if (adapter === '') return { status: 'skipped', adapter: '', to: '', earlier: false, bytes };
  const to = fillStepField(spec.to, values);
  const where = `the send step \`${at.step}\` of run ${at.runId}`;
  if (to === '') throw new KowalskiError('KW_ERR_INPUT_INVALID', `${where} has no recipient: its to ("${spec.to}") is empty once filled in; give the input it names`);
  const subject = spec.subject === undefined ? undefined : fillStepField(spec.subject, values);

  const earlier = deps.queries.ofStep(at.runId, at.step);
  if (earlier !== undefined && earlier.state !== 'refused') return fromEarlier(earlier, where);
  const sha256 = createHash('sha256').update(text).digest('hex');
  if (!deps.queries.begin({ runId: at.runId, step: at.step, adapter, target: to, bytes, sha256, at: deps.now() })) {
    return fromEarlier(deps.queries.ofStep(at.runId, at.step)!, where);
  }
  deps.crash('send-after-intent');
  let receipt: OutboundReceipt;
  try {
    receipt = await deps.send(adapter, { to, text, key: `run:${at.runId}:${at.step}`, ...(subject === undefined || subject === '' ? {} : { subject }) });
  } catch (err) {
    if (err instanceof KowalskiError && NOT_SENT.has(err.code)) {
      deps.queries.finish(at.runId, at.step, 'refused', null, messageOf(err), deps.now());
      throw err;
    }
    deps.queries.finish(at.runId, at.step, 'unknown', null, messageOf(err), deps.now());
    throw unknown(where, adapter, to, messageOf(err), err);
  }
  deps.crash('send-after-delivery');
  deps.queries.finish(at.runId, at.step, 'sent', receipt.messageId ?? null, null, deps.now());
  return { status: 'sent', adapter, to, earlier: false, bytes, ...(receipt.messageId === undefined ? {} : { messageId: receipt.messageId }) };
}

/** An earlier attempt's delivery: given back when it was made, refused when its outcome is not known. */
function fromEarlier(row: StepSendRow, where: string): SendAnswer {
  if (row.state === 'sent') {
    return { status: 'sent', adapter: row.adapter, to: row.target, earlier: true, bytes: row.bytes, ...(row.message_id === null ? {} : { messageId: row.message_id }) };
  }
  const why = row.state === 'sending' ? 'kowalski stopped while it was being sent' : (row.error ?? 'the service did not answer');
  throw unknown(where, row.adapter, row.target, why);
}

function unknown(where: string, adapter: string, to: string, why: string, cause?: unknown): KowalskiError {
  return new KowalskiError('KW_ERR_SEND_OUTCOME_UNKNOWN',
    `${where} began sending through the adapter "${adapter}" to ${to}, but whether it arrived is not known (${why}); it is not sent again: check ${to}, and start a new run to send it again`,
    cause === undefined ? {} : { cause });
}
