/**
 * One `agents/<step>.md`: its front matter checked and normalised into a StepDef, with the
 * 1.x aliases resolved (`writes` → output, `reads` → context_paths, `tools` → tool_ids).
 * `fs_tool` stays as written: the engine offers it as the file tools confined to the run's
 * project folder (engine/models.ts). Display and unknown keys are kept in `extra`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { APPLY_MODES, ISOLATIONS, MODEL_STEP_KINDS, NOTE_MODES, badAgentName, messageOf } from '../../core/index.js';
import type { ApplyMode, CallSpec, NormalizeSpec, NoteSpec, SendSpec, StepDef } from '../../core/index.js';
import { fillNotePath, unknownNotePlaceholders } from '../../core/note-path.js';
import { scanStepField } from '../../core/step-fields.js';
import { noteSegments } from '../vault/vault-paths.js';
import { toolNameClash, toolNameClashMessage } from '../../agents/tool-names.js';
import { isTable, someOf } from './fields.js';
import type { Fields } from './fields.js';
import { readInputs } from './inputs.js';
import { checkPathAt, isInside } from './paths.js';
import { scanPlaceholders } from './placeholders.js';

/** The 1.x tool id of the file tools confined to the run's project folder. */
export const FS_TOOL = 'fs_tool';
const MODEL_KINDS: ReadonlySet<string> = new Set(MODEL_STEP_KINDS);

export interface StepContextInfo {
  /** Absolute horde folder. */
  dir: string;
  /** The pipeline's step names (for `@step:<name>@`). */
  pipeline: ReadonlySet<string>;
  knownKinds: ReadonlySet<string>;
  knownTools: ReadonlySet<string>;
}

/** Read a step from its file's front matter. Returns undefined when it has errors. */
export async function readStep(name: string, f: Fields, body: string, ctx: StepContextInfo): Promise<StepDef | undefined> {
  const problems = f.problems;
  const before = problems.errorCount;
  const file = f.source.file;

  const declared = f.string('name', { required: true });
  if (declared !== undefined && declared !== name) {
    problems.error('KW_ERR_STEP_NAME_MISMATCH', f.at('name'), `name is "${declared}" but the file is ${file}; the file name (without .md) must equal name`);
  }
  const kind = f.string('kind', { required: true, nonEmpty: true });
  if (kind !== undefined && !ctx.knownKinds.has(kind)) {
    problems.error('KW_ERR_STEP_KIND_UNKNOWN', f.at('kind'), `step kind "${kind}" in ${file} is not a kind this kowalski knows (known: ${[...ctx.knownKinds].join(', ')})`);
  }
  const displayName = f.string('display_name') ?? name;
  const description = f.string('description');
  const promptFile = await readPromptFile(f, ctx.dir);
  if (kind !== undefined && (MODEL_KINDS.has(kind) || kind === 'agent') && !f.has('prompt_file')) {
    problems.warn('KW_WARN_PROMPT_UNSET', f.at('prompt_file'), `a ${kind} step uses a model but has no prompt_file; it will run with no instructions`);
  }

  const outKey = f.alias('output', 'writes');
  const outRaw = outKey === undefined ? undefined : f.string(outKey);
  let output = `${name}.md`;
  if (outKey !== undefined && outRaw !== undefined) {
    const p = checkPathAt(f, outKey, outRaw, 'the run workdir');
    if (p !== undefined) output = p.endsWith('/') ? `${p === './' ? '' : p}${name}.md` : p;
  }

  const context = readContext(f, ctx.pipeline);
  const tools = readTools(f, ctx.knownTools);
  const model = f.string('model', { nonEmpty: true });
  const agent = readAgent(f, kind, tools, model);
  const timeoutSecs = f.integer('timeout_secs', 1);
  const isolation = f.oneOf('isolation', ISOLATIONS) ?? 'in_process';
  const verifyCommand = f.string('verify_command', { required: kind === 'verify', nonEmpty: true });
  const verifyCwd = f.string('verify_cwd', { nonEmpty: true });
  let applyMode: ApplyMode | undefined;
  if (f.has('apply_mode') && kind !== 'apply') {
    f.raw('apply_mode');
    f.bad('apply_mode', `apply_mode is only for apply steps; this step is ${kind ?? 'of no kind'}`);
  } else if (kind === 'apply') {
    applyMode = f.oneOf('apply_mode', APPLY_MODES) ?? 'dry-run';
  }
  const normalize = readNormalize(f);
  const inputs = readInputs(f);
  const note = readNote(f, kind, context);
  const send = readSend(f, kind, context);
  const call = readCall(f, kind, outKey === undefined ? undefined : output);

  if (problems.errorCount > before || kind === undefined) return undefined;
  const step: StepDef = {
    name, kind, file, displayName, output, context, tools, isolation, inputs, body, extra: f.unread(),
  };
  if (description !== undefined) step.description = description;
  if (promptFile !== undefined) step.promptFile = promptFile;
  if (model !== undefined) step.model = model;
  if (agent !== undefined) step.agent = agent;
  if (timeoutSecs !== undefined) step.timeoutSecs = timeoutSecs;
  if (verifyCommand !== undefined) step.verifyCommand = verifyCommand;
  if (verifyCwd !== undefined) step.verifyCwd = verifyCwd;
  if (applyMode !== undefined) step.applyMode = applyMode;
  if (note !== undefined) step.note = note;
  if (send !== undefined) step.send = send;
  if (call !== undefined) step.call = call;
  if (normalize !== undefined) step.normalize = normalize;
  return step;
}

/**
 * Placeholders of `verify_command` and `verify_cwd`: only `{{input.<id>}}` of a declared
 * input, `{{workdir}}` and `{{run_dir}}`. Needs the horde's form, so it runs after every step is read.
 */
export function checkPlaceholders(f: Fields, step: StepDef, declared: ReadonlySet<string>): void {
  const known = declared.size === 0 ? 'the horde declares no inputs' : `declared inputs: ${someOf(declared)}`;
  for (const [key, value] of [['verify_command', step.verifyCommand], ['verify_cwd', step.verifyCwd]] as const) {
    if (value === undefined) continue;
    const scan = scanPlaceholders(value);
    for (const bad of scan.invalid) {
      f.bad(key, `${key} uses ${bad}; the placeholders are {{input.<id>}}, {{workdir}} and {{run_dir}}, written without spaces`);
    }
    for (const p of scan.placeholders) {
      if (p.type === 'input' && !declared.has(p.id)) {
        f.bad(key, `${key} uses ${p.text} but the horde has no input "${p.id}" (${known})`);
      }
    }
  }
  const fields: Array<[string, string | undefined]> = [
    ...SEND_KEYS.map((key) => [key, step.send?.[key]] as [string, string | undefined]),
    ['tool', step.call?.tool],
    ['arguments', step.call === undefined ? undefined : JSON.stringify(step.call.arguments)],
  ];
  for (const [key, value] of fields) {
    if (value === undefined) continue;
    for (const id of scanStepField(value).inputs) {
      if (!declared.has(id)) f.bad(key, `${key} uses {{input.${id}}} but the horde has no input "${id}" (${known})`);
    }
  }
}

async function readPromptFile(f: Fields, dir: string): Promise<string | undefined> {
  const raw = f.string('prompt_file');
  if (raw === undefined) return undefined;
  const rel = checkPathAt(f, 'prompt_file', raw, 'the horde folder');
  if (rel === undefined) return undefined;
  const abs = path.join(dir, rel);
  try {
    const [real, root] = await Promise.all([fs.realpath(abs), fs.realpath(dir)]);
    if (!isInside(root, real)) {
      f.bad('prompt_file', `prompt_file "${raw}" is a link that leads out of the horde folder`, 'KW_ERR_PATH_ESCAPES');
      return undefined;
    }
    if (!(await fs.stat(real)).isFile()) {
      f.bad('prompt_file', `prompt_file "${raw}" is not a file`, 'KW_ERR_PROMPT_MISSING');
      return undefined;
    }
  } catch {
    f.bad('prompt_file', `prompt_file "${raw}" does not exist in the horde folder`, 'KW_ERR_PROMPT_MISSING');
    return undefined;
  }
  return rel;
}

function readContext(f: Fields, pipeline: ReadonlySet<string>): string[] {
  const key = f.alias('context_paths', 'reads');
  if (key === undefined) return [];
  const list = f.stringArray(key) ?? [];
  const out: string[] = [];
  list.forEach((item, i) => {
    const at = `${key}[${i}]`;
    if (item === '@artifact@') {
      out.push(item);
      return;
    }
    const ref = /^@step:(.*)@$/.exec(item);
    if (ref !== null) {
      if (pipeline.has(ref[1] ?? '')) out.push(item);
      else f.bad(at, `${item} names step "${ref[1] ?? ''}", which is not in pipeline`);
      return;
    }
    if (/^@.*@$/.test(item)) {
      f.bad(at, `${item} is not a reference kowalski knows; use @artifact@ or @step:<name>@`);
      return;
    }
    const p = checkPathAt(f, at, item, 'the run workdir');
    if (p !== undefined) out.push(p);
  });
  return out;
}

/** `agent`: the team profile of an `agent` step (required there, refused elsewhere); such a step takes its model and tools from the profile. */
function readAgent(f: Fields, kind: string | undefined, tools: string[], model: string | undefined): string | undefined {
  if (kind !== 'agent') {
    if (f.has('agent')) {
      f.raw('agent');
      f.bad('agent', `agent is only for agent steps; this step is ${kind ?? 'of no kind'}`);
    }
    return undefined;
  }
  const agent = f.string('agent', { required: true, nonEmpty: true });
  const bad = agent === undefined ? undefined : badAgentName(agent);
  if (bad !== undefined) f.bad('agent', bad);
  if (tools.length > 0) f.bad(f.alias('tool_ids', 'tools') ?? 'tools', `an agent step uses the tools of its profile (team/${agent ?? '<agent>'}.md), not its own: remove ${f.alias('tool_ids', 'tools') ?? 'tools'}`);
  if (model !== undefined) f.bad('model', `an agent step uses the model of its profile (team/${agent ?? '<agent>'}.md): remove model`);
  return agent;
}

/** `note` and `note_mode`: a `vault_note` step's note (required there, refused elsewhere); it writes what it reads, so `reads` is required too. */
function readNote(f: Fields, kind: string | undefined, context: readonly string[]): NoteSpec | undefined {
  if (kind !== 'vault_note') {
    for (const key of ['note', 'note_mode']) {
      if (f.has(key)) {
        f.raw(key);
        f.bad(key, `${key} is only for vault_note steps; this step is ${kind ?? 'of no kind'}`);
      }
    }
    return undefined;
  }
  const raw = f.string('note', { required: true, nonEmpty: true });
  const mode = f.oneOf('note_mode', NOTE_MODES) ?? 'create';
  if (context.length === 0 && !f.has('context_paths') && !f.has('reads')) {
    f.bad('reads', 'a vault_note step writes what it reads: set reads (e.g. reads = ["@step:digest@"])');
  }
  if (raw === undefined) return undefined;
  const unknown = unknownNotePlaceholders(raw);
  if (unknown.length > 0) {
    f.bad('note', `note uses ${unknown.join(', ')}; a note path takes {{date}} (the run's day) and {{run_id}}`);
    return undefined;
  }
  try {
    noteSegments(fillNotePath(raw, { date: '2026-01-01', runId: 'r0' }));
  } catch (err) {
    f.bad('note', `note: ${messageOf(err)}`);
    return undefined;
  }
  return { path: raw, mode };
}

const SEND_KEYS = ['adapter', 'to', 'subject'] as const;

/** `adapter`, `to` and `subject`: a `send` step's delivery (the first two required there; all refused elsewhere); it sends what it reads, so `reads` is required too. */
function readSend(f: Fields, kind: string | undefined, context: readonly string[]): SendSpec | undefined {
  // Elsewhere these words are unknown keys, kept and ignored (a 1.x file may use them for its own ends).
  if (kind !== 'send') return undefined;
  const adapter = f.string('adapter', { required: true, nonEmpty: true });
  const to = f.string('to', { required: true, nonEmpty: true });
  const subject = f.string('subject');
  if (context.length === 0 && !f.has('context_paths') && !f.has('reads')) {
    f.bad('reads', 'a send step sends what it reads: set reads (e.g. reads = ["@step:digest@"])');
  }
  let ok = adapter !== undefined && to !== undefined;
  for (const [key, value] of [['adapter', adapter], ['to', to], ['subject', subject]] as const) {
    if (value === undefined) continue;
    const invalid = scanStepField(value).invalid;
    if (invalid.length > 0) {
      f.bad(key, `${key} uses ${invalid.join(', ')}; a send step's ${key} takes {{input.<id>}}, {{date}} (the run's day) and {{run_id}}, written without spaces`);
      ok = false;
    }
  }
  if (!ok) return undefined;
  return { adapter: adapter!, to: to!, ...(subject === undefined ? {} : { subject }) };
}

/** The files an `mcp_call` step may write: what the data tool reads as a table. */
const CALL_OUTPUTS = ['.json', '.ndjson', '.csv', '.tsv'];
const TOOL_NAME = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_.-]+$/;

/**
 * `tool` and `arguments`: an `mcp_call` step's call (`tool` required there; both elsewhere
 * unknown keys, kept). Its `output` must be set, and be a file the data tool reads.
 */
function readCall(f: Fields, kind: string | undefined, output: string | undefined): CallSpec | undefined {
  if (kind !== 'mcp_call') return undefined;
  const tool = f.string('tool', { required: true, nonEmpty: true });
  let ok = tool !== undefined;
  if (tool !== undefined) {
    const scan = scanStepField(tool);
    if (scan.invalid.length > 0) {
      f.bad('tool', `tool uses ${scan.invalid.join(', ')}; an mcp_call step's tool takes {{input.<id>}}, {{date}} and {{run_id}}, written without spaces`);
      ok = false;
    } else if (scan.inputs.length === 0 && !tool.includes('{{') && !TOOL_NAME.test(tool)) {
      f.bad('tool', `tool "${tool}" is not an MCP tool's name: write it as <server>.<tool>, the server as named in config.toml's [[mcp.servers]] (e.g. "quotes.closes")`);
      ok = false;
    }
  }
  let args: Record<string, unknown> | string = {};
  if (f.has('arguments')) {
    const raw = f.raw('arguments');
    if (typeof raw === 'string' || isTable(raw)) {
      args = raw;
      const invalid = [...JSON.stringify(raw).matchAll(/\{\{(.*?)\}\}/g)].map((m) => m[0]).filter((p) => scanStepField(p).invalid.length > 0);
      if (invalid.length > 0) {
        f.bad('arguments', `arguments use ${invalid.join(', ')}; their strings take {{input.<id>}}, {{date}} and {{run_id}}, written without spaces`);
        ok = false;
      }
    } else {
      f.bad('arguments', 'arguments must be a table (arguments = { symbols = "AAPL,MSFT" }) or the JSON text of an object ("{{input.prices_args}}")');
      ok = false;
    }
  }
  if (output === undefined || !CALL_OUTPUTS.some((ext) => output.toLowerCase().endsWith(ext))) {
    f.bad(f.has('writes') ? 'writes' : 'output', `an mcp_call step writes the tool's result for the data tool: set output to a file ending in ${CALL_OUTPUTS.join(', ')} (e.g. output = "inputs/prices/prices.json")`);
    ok = false;
  }
  return ok ? { tool: tool!, arguments: args } : undefined;
}

function readTools(f: Fields, known: ReadonlySet<string>): string[] {
  const key = f.alias('tool_ids', 'tools');
  if (key === undefined) return [];
  const list = f.stringArray(key) ?? [];
  const out = new Set<string>();
  list.forEach((tool, i) => {
    if (tool === FS_TOOL) {
      out.add(tool);
      return;
    }
    if (tool.trim() === '') {
      f.bad(`${key}[${i}]`, `${key}[${i}] is empty`);
      return;
    }
    if (!known.has(tool)) {
      f.problems.warn('KW_WARN_TOOL_UNKNOWN', f.at(`${key}[${i}]`), `tool "${tool}" is not provided by kowalski or a configured MCP server; the step will fail when it runs unless one provides it`);
    }
    const clash = toolNameClash([...out, tool]);
    if (clash !== undefined) f.bad(`${key}[${i}]`, toolNameClashMessage(clash), 'KW_ERR_TOOL_NAME_CLASH');
    out.add(tool);
  });
  return [...out];
}

function readNormalize(f: Fields): NormalizeSpec | undefined {
  const spec: NormalizeSpec = {};
  const docTitle = f.string('normalize_doc_title');
  const sections = f.stringArray('normalize_sections');
  const fallback = f.string('normalize_fallback');
  const fallbackSections = f.stringArray('normalize_fallback_sections');
  if (docTitle !== undefined) spec.docTitle = docTitle;
  if (sections !== undefined) spec.sections = sections;
  if (fallback !== undefined) spec.fallback = fallback;
  if (fallbackSections !== undefined) spec.fallbackSections = fallbackSections;
  return Object.keys(spec).length === 0 ? undefined : spec;
}
