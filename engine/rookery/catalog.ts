/**
 * What the Rookery tells a builder about this kowalski: the step kinds it may use (from
 * the engine's step registry) and the horde folders already under an output root.
 */
import path from 'node:path';
import { builtinStepKinds } from '../../steps/index.js';
import { builtinKindNames } from '../hordes.js';
import { listHordes } from '../horde/index.js';
import type { StepKindSummary } from '../../contract/rookery.js';
export type { StepKindSummary } from '../../contract/rookery.js';

export interface HordeFolder {
  id: string;
  display_name: string;
  /** Absolute folder. */
  path: string;
  /** True when the engine's loader finds no error in it. */
  valid: boolean;
}

const SUMMARIES: Readonly<Record<string, string>> = {
  ingest: "collects the run's input: form answers, files and folders, URLs (as Markdown)",
  table_profile: 'asks the data tool for every table, its columns, types and statistics',
  sql_batch: "runs each ```sql block of the previous step's plan through query_sql and records the results",
  xlsx_report: 'writes a workbook: an index sheet and one sheet per question',
  verify: 'runs verify_command; passes or fails by its exit status (asks first unless confirm_commands = false)',
  apply: "writes the proposed changes (diff blocks of the previous artifact) into the project; dry-run by default",
  process: 'a model step: a prompt plus the context it reads, optionally with tools; writes one Markdown file',
  deliver: 'a model step that writes the final result, usually from every earlier step',
  compile: 'a model step that compiles earlier results into one document',
  ask: 'a model step that answers a question from its context',
  lint: 'a model step that reviews earlier output and lists what to fix',
  step: 'a model step (the 1.x name of process)',
  final: 'a model step (the 1.x name of deliver)',
  agent: 'one turn of a team profile (agent = "researcher"): its model, tools and delegation; writes its answer as one Markdown file',
  vault_note: 'writes what it reads into the vault as a note (note = "digests/{{date}}.md"), audited and revertible; no model',
  send: 'sends what it reads through a Slack or email adapter of config.toml (adapter = "team-slack", to = "#trading"), once per run; no model',
  mcp_call: 'calls one tool of a configured MCP server (tool = "quotes.closes", arguments) and writes its result as a .json or .csv file the data steps read; no model',
  review: "parks for the operator to read, edit and approve the previous step's artifact",
};

/** The built-in step kinds, in the registry's order. */
export function stepKindList(): StepKindSummary[] {
  return [...builtinStepKinds().values()].map((k) => ({
    kind: k.kind,
    model: k.usesModel,
    summary: SUMMARIES[k.kind] ?? (k.usesModel ? 'a model step' : 'a tool step'),
  }));
}

/** Every horde folder under `root` (subfolders holding a horde.md), loaded; [] when `root` does not exist. */
export async function listHordeFolders(root: string): Promise<HordeFolder[]> {
  const catalog = await listHordes({ userDir: path.resolve(root), knownKinds: builtinKindNames() });
  return catalog.entries.map((e) => ({
    id: e.id,
    display_name: e.result.ok ? e.result.horde.displayName : e.id,
    path: e.dir,
    valid: e.result.ok,
  }));
}
