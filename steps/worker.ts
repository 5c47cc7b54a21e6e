/**
 * The Piscina task entry: runs one step in a worker thread. Messages go over the
 * runner's step bus (bus.ts), addressed by the step's token; the step's result is the task's return value (never a
 * rejection: errors are PlainError data), with the count of messages posted before it.
 */
import { StepBusClient } from './bus.js';
import { createKindLoader, startStep } from './context.js';
import type { StepChannel } from './context.js';
import type { EngineMessage, StepResult, StepTask } from './protocol.js';

/** What the runner posts to the pool. */
export interface WorkerTask {
  task: StepTask;
  /** Absolute path of the kind's module. */
  kindModule: string;
  /** The name of the runner's step bus (see bus.ts). */
  bus: string;
}

/** What a task returns to the pool: the result, and how many messages were posted before it. */
export interface WorkerOutput {
  result: StepResult;
  /** The runner has the whole story once it has received this many bus messages. */
  messages: number;
}

/** One handler per worker thread; it keeps that thread's cache of imported kind modules. */
function createWorkerHandler(): (input: WorkerTask) => Promise<WorkerOutput> {
  const load = createKindLoader();
  const buses = new Map<string, StepBusClient>();
  return async ({ task, kindModule, bus }) => {
    let client = buses.get(bus);
    if (client === undefined) {
      client = new StepBusClient(bus);
      buses.set(bus, client);
    }
    const on = client;
    let messages = 0;
    const channel: StepChannel = {
      send: (message) => {
        messages += 1;
        on.post(task.token, message);
      },
      onMessage: (handler: (message: EngineMessage) => void) => on.onMessage(task.token, handler),
    };
    try {
      const result = await startStep(task, kindModule, channel, load).result;
      return { result, messages };
    } finally {
      on.forget(task.token);
    }
  };
}

export default createWorkerHandler();
