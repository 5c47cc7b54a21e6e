/**
 * Entry of an isolated step: a child process of kowalski (forked with an IPC channel,
 * in its own process group). It receives one `task`, then `go`/`cancel` messages, and
 * answers with the same StepMessages a worker thread sends. When the IPC channel
 * disconnects (the engine went away) it SIGKILLs the process groups the step started
 * and exits at once: nobody is left to take the step's result, and a command that went
 * on would only finish after its engine died (recovery runs the step again anyway).
 * Exiting also closes the sentinels of exec.ts, which kill any group not yet reported.
 */
import { createKindLoader, startStep } from './context.js';
import type { BuiltContext, StepChannel } from './context.js';
import { killGroup } from './kill-group.js';
import type { ChildInbound, EngineMessage, StepMessage, StepResult } from './protocol.js';

function main(): void {
  const send = process.send?.bind(process);
  if (send === undefined) {
    process.stderr.write('kowalski step child: start me with child_process.fork (no IPC channel)\n');
    process.exit(2);
  }
  const listeners: Array<(message: EngineMessage) => void> = [];
  const channel: StepChannel = {
    send: (message: StepMessage) => {
      // With a callback, a send on a closing channel reports to it instead of throwing.
      if (process.connected) send(message, undefined, {}, () => undefined);
    },
    onMessage: (handler) => listeners.push(handler),
  };
  let built: BuiltContext | undefined;
  let running: Promise<StepResult> | undefined;

  process.on('message', (raw: ChildInbound) => {
    if (raw.type !== 'task') {
      for (const listener of listeners) listener(raw);
      return;
    }
    if (running !== undefined) return; // one task per child
    const started = startStep(raw.task, raw.kindModule, channel, createKindLoader());
    built = started.built;
    running = started.result;
    void running.then((result) => {
      if (!process.connected) return;
      send({ type: 'done', result } satisfies StepMessage, undefined, {}, () => process.exit(0));
    });
  });

  process.on('disconnect', () => {
    for (const pgid of built?.pgids ?? []) killGroup(pgid, 'SIGKILL');
    process.exit(1);
  });
}

main();
