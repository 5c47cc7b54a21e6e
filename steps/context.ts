/**
 * The step side of the protocol, shared by the worker thread and the isolated child:
 * builds a `StepContext` over a small channel, runs the kind, and turns whatever
 * happens into a `StepResult` (errors as plain data; nothing is thrown across).
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { ERROR_CODES, KowalskiError, fromPlainError, isErrorCode, toPlainError, messageOf } from '../core/index.js';
import type { PlainError } from '../core/index.js';
import { makeRunFolders } from './workdir.js';
import type { EngineMessage, StepContext, StepKindRun, StepMessage, StepRequestResults, StepResult, StepTask } from './protocol.js';

/** How a step talks to the engine: the step bus in a worker thread, Node IPC in a child. */
export interface StepChannel {
  send(message: StepMessage): void;
  onMessage(handler: (message: EngineMessage) => void): void;
}

export interface BuiltContext {
  ctx: StepContext;
  /** Process groups the step reported (what to kill if the engine goes away). */
  pgids: number[];
}

export function buildStepContext(task: StepTask, channel: StepChannel): BuiltContext {
  const controller = new AbortController();
  const pgids: number[] = [];
  const waiting: Array<{ resolve(): void; reject(err: unknown): void }> = [];
  const asked = new Map<number, { resolve(value: unknown): void; reject(err: unknown): void }>();
  let nextRequest = 1;
  const abort = (reason: string): void => {
    if (controller.signal.aborted) return;
    controller.abort(new KowalskiError('KW_ERR_STEP_CANCELLED', reason));
    for (const waiter of waiting.splice(0)) waiter.reject(controller.signal.reason);
    for (const waiter of asked.values()) waiter.reject(controller.signal.reason);
    asked.clear();
  };
  channel.onMessage((message) => {
    switch (message.type) {
      case 'go':
        waiting.shift()?.resolve();
        return;
      case 'cancel':
        abort(message.reason);
        return;
      case 'response': {
        const waiter = asked.get(message.id);
        asked.delete(message.id);
        if (message.ok) waiter?.resolve(message.value);
        else waiter?.reject(fromPlainError(message.error));
        return;
      }
      default: {
        const never: never = message;
        void never;
      }
    }
  });
  const ctx: StepContext = {
    task,
    signal: controller.signal,
    progress(message) {
      channel.send({ type: 'progress', message });
    },
    spawned(pgid) {
      pgids.push(pgid);
      if (controller.signal.aborted) return Promise.reject(controller.signal.reason as Error);
      return new Promise<void>((resolve, reject) => {
        waiting.push({ resolve, reject });
        channel.send({ type: 'spawned', pgid, token: task.token });
      });
    },
    request(request) {
      if (controller.signal.aborted) return Promise.reject(controller.signal.reason as Error);
      const id = nextRequest++;
      return new Promise((resolve, reject) => {
        asked.set(id, { resolve: resolve as (value: unknown) => void, reject });
        channel.send({ type: 'request', id, request });
      }) as Promise<StepRequestResults[typeof request.op]>;
    },
    trace(trace) {
      channel.send({ type: 'trace', trace });
    },
    learned(model, mode) {
      channel.send({ type: 'learned', model, mode });
    },
  };
  return { ctx, pgids };
}

/** A kind may return an error as PlainError data or as an Error: either way it leaves as PlainError. */
function asPlainError(value: unknown): PlainError {
  const e = value as Partial<PlainError> | null;
  if (e !== null && typeof e === 'object' && !(e instanceof Error) && isErrorCode(e.code) && typeof e.message === 'string') {
    const out: PlainError = {
      code: e.code, name: typeof e.name === 'string' ? e.name : 'KowalskiError', message: e.message,
      retryable: ERROR_CODES[e.code].group === 'retryable',
    };
    if (typeof e.stack === 'string') out.stack = e.stack;
    if (e.where !== undefined) out.where = e.where;
    return out;
  }
  return toPlainError(value, 'KW_ERR_STEP_FAILED');
}

function checkResult(value: unknown, kindModule: string): StepResult {
  const r = value as Partial<StepResult> | null;
  if (r === null || typeof r !== 'object' || (r.outcome !== 'pass' && r.outcome !== 'fail')) {
    throw new KowalskiError('KW_ERR_STEP_KIND_MODULE',
      `the step kind ${kindModule} returned ${JSON.stringify(value)} instead of {outcome: 'pass' | 'fail', …}`);
  }
  const out: StepResult = { outcome: r.outcome };
  if (typeof r.artifact === 'string') out.artifact = r.artifact;
  if (typeof r.summary === 'string') out.summary = r.summary;
  if (r.error !== undefined) out.error = asPlainError(r.error);
  return out;
}

/** Run a kind over a built context; never throws. */
export async function runKind(built: BuiltContext, run: StepKindRun, kindModule: string): Promise<StepResult> {
  try {
    return checkResult(await run(built.ctx), kindModule);
  } catch (err) {
    const error = toPlainError(err, 'KW_ERR_STEP_FAILED');
    return { outcome: 'fail', error, summary: error.message.split('\n', 1)[0] ?? error.code };
  }
}

/**
 * `import()` a kind module. When the ESM loader refuses the file's extension (a `.ts`
 * kind in a worker thread under tsx on Node 20, where loader hooks do not reach worker
 * threads) it falls back to `require`, which a CommonJS hook may handle.
 */
async function importKindModule(modulePath: string): Promise<{ default?: unknown }> {
  try {
    return (await import(pathToFileURL(modulePath).href)) as { default?: unknown };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err;
    const required = createRequire(modulePath)(modulePath) as { default?: unknown } | undefined;
    return required ?? {};
  }
}

/** Loads kind modules by absolute path, each once (one loader per worker thread or child). */
export function createKindLoader(): (modulePath: string) => Promise<StepKindRun> {
  const cache = new Map<string, Promise<StepKindRun>>();
  return (modulePath) => {
    let loaded = cache.get(modulePath);
    if (loaded === undefined) {
      loaded = importKindModule(modulePath).then(
        (mod: { default?: unknown }) => {
          if (typeof mod.default !== 'function') {
            throw new KowalskiError('KW_ERR_STEP_KIND_MODULE', `the step kind module ${modulePath} has no default export function`);
          }
          return mod.default as StepKindRun;
        },
        (err: unknown) => {
          throw new KowalskiError('KW_ERR_STEP_KIND_MODULE',
            `cannot load the step kind module ${modulePath}: ${messageOf(err)}`, { cause: err });
        },
      );
      cache.set(modulePath, loaded);
      loaded.catch(() => cache.delete(modulePath));
    }
    return loaded;
  };
}

/** Build the context at once (so cancel and go are heard from the start), make the run's folders, then load the kind and run it. */
export function startStep(
  task: StepTask, kindModule: string, channel: StepChannel, load: (modulePath: string) => Promise<StepKindRun>,
): { built: BuiltContext; result: Promise<StepResult> } {
  const built = buildStepContext(task, channel);
  try {
    if (task.foldersMade !== true) makeRunFolders(task.runDir, task.workdir);
  } catch (err) {
    const error = toPlainError(new KowalskiError('KW_ERR_STEP_FAILED', `cannot make the run's folder ${task.workdir}: ${messageOf(err)}`, { cause: err }));
    return { built, result: Promise.resolve({ outcome: 'fail', error, summary: error.message }) };
  }
  const result = load(kindModule).then(
    (run) => runKind(built, run, kindModule),
    (err: unknown): StepResult => {
      const error = toPlainError(err, 'KW_ERR_STEP_KIND_MODULE');
      return { outcome: 'fail', error, summary: error.message };
    },
  );
  return { built, result };
}

/** Why a step was stopped (the cancel or timeout reason the signal carries), as an Error to throw; `doing` says what was left undone. */
export function stoppedError(ctx: StepContext, doing: string): Error {
  const reason: unknown = ctx.signal.reason;
  return reason instanceof Error ? reason : new KowalskiError('KW_ERR_STEP_CANCELLED', `step \`${ctx.task.step.name}\` was stopped before ${doing}`);
}
