/**
 * The chat session of an `agent` step: its id is made from the run and the step, so an
 * attempt after a crash finds the session (and the turn) the earlier attempt made.
 */
import crypto from 'node:crypto';

export function stepSessionId(runId: string, step: string): string {
  const digest = BigInt(`0x${crypto.createHash('sha256').update(`${runId}\0${step}`).digest('hex').slice(0, 30)}`);
  return `cs${digest.toString(36)}`;
}
