/**
 * The `mcp_call` step kind: one call of one tool of an MCP server configured in config.toml
 * (`tool = "quotes.closes"`, `arguments = { … }`), no model; its result is written to the
 * step's `output`, a file the data tool reads as a table (`inputs/prices/prices.json`), so
 * the SQL steps after it compute from what the tool returned. A `.json`/`.ndjson` output
 * takes the result's JSON (its structured content, else its text parsed): an array of rows,
 * or an object whose only field is one (MCP's structured results are objects); `.ndjson`
 * writes one row a line. A `.csv`/`.tsv` output takes the result's text as it is. A tool
 * that fills to nothing (an input left empty) is not called: the step passes, saying so.
 * The engine records the tool's answer before the step is given it (engine/runs/step-call.ts):
 * an attempt after a crash gets that answer back and does not call the tool again.
 */
import { fillStepField } from '../../core/step-fields.js';
import { KowalskiError, messageOf } from '../../core/index.js';
import { inlineCode, writeArtifact } from '../artifact.js';
import type { StepContext, StepResult } from '../protocol.js';
import type { StepTask } from '../protocol.js';

type Values = Parameters<typeof fillStepField>[1];

function fillDeep(value: unknown, values: Values): unknown {
  if (typeof value === 'string') return fillStepField(value, values);
  if (Array.isArray(value)) return value.map((v) => fillDeep(v, values));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillDeep(v, values)]));
  return value;
}

function argumentsOf(task: StepTask, raw: Record<string, unknown> | string, values: Values): Record<string, unknown> {
  if (typeof raw !== 'string') return fillDeep(raw, values) as Record<string, unknown>;
  const text = fillStepField(raw, values);
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new KowalskiError('KW_ERR_INPUT_INVALID', `step \`${task.step.name}\`: its arguments are not JSON once filled in (${messageOf(err)}): ${text.slice(0, 200)}`, { where: { file: task.step.file, key: 'arguments' } });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new KowalskiError('KW_ERR_INPUT_INVALID', `step \`${task.step.name}\`: its arguments must be the JSON of an object ({"symbols": "AAPL"}), not ${text.slice(0, 200)}`, { where: { file: task.step.file, key: 'arguments' } });
  }
  return parsed as Record<string, unknown>;
}

/** The rows of a JSON result: an array, or the one array of an object with a single field. */
function rowsOf(task: StepTask, tool: string, value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === 'object') {
    const fields = Object.values(value);
    if (fields.length === 1 && Array.isArray(fields[0])) return fields[0];
  }
  const shape = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? `an object with the fields ${Object.keys(value).slice(0, 10).join(', ')}` : typeof value;
  throw new KowalskiError('KW_ERR_TOOL_FAILED', `step \`${task.step.name}\`: ${tool} answered ${shape}, not rows (an array, or an object whose only field is one)`);
}

function jsonOf(task: StepTask, tool: string, structured: unknown, content: string): unknown {
  if (structured !== undefined && structured !== null) return structured;
  try {
    return JSON.parse(content);
  } catch {
    throw new KowalskiError('KW_ERR_TOOL_FAILED', `step \`${task.step.name}\`: ${tool} answered text that is not JSON, but ${inlineCode(task.step.output)} is a JSON file (write to a .csv output for a tool that answers CSV): ${content.slice(0, 200)}`);
  }
}

export default async function mcpCall(ctx: StepContext): Promise<StepResult> {
  const { task } = ctx;
  const spec = task.step.call;
  if (spec === undefined) throw new KowalskiError('KW_ERR_HORDE_INVALID', `step \`${task.step.name}\` is an mcp_call step without a tool`, { where: { file: task.step.file, key: 'tool' } });
  const values: Values = { input: task.input, date: new Date(task.createdAt ?? Date.now()).toISOString().slice(0, 10), runId: task.runId };
  const tool = fillStepField(spec.tool, values);
  if (tool === '') return { outcome: 'pass', summary: 'not called: no tool given' };
  const args = argumentsOf(task, spec.arguments, values);
  ctx.progress(`calling ${tool}`);
  const { output: out, earlierAttempt } = await ctx.request({ op: 'step-call', name: tool, args });
  const output = task.step.output.toLowerCase();
  let data: string;
  let what: string;
  if (output.endsWith('.csv') || output.endsWith('.tsv')) {
    data = out.content.replace(/\n*$/, '\n');
    what = `${data.split('\n').length - 2} rows of text`;
  } else {
    const rows = rowsOf(task, tool, jsonOf(task, tool, out.structured, out.content));
    data = output.endsWith('.ndjson') ? rows.map((r) => JSON.stringify(r)).join('\n') + '\n' : `${JSON.stringify(rows, null, 2)}\n`;
    what = `${rows.length} rows`;
  }
  const again = earlierAttempt === undefined ? '' : ` (the answer attempt ${earlierAttempt} got, before an interruption: not called again)`;
  return { outcome: 'pass', artifact: writeArtifact(task, data), summary: `${tool}: ${what} into ${task.step.output}${again}` };
}
