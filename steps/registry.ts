/**
 * The step kinds this build knows, and where each kind's module lives. Workers load
 * kind modules by absolute path, so callers (tests, benchmarks) can register their own
 * kinds next to the built-in ones.
 */
import { MODEL_STEP_KINDS } from '../core/index.js';
import { thisBuild } from './own-code.js';
import type { OwnCode } from './own-code.js';

export interface StepKindInfo {
  kind: string;
  /** Absolute path of the module whose default export is the kind's `StepKindRun`. */
  module: string;
  /** The kind talks to a model (needs a configured provider). */
  usesModel: boolean;
  /** Safe to run again when an attempt was interrupted with no result (false: park for the operator). */
  idempotent: boolean;
  /** Runs a command or changes the project: needs the operator's approval unless `confirm_commands = false`. */
  runsCommand: boolean;
  /** A human gate (`review`): parks on the previous step's artifact; its approval binds to that file's hash, even when `confirm_commands = false`. */
  review?: true;
  /** Reaches outside the run on its own (`send` through an adapter, `mcp_call` a server's tool): in an imported horde it waits for the operator's approval, whatever horde.md says. */
  outward?: true;
}

/** Every kind of `STEP_KINDS`, with its module (of `code`, this build's by default). A fresh map on each call: callers may add to it. */
export function builtinStepKinds(code: OwnCode = thisBuild()): Map<string, StepKindInfo> {
  const kindModule = (file: string): string => code.file(`steps/kinds/${file}`);
  const kinds = new Map<string, StepKindInfo>();
  const add = (kind: string, file: string, flags: Partial<Omit<StepKindInfo, 'kind' | 'module'>> = {}): void => {
    kinds.set(kind, {
      kind,
      module: kindModule(file),
      usesModel: flags.usesModel ?? false,
      idempotent: flags.idempotent ?? true,
      runsCommand: flags.runsCommand ?? false,
    });
  };
  add('ingest', 'ingest');
  add('verify', 'verify', { runsCommand: true });
  add('apply', 'apply', { runsCommand: true, idempotent: false });
  add('table_profile', 'table-profile');
  add('sql_batch', 'sql-batch');
  add('xlsx_report', 'xlsx-report');
  // Its turn is the chat's: durable call by call, so an interrupted attempt goes on with it.
  add('agent', 'agent');
  // Keyed by the run and the step: an attempt again finds the write the first one made.
  add('vault_note', 'vault-note');
  // Keyed by the run and the step: an attempt again finds the delivery, and never sends twice.
  kinds.set('send', { kind: 'send', module: kindModule('send'), usesModel: false, idempotent: true, runsCommand: false, outward: true });
  // One tool call, its result a file: an attempt again calls it again (a price lookup reads; a tool that changes things is the user's to choose).
  kinds.set('mcp_call', { kind: 'mcp_call', module: kindModule('mcp-call'), usesModel: false, idempotent: true, runsCommand: false, outward: true });
  kinds.set('review', { kind: 'review', module: kindModule('review'), usesModel: false, idempotent: true, runsCommand: false, review: true });
  for (const kind of MODEL_STEP_KINDS) add(kind, 'model', { usesModel: true });
  return kinds;
}
