/**
 * The Piscina task entry: runs one step in a worker thread. Messages go over the
 * MessagePort passed in the task; the step's result is the task's return value (never a
 * rejection: errors are PlainError data), with the count of messages posted before it.
 */
import type { MessagePort } from 'node:worker_threads';
import { createKindLoader, startStep } from './context.js';
import type { StepChannel } from './context.js';
import type { EngineMessage, StepResult, StepTask } from './protocol.js';

/** What the runner posts to the pool. */
export interface WorkerTask {
  task: StepTask;
  /** Absolute path of the kind's module. */
  kindModule: string;
  /** Our end of the step's channel (transferred). */
  port: MessagePort;
}

/** What a task returns to the pool: the result, and how many messages were posted before it. */
export interface WorkerOutput {
  result: StepResult;
  /** The runner has the whole story once it has received this many port messages. */
  messages: number;
}

/** One handler per worker thread; it keeps that thread's cache of imported kind modules. */
function createWorkerHandler(): (input: WorkerTask) => Promise<WorkerOutput> {
  const load = createKindLoader();
  return async ({ task, kindModule, port }) => {
    let messages = 0;
    const channel: StepChannel = {
      send: (message) => {
        messages += 1;
        port.postMessage(message);
      },
      onMessage: (handler) => port.on('message', (message: EngineMessage) => handler(message)),
    };
    const result = await startStep(task, kindModule, channel, load).result;
    port.close();
    return { result, messages };
  };
}

export default createWorkerHandler();
