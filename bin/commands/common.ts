/** What every command shares: the data directory, exit codes, errors, the JSON of a run. */
import { KowalskiError, formatWhere, toPlainError } from '../../core/index.js';
import type { ErrorCode } from '../../core/index.js';
// The data folder's own module, not the engine's face: a command that needs no engine (backup, restore) does not load it.
import { resolveDataDir } from '../../engine/base/data-dir.js';
import type { RunState, RunView } from '../../engine/index.js';

/** 0 done, 1 failed, 2 bad usage or input, 3 parked waiting for the operator (a run; a chat turn whose budget ran out). */
export const EXIT = { ok: 0, failed: 1, usage: 2, parked: 3 } as const;

const USAGE_CODES: ReadonlySet<ErrorCode> = new Set([
  'KW_ERR_USAGE', 'KW_ERR_CONFIG_INVALID', 'KW_ERR_CONFIG_EXISTS', 'KW_ERR_INPUT_INVALID', 'KW_ERR_HORDE_NOT_FOUND', 'KW_ERR_HORDE_INVALID',
  'KW_ERR_RUN_NOT_FOUND', 'KW_ERR_RUN_FINISHED', 'KW_ERR_NO_PENDING_APPROVAL', 'KW_ERR_DATA_DIR_LOCKED', 'KW_ERR_STEP_KIND_UNKNOWN',
  'KW_ERR_BAD_REQUEST', // the server refused an argument (through its schema)
  'KW_ERR_BUDGET_INVALID', 'KW_ERR_BUDGET_TOO_LOW', // budget: a limit that is not one, or not above what is spent
  'KW_ERR_LISTEN', // serve: --host / --port cannot be used
  'KW_ERR_DATA_ROOT', // mcp serve data: --root is not a folder
  'KW_ERR_BUNDLE_INVALID', 'KW_ERR_HORDE_EXISTS', // bundle import: a refused bundle, an id already taken
  'KW_ERR_TRIGGER_NOT_FOUND', // triggers enable|disable: no such trigger
  'KW_ERR_ADAPTER_NOT_FOUND', // adapters enable|disable: no such adapter
  'KW_ERR_PLUGIN_NOT_FOUND', 'KW_ERR_PLUGIN_INVALID', // plugins grant|revoke: no such plugin, one that failed a check
  'KW_ERR_AGENT_NOT_FOUND', 'KW_ERR_CHAT_NOT_FOUND', 'KW_ERR_CHAT_BUSY', 'KW_ERR_CHAT_NOT_STOPPED', // chat: --agent, --session, a turn under way, nothing to continue
  'KW_ERR_BACKUP_TARGET', 'KW_ERR_BACKUP_SOURCE', 'KW_ERR_BACKUP_INVALID', // backup: a file that exists, nothing to back up; restore: --to not empty, a damaged archive
  'KW_ERR_MODEL_NOT_READY', // run: a model step has no model, or its provider does not answer (--skip-model-check)
  'KW_ERR_VAULT_PATH', 'KW_ERR_VAULT_NOT_FOUND', 'KW_ERR_VAULT_WRITE_NOT_FOUND', 'KW_ERR_VAULT_NOT_REVERTIBLE', // vault: a bad path, no such note or write, a write that cannot be undone
  'KW_ERR_STORE_COPY_NOT_EMPTY', 'KW_ERR_STORE_COPY_NODES_LIVE', // store copy: a target that holds rows, live nodes on a Postgres end
  'KW_ERR_RERUN_STEP_UNKNOWN', 'KW_ERR_RERUN_MISMATCH', // rerun: --from is not a step, or the steps before it do not match the earlier run
]);

/** A failed command: print the error with its code and pick the exit status. */
export function reportError(err: unknown, json: boolean): number {
  const plain = toPlainError(err);
  const where = formatWhere(plain.where);
  if (json) process.stdout.write(`${JSON.stringify({ error: { code: plain.code, message: plain.message, ...(plain.where === undefined ? {} : { where: plain.where }) } })}\n`);
  else process.stderr.write(`kowalski: ${plain.message}${where !== '' && !plain.message.includes(where) ? ` (${where})` : ''} [${plain.code}]\n`);
  if (!(err instanceof KowalskiError) && plain.code === 'KW_ERR_INTERNAL' && plain.stack !== undefined && process.env.KOWALSKI_DEBUG !== undefined) process.stderr.write(`${plain.stack}\n`);
  return USAGE_CODES.has(plain.code) ? EXIT.usage : EXIT.failed;
}

export function dataDir(): string {
  return resolveDataDir();
}

/** `k=v` pairs into an object; a pair without `=` is a usage error. */
export function parseInputs(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const i = p.indexOf('=');
    if (i <= 0) throw new KowalskiError('KW_ERR_USAGE', `--input takes key=value, not ${JSON.stringify(p)}`);
    out[p.slice(0, i)] = p.slice(i + 1);
  }
  return out;
}

export function exitFor(state: RunState): number {
  if (state === 'succeeded') return EXIT.ok;
  if (state === 'awaiting_input') return EXIT.parked;
  return EXIT.failed;
}

/** The JSON shape of `show --json` (and of run/approve/resume results). */
export function runJson(view: RunView): Record<string, unknown> {
  const pending = view.pending[0];
  return {
    runId: view.run.id,
    state: view.run.state,
    horde: view.run.hordeId,
    provenance: view.run.provenance,
    input: view.run.input,
    createdAt: new Date(view.run.createdAt).toISOString(),
    finishedAt: view.run.finishedAt === null ? null : new Date(view.run.finishedAt).toISOString(),
    error: view.run.errorCode === null ? null : { code: view.run.errorCode, message: view.run.error },
    steps: view.steps,
    delivery: view.delivery?.path ?? null,
    outputs: view.workdir,
    pendingApproval: pending === undefined ? null : {
      step: pending.step, reason: pending.reason, command: pending.command, hash: pending.hash,
      approve: approveCommand(view.run.id, pending.step),
    },
    budget: view.budget,
  };
}

/** Where a run's results are: its delivery file (when it has one) and the folder of all its outputs, absolute. */
export function formatResults(view: RunView): string {
  // `?? null`: a server older than the delivery sends none.
  const delivery = view.delivery ?? null;
  return `${delivery === null ? 'delivery: none (no step wrote an artifact)' : `delivery: ${delivery.path}`}\noutputs:  ${view.workdir}\n`;
}

export function approveCommand(runId: string, step: string): string {
  return `kowalski approve ${runId} --step ${step}`;
}
