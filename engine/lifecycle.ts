/**
 * The parts an engine has made, closed in reverse order: a part closes before what it was
 * built on. createEngine adds each part as it makes it, so an engine that fails half-way
 * through its start closes exactly what it had made; a part whose close fails does not keep
 * the others from closing (the first failure is thrown once all have closed).
 */
import { messageOf } from '../core/index.js';

interface Part {
  name: string;
  close(): unknown;
}

export class Lifecycle {
  private readonly parts: Part[] = [];
  private closing: Promise<void> | undefined;

  /** `part`, closed with `close` when the lifecycle closes: before everything added earlier. */
  add<T>(name: string, part: T, close: (part: T) => unknown): T {
    if (this.closing !== undefined) throw new Error(`${name} was made while the engine was closing`);
    this.parts.push({ name, close: () => close(part) });
    return part;
  }

  /**
   * A place in the order for a part made later: it closes where it was reserved (after
   * everything added since), once `set`; a place never set closes nothing.
   */
  reserve<T>(name: string, close: (part: T) => unknown): { set(part: T): T } {
    let made: T | undefined;
    let set = false;
    this.parts.push({ name, close: () => (set ? close(made as T) : undefined) });
    return {
      set(part) {
        made = part;
        set = true;
        return part;
      },
    };
  }

  /** Whether `close` was called: nothing more may be made. */
  get closed(): boolean {
    return this.closing !== undefined;
  }

  /** Close every part, the last added first; idempotent. */
  close(): Promise<void> {
    this.closing ??= this.closeAll();
    return this.closing;
  }

  private async closeAll(): Promise<void> {
    let first: Error | undefined;
    for (const part of [...this.parts].reverse()) {
      try {
        await part.close();
      } catch (err) {
        first ??= new Error(`closing ${part.name}: ${messageOf(err)}`, { cause: err });
      }
    }
    if (first !== undefined) throw first;
  }
}
