/**
 * Named crash points for durability tests: `KOWALSKI_CRASH_AT=point:k[,point:k]`
 * kills the process with SIGKILL on the k-th time `point` is reached. Unset, it costs
 * one map lookup.
 */
export type CrashPoint =
  | 'before-commit' // a batch is about to be committed
  | 'after-commit' // committed, effects not yet performed
  | 'after-dispatch' // a step was handed to its worker
  | 'after-spawn-commit' // a command's process group is recorded, before `go`
  | 'before-result-commit' // a step's result arrived, not yet committed
  | 'review-before-edit-applied' // an edited review's events are committed, its step not yet handed to a worker (the file is not replaced yet)
  | 'chat-after-message' // a chat message's turn.started is committed, the turn not yet begun
  | 'chat-in-model-call' // a chat model call's model.started is committed, the call not yet answered (any agent)
  | 'chat-in-subagent-call' // the same, for a delegated agent's call only
  | 'chat-after-tool-intent' // a tool call's intent is committed, the tool not yet run
  | 'chat-before-tool-result' // a tool has answered, its result not yet committed
  | 'vault-after-intent' // a vault write's row is committed pending, the note not yet written
  | 'vault-after-file' // the note is renamed into place, the write's result not yet committed
  | 'send-after-intent' // a send step's delivery is committed `sending`, nothing handed to the adapter yet
  | 'send-after-delivery' // the adapter delivered the message, the delivery's result not yet committed
  | 'call-after-answer' // an mcp_call step's tool answered and its answer is committed, the step not yet given it
  | 'adapter-after-accept' // an inbound message's record is committed (the channel may be answered), its turn not yet begun
  | 'adapter-before-reply' // an inbound message's answer is recorded, the reply not yet sent
  | 'adapter-after-reply'; // the adapter sent an inbound message's reply, its `replied` not yet recorded

export type CrashHook = (point: CrashPoint) => void;

export function crashHookFrom(spec: string | undefined): CrashHook {
  if (spec === undefined || spec.trim() === '') return () => undefined;
  const targets = new Map<string, number>();
  for (const part of spec.split(',')) {
    const [name, k] = part.split(':');
    if (name !== undefined && name !== '') targets.set(name.trim(), Math.max(1, Number(k ?? '1') || 1));
  }
  const hits = new Map<string, number>();
  return (point) => {
    const target = targets.get(point);
    if (target === undefined) return;
    const n = (hits.get(point) ?? 0) + 1;
    hits.set(point, n);
    if (n === target) process.kill(process.pid, 'SIGKILL');
  };
}
