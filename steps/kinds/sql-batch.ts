/**
 * `sql_batch`: runs each ```sql block of a plan (the step's `prompt_file` — a fixed plan
 * shipped in the horde folder — when it has one, else the first of `context_paths` that
 * is a file when the step names any, else the previous step's artifact) through the data
 * tool's `query_sql`, one at a time and every one of them, even after one fails. A
 * `{{table:<input>}}` in the plan is the table the data tool serves from that input
 * (steps/plan-tables.ts). The Markdown artifact shows per query
 * its question, SQL and result table (or error); the JSON beside it (`SqlBatchFile`)
 * holds every result exactly as returned. Any failed query fails the step
 * (KW_ERR_SQL_BATCH_FAILED, every error listed) — the artifact is still written, so a
 * `fail` edge can hand it back to the step that wrote the SQL. Errors other than a
 * query's own (the data tool missing or down, a cancel) are the step's error.
 */
import path from 'node:path';
import { KowalskiError, toPlainError } from '../../core/index.js';
import type { ListTablesResult, QueryResult, SqlBatchFile, ToolOutput } from '../../agents/index.js';
import { fence, inlineCode, plural, readContext, writeArtifact, writeWorkdirFile } from '../artifact.js';
import { structuredOf } from '../data-call.js';
import { checkQueryResult, jsonPathFor, markdownTable, resultsJson } from '../data-results.js';
import type { PlannedQuery } from '../sql-plan.js';
import { parseSqlPlan } from '../sql-plan.js';
import { expandTablePlaceholders, tablePlaceholders } from '../plan-tables.js';
import { promptFileText } from '../prompt-file.js';
import { stoppedError } from '../context.js';
import type { StepContext, StepResult, StepTask } from '../protocol.js';

/** One query of the plan once run: its result, or the data tool's error. */
export interface QueryOutcome extends PlannedQuery {
  /** 1-based, in plan order. */
  index: number;
  result?: QueryResult;
  /** The data tool's message (DuckDB's text), without the `<tool> reported an error: ` prefix. */
  error?: string;
}

/** `data.query_sql reported an error: [KW_ERR_DATA_SQL] Binder Error: …` → `[KW_ERR_DATA_SQL] Binder Error: …`. */
export function toolErrorText(message: string): string {
  return message.replace(/^\S+ reported an error: /, '');
}

function failedOf(outcomes: QueryOutcome[]): QueryOutcome[] {
  return outcomes.filter((o) => o.error !== undefined);
}

function indent(text: string, pad: string): string {
  return text.split('\n').map((l) => (l.trim() === '' ? '' : `${pad}${l}`)).join('\n');
}

/** The step's error message: every failed query with its question, fence line, SQL and the data tool's message. */
export function batchFailureMessage(source: string, outcomes: QueryOutcome[]): string {
  const failed = failedOf(outcomes);
  const parts = [`${failed.length} of ${plural(outcomes.length, 'query', 'queries')} in ${source} failed:`];
  for (const o of failed) {
    parts.push(`\nQuery ${o.index}, "${o.question}" (${source}, line ${o.line}):\n${indent(o.sql, '    ')}\n  Error: ${indent(o.error ?? '', '  ').trimStart()}`);
  }
  return parts.join('\n');
}

/** The one-line summary: `3 queries, 42 rows` or `1 of 3 queries failed: Revenue (line 12)`. */
export function batchSummary(outcomes: QueryOutcome[]): string {
  const failed = failedOf(outcomes);
  if (failed.length > 0) {
    return `${failed.length} of ${plural(outcomes.length, 'query', 'queries')} failed: ${failed.map((o) => `${o.question} (line ${o.line})`).join(', ')}`;
  }
  const rows = outcomes.reduce((n, o) => n + (o.result?.rowCount ?? 0), 0);
  return `${plural(outcomes.length, 'query', 'queries')}, ${plural(rows, 'row')}`;
}

function querySection(o: QueryOutcome, source: string): string {
  const lines = [`## ${o.question.replace(/\s+/g, ' ')}`, '', fence(o.sql, 'sql'), ''];
  if (o.error !== undefined) {
    lines.push(`**Error** — query ${o.index}, at line ${o.line} of ${inlineCode(source)}:`, '', fence(o.error, 'text'));
  } else if (o.result !== undefined) {
    const r = o.result;
    lines.push(markdownTable(r), '', `${plural(r.rowCount, 'row')}.`);
    if (r.truncated) lines.push('', `> **Truncated:** the data tool returned only these ${plural(r.rowCount, 'row')}; the rest were not returned.`);
  }
  return lines.join('\n');
}

/** The Markdown artifact: a header saying what ran and how it went, then one section per query. */
export function batchMarkdown(title: string, source: string, outcomes: QueryOutcome[], notes: string[]): string {
  const failed = failedOf(outcomes);
  const head = failed.length === 0
    ? `Every query of ${inlineCode(source)} ran: ${batchSummary(outcomes)}.`
    : `**${failed.length} of ${plural(outcomes.length, 'query', 'queries')} failed** — each error is shown under its query. Fix those queries in ${inlineCode(source)}.`;
  const lines = [`# SQL results: ${title}`, '', head, ''];
  if (notes.length > 0) lines.push('Notes on the plan:', '', ...notes.map((n) => `- ${n}`), '');
  return `${[...lines, ...outcomes.map((o) => querySection(o, source))].join('\n')}\n`;
}

/** The plan: the step's prompt file, else the first context path that is a file (when the step names any), else the previous step's artifact. */
function readPlan(task: StepTask): { rel: string; text: string } {
  if (task.step.promptFile !== undefined) return { rel: task.step.promptFile, text: promptFileText(task) };
  if (task.step.context.length === 0 && task.previousOutput !== undefined) return { rel: task.previousOutput, text: readContext(task, '@artifact@').text };
  const tried: string[] = [];
  for (const ref of task.step.context) {
    try {
      const c = readContext(task, ref);
      return { rel: path.relative(task.workdir, c.path).split(path.sep).join('/'), text: c.text };
    } catch (err) {
      if (!(err instanceof KowalskiError && err.code === 'KW_ERR_CONTEXT_MISSING')) throw err;
      tried.push(ref);
    }
  }
  const why = tried.length === 0 ? 'no step ran before it, and it reads no context_paths' : `none of ${tried.join(', ')} is a file in the workdir`;
  throw new KowalskiError('KW_ERR_CONTEXT_MISSING', `step \`${task.step.name}\` (sql_batch) has no plan to read: ${why}`,
    { where: { file: task.step.file, key: 'context_paths' } });
}

/** The plan with its `{{table:<input>}}` placeholders filled from the data tool's list of tables (asked only when there are any). */
async function withTables(ctx: StepContext, plan: { rel: string; text: string }): Promise<{ rel: string; text: string }> {
  if (tablePlaceholders(plan.text).length === 0) return plan;
  const listed = structuredOf<ListTablesResult>(await ctx.request({ op: 'call-tool', name: 'list_tables', args: {} }), 'list_tables');
  return { rel: plan.rel, text: expandTablePlaceholders(plan.text, listed.tables, { file: plan.rel }) };
}

export default async function sqlBatch(ctx: StepContext): Promise<StepResult> {
  const { task } = ctx;
  const jsonRel = jsonPathFor(task.step.output);
  if (jsonRel === task.step.output) {
    throw new KowalskiError('KW_ERR_KEY_VALUE', `step \`${task.step.name}\` (sql_batch): output ${task.step.output} must be a Markdown file (e.g. results/${task.step.name}.md): the JSON results are written beside it as ${jsonRel}`,
      { where: { file: task.step.file, key: 'output' } });
  }
  const plan = await withTables(ctx, readPlan(task));
  const { queries, notes } = parseSqlPlan(plan.text);
  if (queries.length === 0) {
    const extra = notes.length === 0 ? '' : ` (${notes.join('; ')})`;
    throw new KowalskiError('KW_ERR_SQL_BATCH_EMPTY', `${plan.rel} holds no \`\`\`sql block to run${extra}`, { where: { file: plan.rel } });
  }
  const outcomes: QueryOutcome[] = [];
  for (const [i, q] of queries.entries()) {
    if (ctx.signal.aborted) throw stoppedError(ctx, 'running every query');
    ctx.progress(`query ${i + 1} of ${queries.length}: ${q.question}`);
    let output: ToolOutput;
    try {
      output = await ctx.request({ op: 'call-tool', name: 'query_sql', args: { sql: q.sql } });
    } catch (err) {
      if (ctx.signal.aborted || !(err instanceof KowalskiError && err.code === 'KW_ERR_TOOL_FAILED')) throw err;
      outcomes.push({ ...q, index: i + 1, error: toolErrorText(err.message) });
      continue;
    }
    const result = checkQueryResult(structuredOf<unknown>(output, 'query_sql'), 'KW_ERR_TOOL_FAILED', `the data tool's answer to query ${i + 1} (${plan.rel}, line ${q.line})`);
    outcomes.push({ ...q, index: i + 1, result });
  }
  const file: SqlBatchFile = {
    version: 1,
    kind: 'sql_batch',
    queries: outcomes.flatMap((o) => (o.result === undefined ? [] : [{ index: o.index, question: o.question, sql: o.sql, ...o.result }])),
  };
  const artifact = writeArtifact(task, batchMarkdown(task.step.displayName, plan.rel, outcomes, notes));
  writeWorkdirFile(task, jsonRel, resultsJson(file));
  const summary = batchSummary(outcomes);
  const failed = failedOf(outcomes);
  if (failed.length === 0) return { outcome: 'pass', artifact, summary };
  const error = toPlainError(new KowalskiError('KW_ERR_SQL_BATCH_FAILED', batchFailureMessage(plan.rel, outcomes),
    { where: { file: plan.rel, line: failed[0]?.line ?? 1 } }));
  delete error.stack;
  return { outcome: 'fail', artifact, summary, error };
}
