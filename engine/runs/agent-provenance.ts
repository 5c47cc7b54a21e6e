/**
 * The provenance of a run an agent started with `run_horde`: `agent:<agent>@<call key>`.
 * The call key (`<session>:<turn>:<node>:<seq>:<index>`, engine/chat/turn-run.ts) is the
 * same when the call is made again after a crash, so the run it started is found by its
 * provenance instead of being started twice; the session it names is the conversation the
 * Run page links back to.
 */
import type { ToolCaller } from '../../agents/index.js';
import type { AskedBy } from '../../contract/runs.js';

const PREFIX = 'agent:';

export function agentProvenance(caller: Pick<ToolCaller, 'agent' | 'key'>): string {
  return `${PREFIX}${caller.agent}@${caller.key}`;
}

/** The agent and conversation that started a run, when its provenance is an agent's; else null. */
export function askedByOf(provenance: string): AskedBy | null {
  if (!provenance.startsWith(PREFIX)) return null;
  const at = provenance.indexOf('@', PREFIX.length);
  if (at < 0) return null;
  const agent = provenance.slice(PREFIX.length, at);
  const sessionId = provenance.slice(at + 1).split(':')[0] ?? '';
  return agent === '' || sessionId === '' ? null : { agent, sessionId };
}
