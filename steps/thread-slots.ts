/**
 * Which pool thread runs which step, known without a message: each pool step gets a slot
 * in a table of shared memory, and its thread writes its `threadId` there as the step
 * begins. The runner reads the slot to stop that thread by force, and marks a slot
 * cancelled so that a step still waiting in Piscina's queue returns at once when it gets
 * a thread, instead of starting.
 */

/** A slot's value: 0 while its step waits for a thread, a thread's id once it runs there, or this. */
const SLOT_CANCELLED = -1;
/** Slots per table; a runner adds a table when all of its slots are taken. */
const TABLE_SLOTS = 256;

export interface Slot {
  /** Shared with the pool threads (a task carries it: it is shared, not copied). */
  table: Int32Array;
  index: number;
}

/** The thread's side: take the slot for this thread, unless the runner cancelled the step first. */
export function claimSlot(slot: Slot, threadId: number): boolean {
  return Atomics.compareExchange(slot.table, slot.index, 0, threadId) === 0;
}

/** The runner's side. */
export class ThreadSlots {
  private readonly free: Slot[] = [];

  acquire(): Slot {
    if (this.free.length === 0) {
      const table = new Int32Array(new SharedArrayBuffer(TABLE_SLOTS * Int32Array.BYTES_PER_ELEMENT));
      for (let index = TABLE_SLOTS - 1; index >= 0; index--) this.free.push({ table, index });
    }
    return this.free.pop()!;
  }

  /** Once the step's task is over (it returned, or its thread is gone): no thread writes the slot any more. */
  release(slot: Slot): void {
    Atomics.store(slot.table, slot.index, 0);
    this.free.push(slot);
  }

  /** The thread running the slot's step; undefined while it waits for one, or once it was cancelled before it began. */
  threadOf(slot: Slot): number | undefined {
    const value = Atomics.load(slot.table, slot.index);
    return value > 0 ? value : undefined;
  }

  /** Cancel the step if no thread has begun it; true if it never will. */
  cancelIfWaiting(slot: Slot): boolean {
    const value = Atomics.compareExchange(slot.table, slot.index, 0, SLOT_CANCELLED);
    return value === 0 || value === SLOT_CANCELLED;
  }
}
