/**
 * The Piscina task entry: runs one step in a worker thread. Messages go over the
 * runner's step bus (bus.ts), addressed by the step's token; the step's result is the task's return value (never a
 * rejection: errors are PlainError data), with the count of messages posted before it.
 */
import { threadId } from 'node:worker_threads';
import type { HordeDef } from '../core/index.js';
import { StepBusClient } from './bus.js';
import { createKindLoader, startStep } from './context.js';
import type { StepChannel } from './context.js';
import { HORDES_KEPT } from './protocol.js';
import type { EngineMessage, StepResult, StepTask } from './protocol.js';
import { claimSlot } from './thread-slots.js';
import type { Slot } from './thread-slots.js';

/**
 * What the runner posts to the pool: the task without its horde, and the horde as JSON
 * text under a key. The runner serializes a run's horde once; copying a string to the
 * thread costs a fraction of cloning the object, and the thread parses it only the
 * first time it sees the key.
 */
export interface WorkerTask {
  task: Omit<StepTask, 'horde'>;
  hordeKey: string;
  hordeJson: string;
  /** Absolute path of the kind's module. */
  kindModule: string;
  /** The name of the runner's step bus (see bus.ts). */
  bus: string;
  /** Where this thread writes its id as the step begins (see thread-slots.ts). */
  slot: Slot;
}

/** What a task returns to the pool: the result, and how many messages were posted before it. */
export interface WorkerOutput {
  result: StepResult;
  /** The runner has the whole story once it has received this many bus messages. */
  messages: number;
}

/** One handler per worker thread; it keeps that thread's caches: kind modules, hordes. */
function createWorkerHandler(): (input: WorkerTask) => Promise<WorkerOutput> {
  const load = createKindLoader();
  const buses = new Map<string, StepBusClient>();
  const hordes = new Map<string, HordeDef>();
  const hordeOf = (key: string, json: string): HordeDef => {
    let horde = hordes.get(key);
    if (horde === undefined) {
      horde = JSON.parse(json) as HordeDef;
      if (hordes.size >= HORDES_KEPT) hordes.delete(hordes.keys().next().value!);
      hordes.set(key, horde);
    }
    return horde;
  };
  return async ({ task: slim, hordeKey, hordeJson, kindModule, bus, slot }) => {
    // Cancelled while it waited for this thread: it does not begin (the runner has its result already).
    if (!claimSlot(slot, threadId)) return { result: { outcome: 'fail', summary: 'cancelled before it began' }, messages: 0 };
    let client = buses.get(bus);
    if (client === undefined) {
      client = new StepBusClient(bus);
      buses.set(bus, client);
    }
    const on = client;
    const task: StepTask = { ...slim, horde: hordeOf(hordeKey, hordeJson) };
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
