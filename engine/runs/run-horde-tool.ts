/**
 * `run_horde({horde, input?, wait_seconds?})`: a chat agent starts a horde of the catalog by
 * its id and is told the run's id; when the run ends (or parks) within the wait, also how it
 * ended and what it delivered. `run_horde({run_id})` waits again for a run this conversation
 * started. An agent never approves anything: a parked run is reported as waiting for the
 * operator, with where the operator decides.
 *
 * The run's provenance is the call's (engine/runs/agent-provenance.ts): made again after a crash,
 * the call finds the run it started instead of starting a second one, so the tool is safe to
 * repeat. Only a conversation's agents call it: a horde's own agent step does not start
 * hordes (no run begets runs without an operator in the loop).
 */
import { KowalskiError } from '../../core/index.js';
import type { HordeDef } from '../../core/index.js';
import type { Tool, ToolCaller } from '../../agents/index.js';
import type { RunState, RunView } from '../../contract/runs.js';
import { agentProvenance, askedByOf } from './agent-provenance.js';
import { closestIds, requireHorde } from '../horde/index.js';
import type { Catalog } from '../horde/index.js';
import type { Clock } from '../base/clock.js';
import type { Timers } from '../base/timers.js';
import { runOutcomeText } from './run-outcome.js';

export const RUN_HORDE_TOOL = 'run_horde';
/** Longest wait a call may ask for, s: under the tool registry's 120 s limit on a call. */
const MAX_WAIT_SECS = 100;
const DEFAULT_WAIT_SECS = 60;

export interface RunHordeDeps {
  catalog(): Promise<Catalog>;
  startRun(horde: HordeDef, input: Record<string, string>, options: { provenance: string }): Promise<string>;
  runIdByProvenance(provenance: string): string | undefined;
  /** A run's provenance; undefined when there is no such run. */
  provenanceOf(runId: string): string | undefined;
  /** Resolves once the run has finished or parked (engine.waitForRun). */
  waitForRun(runId: string): Promise<RunState>;
  runView(runId: string): RunView;
  /** The session is an `agent` step's. */
  isStepSession(sessionId: string): boolean;
  /** The app's address, once a server announced one. */
  appUrl(): string | null;
  clock: Clock;
  timers: Timers;
}

function callerOf(caller: ToolCaller | undefined, isStepSession: (id: string) => boolean): ToolCaller {
  if (caller === undefined) throw new KowalskiError('KW_ERR_TOOL_FAILED', 'run_horde is for chat agents: a horde step does not start hordes');
  if (isStepSession(caller.sessionId)) throw new KowalskiError('KW_ERR_TOOL_FAILED', "run_horde is for chat agents: a horde's agent step does not start hordes");
  return caller;
}

async function hordeById(id: string, catalog: Catalog): Promise<HordeDef> {
  const entry = catalog.entries.find((e) => e.id === id);
  if (entry === undefined) {
    const ids = catalog.entries.filter((e) => e.result.ok).map((e) => e.id);
    const close = closestIds(id, ids);
    const hint = close.length > 0 ? `; did you mean ${close.map((c) => `"${c}"`).join(' or ')}?` : '';
    throw new KowalskiError('KW_ERR_HORDE_NOT_FOUND', `no horde "${id}"${hint} The hordes: ${ids.join(', ') || 'none'}`);
  }
  return requireHorde(entry);
}

/** The run `run_id` names, when this conversation started it; KW_ERR_RUN_NOT_FOUND otherwise (an agent reads no other run). */
function ownRun(runId: string, caller: ToolCaller, deps: RunHordeDeps): string {
  const provenance = deps.provenanceOf(runId);
  if (provenance === undefined || askedByOf(provenance)?.sessionId !== caller.sessionId) {
    throw new KowalskiError('KW_ERR_RUN_NOT_FOUND', `no run ${runId} was started in this conversation: run_id takes the id run_horde answered with`);
  }
  return runId;
}

/** Waits up to `secs` for the run to finish or park; the caller's signal stops the wait (the run goes on). */
async function settleWithin(runId: string, secs: number, signal: AbortSignal, deps: RunHordeDeps): Promise<void> {
  if (secs === 0) return;
  signal.throwIfAborted();
  let cancel = (): void => undefined;
  let onAbort = (): void => undefined;
  const waited = new Promise<void>((resolve, reject) => {
    cancel = deps.timers.at(deps.clock.now() + secs * 1000, resolve);
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([deps.waitForRun(runId), waited]);
  } finally {
    cancel();
    signal.removeEventListener('abort', onAbort);
  }
}

function inputOf(raw: unknown): Record<string, string> {
  return raw === undefined ? {} : (raw as Record<string, string>);
}

export function createRunHordeTool(deps: RunHordeDeps): Tool {
  return {
    // Made again after a crash, it finds the run it started (by the call's provenance).
    idempotent: true,
    spec: {
      name: RUN_HORDE_TOOL,
      description: [
        'Start a horde (a workflow the operator installed) by its id, with its input, and wait a while for it to end.',
        'Answers with the run id, and when it ended within the wait, how it ended and what it delivered.',
        'A run may park waiting for the operator (an approval, a review, its budget): you cannot approve it, say so to the user.',
        'Give {"run_id": …} instead of a horde to wait again for a run you started.',
      ].join(' '),
      inputSchema: {
        type: 'object',
        properties: {
          horde: { type: 'string', minLength: 1, maxLength: 100, description: 'The horde\'s id, e.g. "url-summarizer"' },
          input: {
            type: 'object',
            description: 'The run\'s input: each of the horde\'s inputs by id, as text (a file input takes a path), e.g. {"url": "https://example.com"}',
            additionalProperties: { type: 'string', maxLength: 20000 },
            maxProperties: 50,
          },
          run_id: { type: 'string', minLength: 1, maxLength: 100, description: 'A run this conversation started: wait for it again instead of starting one' },
          wait_seconds: { type: 'integer', minimum: 0, maximum: MAX_WAIT_SECS, description: `How long to wait for the run to end, s (default ${DEFAULT_WAIT_SECS}); it goes on after` },
        },
        additionalProperties: false,
      },
    },
    async call(args, ctx) {
      const caller = callerOf(ctx.caller, deps.isStepSession);
      const hordeId = args.horde as string | undefined;
      const given = args.run_id as string | undefined;
      if ((hordeId === undefined) === (given === undefined)) {
        throw new KowalskiError('KW_ERR_TOOL_ARGS', 'run_horde takes either "horde" (to start one) or "run_id" (to wait for one you started), not both and not neither');
      }
      if (given !== undefined && args.input !== undefined) throw new KowalskiError('KW_ERR_TOOL_ARGS', '"input" goes with "horde": a started run keeps the input it was given');
      let runId: string;
      if (given !== undefined) {
        runId = ownRun(given, caller, deps);
      } else {
        const provenance = agentProvenance(caller);
        runId = deps.runIdByProvenance(provenance)
          ?? await deps.startRun(await hordeById(hordeId!, await deps.catalog()), inputOf(args.input), { provenance });
      }
      const secs = (args.wait_seconds as number | undefined) ?? DEFAULT_WAIT_SECS;
      await settleWithin(runId, secs, ctx.signal, deps);
      const view = deps.runView(runId);
      return { content: runOutcomeText(view, deps.appUrl(), secs), meta: { runId, state: view.run.state } };
    },
  };
}
