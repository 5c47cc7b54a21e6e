/**
 * Clean-ups of one test, run newest first in one `after` hook. node:test runs `after` hooks
 * in registration order, so a temp folder registered first would be removed while the
 * engine, server or child made in it still writes there; through this stack the engine
 * closes, then the folder goes.
 */
import type { TestContext } from 'node:test';

const stacks = new WeakMap<TestContext, (() => unknown)[]>();

export function cleanups(t: TestContext): (fn: () => unknown) => void {
  let fns = stacks.get(t);
  if (fns === undefined) {
    const stack: (() => unknown)[] = [];
    fns = stack;
    stacks.set(t, stack);
    t.after(async () => {
      const errors: unknown[] = [];
      for (const fn of stack.reverse()) {
        try {
          await fn();
        } catch (err) {
          errors.push(err);
        }
      }
      if (errors.length > 0) throw errors[0];
    });
  }
  const stack = fns;
  return (fn) => void stack.push(fn);
}
