/**
 * The builder's tools: a chat agent builds a horde draft by small calls (set the horde's fields,
 * set or remove a step, set the edges, validate, give birth), each on the draft of its own chat
 * session (found by the caller's session; made at the first call). Every edit sets a value, so
 * the same call made again after a crash changes nothing more; give_birth is keyed by the draft's
 * content (rookery-service.ts). Each answer is short text the model can act on: what changed, the
 * steps in order and the problems with their step and key.
 */
import { KowalskiError } from '../../core/index.js';
import type { Tool, ToolCaller, ToolOutput } from '../../agents/index.js';
import { exampleDraft, removeStep, setEdges, setHordeFields, setStep } from './index.js';
import type { DraftView, RookeryService } from './rookery-service.js';
import type { DraftEdge, DraftProblem, DraftStep, HordeDraft } from './types.js';

/** The builder's tools, by name (what `kowalski agents` accepts in a profile without an engine running). */
export const ROOKERY_TOOL_NAMES: readonly string[] = [
  'rookery_example_draft', 'rookery_get_draft', 'rookery_set_horde', 'rookery_set_step',
  'rookery_remove_step', 'rookery_set_edges', 'rookery_validate_draft', 'rookery_give_birth',
];

/** What the tools need of the Rookery. */
export type RookeryToolTarget = Pick<RookeryService, 'forSession' | 'idForSession' | 'edit' | 'birth'>;

/** Problems one answer names (the rest are counted). */
const PROBLEM_LINES = 30;
const MAX_TEXT = 64 * 1024;
const name = { type: 'string', minLength: 1, maxLength: 100, description: 'kebab-case, e.g. "check-tests"' };
const text = (description: string) => ({ type: 'string', maxLength: MAX_TEXT, description });
const strings = (description: string) => ({ type: 'array', maxItems: 100, items: { type: 'string', maxLength: 1000 }, description });

function sessionOf(caller: ToolCaller | undefined, tool: string): string {
  if (caller === undefined) throw new KowalskiError('KW_ERR_ROOKERY_NO_SESSION', `${tool}: the builder's tools work on the draft of a chat session; a horde step cannot use them`);
  return caller.sessionId;
}

const problemLine = (p: DraftProblem): string =>
  `- ${p.severity}${p.step === undefined ? '' : ` in step ${p.step}`}${p.key === undefined ? '' : `, ${p.key}`}: ${p.message} [${p.code}]`;

/** The draft in a few lines: its id, steps in order, edges, stage, and what is wrong. */
export function draftText(view: DraftView): string {
  const d = view.draft;
  const steps = d.steps.length === 0 ? '(no steps yet)' : d.steps.map((s) => `${s.name} (${s.kind})`).join(' → ');
  const edges = d.edges.length === 0 ? 'none (a straight line)' : d.edges.map((e) => `${e.from}→${e.to}${e.when === undefined ? '' : ` ${e.when}`}${e.max_loops === undefined ? '' : ` ×${e.max_loops}`}`).join(', ');
  const lines = [`Draft "${d.id || '(no id)'}" — ${d.display_name || '(no name)'}; stage ${view.stage}.`, `Steps: ${steps}.`, `Edges: ${edges}.`];
  const errors = view.problems.filter((p) => p.severity === 'error').length;
  if (view.problems.length === 0) lines.push('No problems: ready for rookery_give_birth when the user agrees.');
  else {
    lines.push(`${errors} error(s), ${view.problems.length - errors} warning(s):`, ...view.problems.slice(0, PROBLEM_LINES).map(problemLine));
    if (view.problems.length > PROBLEM_LINES) lines.push(`… and ${view.problems.length - PROBLEM_LINES} more`);
  }
  return lines.join('\n');
}

const answer = (done: string, view: DraftView): ToolOutput => ({
  content: `${done}\n${draftText(view)}`,
  meta: { draft: view.id, stage: view.stage, problems: view.problems.length },
});

/** The step fields a call may set (the rest keep their values). */
const STEP_FIELDS = ['kind', 'display_name', 'description', 'prompt_body', 'output', 'context_paths', 'tools', 'model', 'inputs', 'verify_command', 'verify_cwd', 'apply_mode', 'note', 'note_mode', 'adapter', 'to', 'subject', 'tool', 'arguments', 'timeout_secs', 'isolation'] as const;

export function createRookeryTools(rookery: RookeryToolTarget): Tool[] {
  const onDraft = (caller: ToolCaller | undefined, tool: string, change: (d: HordeDraft) => HordeDraft): Promise<DraftView> =>
    rookery.edit(rookery.idForSession(sessionOf(caller, tool)), change);

  const example: Tool = {
    idempotent: true,
    spec: { name: 'rookery_example_draft', description: 'An example horde draft (JSON): the shape every field takes. Read it once before building.', inputSchema: { type: 'object', properties: {}, additionalProperties: false } },
    async call() {
      return { content: JSON.stringify(exampleDraft(), null, 2) };
    },
  };

  const get: Tool = {
    idempotent: true,
    spec: { name: 'rookery_get_draft', description: 'The draft of this conversation as JSON, with its stage and problems.', inputSchema: { type: 'object', properties: {}, additionalProperties: false } },
    async call(_args, ctx) {
      const view = await rookery.forSession(sessionOf(ctx.caller, 'rookery_get_draft'));
      return { content: `${JSON.stringify(view.draft, null, 2)}\n${draftText(view)}`, meta: { draft: view.id, stage: view.stage } };
    },
  };

  const setHorde: Tool = {
    idempotent: true,
    spec: {
      name: 'rookery_set_horde',
      description: 'Set the horde\'s own fields (only those given change).',
      inputSchema: {
        type: 'object',
        properties: {
          id: { ...name, description: 'The horde id, kebab-case: its folder name, e.g. "weekly-report"' },
          display_name: text('The title shown to the user'),
          description: text('One paragraph: what the horde does'),
          confirm_commands: { type: 'boolean', description: 'false: verify/apply commands run without asking the user (default true)' },
          workdir: { type: 'string', maxLength: 200, description: 'Where the run\'s files go (default "output")' },
          delivery_root_rel: { type: 'string', maxLength: 200, description: 'The file the user opens when the run is done (default "HANDOFF.md")' },
        },
        additionalProperties: false,
      },
    },
    async call(args, ctx) {
      const view = await onDraft(ctx.caller, 'rookery_set_horde', (d) => setHordeFields(d, args as Partial<HordeDraft>));
      return answer(`Set ${Object.keys(args).join(', ') || 'nothing'}.`, view);
    },
  };

  const stepProps: Record<string, unknown> = {
    name,
    kind: { type: 'string', maxLength: 40, description: 'ingest | process | verify | apply | deliver | compile | ask | lint | table_profile | sql_batch | xlsx_report' },
    display_name: text('The step\'s title'),
    description: text('What the step does, one line'),
    prompt_body: text('Model steps: the instructions (Markdown)'),
    output: { type: 'string', maxLength: 200, description: 'The file the step writes, relative to the run\'s workdir (default "<name>.md"); a review step writes none' },
    context_paths: strings('What the step reads: "@artifact@" (the previous step\'s output), "@step:<name>@", or workdir paths'),
    tools: strings('Tools the step may use (e.g. "web_fetch", "read_file", "server.tool")'),
    model: { type: 'string', maxLength: 200, description: 'e.g. "ollama:qwen2.5:7b" (default: the configured model)' },
    inputs: { type: 'array', maxItems: 50, items: { type: 'object' }, description: 'The run form: [{id, type, label, required, placeholder, options, default}]' },
    verify_command: { type: 'string', maxLength: 4000, description: 'verify steps: the command; passes when it exits 0' },
    verify_cwd: { type: 'string', maxLength: 200 },
    apply_mode: { type: 'string', enum: ['dry-run', 'execute'] },
    note: { type: 'string', maxLength: 512, description: 'vault_note steps: the note to write, relative to the vault, e.g. "digests/{{date}}.md" ({{date}}: the run\'s day; {{run_id}})' },
    note_mode: { type: 'string', enum: ['create', 'append'], description: 'vault_note steps: make a new note (default) or add to its end' },
    adapter: { type: 'string', maxLength: 200, description: 'send steps: the name of a slack or email adapter of config.toml, or "{{input.<id>}}" to let the run form name it (empty: not sent)' },
    to: { type: 'string', maxLength: 500, description: 'send steps: the Slack channel or the mail address, e.g. "#trading" or "{{input.send_to}}"' },
    subject: { type: 'string', maxLength: 500, description: 'send steps through email: the subject ({{date}}: the run\'s day)' },
    tool: { type: 'string', maxLength: 200, description: 'mcp_call steps: the MCP tool to call, server.tool (the server as named in config.toml), or "{{input.<id>}}"' },
    arguments: { type: 'object', description: 'mcp_call steps: the tool\'s arguments; string values may hold {{input.<id>}}, {{date}}, {{run_id}}' },
    timeout_secs: { type: 'integer', minimum: 1, maximum: 86_400 },
    isolation: { type: 'string', enum: ['in_process', 'process'] },
    after: { ...name, description: 'A new step goes after this one (default: at the end)' },
    rename: { ...name, description: 'Give the step "name" this new name (edges follow)' },
  };

  const setStepTool: Tool = {
    idempotent: true,
    spec: {
      name: 'rookery_set_step',
      description: 'Add a step, or change one: only the fields given change. A new step goes at the end, or after "after".',
      inputSchema: { type: 'object', properties: stepProps, required: ['name'], additionalProperties: false },
    },
    async call(args, ctx) {
      const patch: Partial<DraftStep> & { name: string } = { name: String(args.name) };
      for (const key of STEP_FIELDS) if (args[key] !== undefined) (patch as Record<string, unknown>)[key] = args[key];
      const rename = typeof args.rename === 'string' ? args.rename : undefined;
      const after = typeof args.after === 'string' ? args.after : undefined;
      const view = await onDraft(ctx.caller, 'rookery_set_step', (d) => {
        const has = (n: string): boolean => d.steps.some((s) => s.name === n);
        // The same rename again (a replay): the step has its new name already.
        if (rename !== undefined && !has(patch.name) && has(rename)) return setStep(d, { ...patch, name: rename }, after === undefined ? {} : { after });
        return setStep(d, patch, { ...(after === undefined ? {} : { after }), ...(rename === undefined ? {} : { rename }) });
      });
      return answer(`Step ${rename ?? patch.name} set.`, view);
    },
  };

  const remove: Tool = {
    idempotent: true,
    spec: {
      name: 'rookery_remove_step',
      description: 'Remove a step (and the edges that touch it).',
      inputSchema: { type: 'object', properties: { name }, required: ['name'], additionalProperties: false },
    },
    async call(args, ctx) {
      const step = String(args.name);
      let gone = false;
      const view = await onDraft(ctx.caller, 'rookery_remove_step', (d) => {
        gone = !d.steps.some((s) => s.name === step);
        return gone ? d : removeStep(d, step);
      });
      return answer(gone ? `There is no step ${step} (nothing to remove).` : `Step ${step} removed.`, view);
    },
  };

  const edges: Tool = {
    idempotent: true,
    spec: {
      name: 'rookery_set_edges',
      description: 'Set the whole graph. An empty list means a straight line in step order. An edge back to an earlier step (a loop) needs when and max_loops.',
      inputSchema: {
        type: 'object',
        properties: {
          edges: {
            type: 'array',
            maxItems: 200,
            items: {
              type: 'object',
              properties: { from: name, to: name, when: { type: 'string', enum: ['pass', 'fail', 'always'] }, max_loops: { type: 'integer', minimum: 1, maximum: 100 } },
              required: ['from', 'to'],
              additionalProperties: false,
            },
          },
        },
        required: ['edges'],
        additionalProperties: false,
      },
    },
    async call(args, ctx) {
      const list = args.edges as DraftEdge[];
      const view = await onDraft(ctx.caller, 'rookery_set_edges', (d) => setEdges(d, list));
      return answer(`${list.length} edge(s) set.`, view);
    },
  };

  const validate: Tool = {
    idempotent: true,
    spec: { name: 'rookery_validate_draft', description: 'Check the draft with the engine\'s own loader: its stage and every problem with its step and key.', inputSchema: { type: 'object', properties: {}, additionalProperties: false } },
    async call(_args, ctx) {
      const view = await rookery.forSession(sessionOf(ctx.caller, 'rookery_validate_draft'));
      return { content: draftText(view), meta: { draft: view.id, stage: view.stage, ok: view.ok } };
    },
  };

  const birth: Tool = {
    idempotent: true,
    spec: {
      name: 'rookery_give_birth',
      description: 'Write the draft as a horde folder the user can run (only once the user agreed). Fails with the problems when the draft does not validate.',
      inputSchema: { type: 'object', properties: { overwrite: { type: 'boolean', description: 'Replace an installed horde of the same id (only when the user said so)' } }, additionalProperties: false },
    },
    async call(args, ctx) {
      const id = rookery.idForSession(sessionOf(ctx.caller, 'rookery_give_birth'));
      const r = await rookery.birth(id, { overwrite: args.overwrite === true });
      const warnings = r.problems.length === 0 ? '' : `\n${r.problems.slice(0, PROBLEM_LINES).map(problemLine).join('\n')}`;
      return {
        content: `Horde "${r.horde_id}" written to ${r.horde_root}; it ${r.validate_ok ? 'validates and is in Hordes, ready to run' : 'does not validate'}.${warnings}`,
        meta: { draft: id, horde: r.horde_id, validate_ok: r.validate_ok },
      };
    },
  };

  return [example, get, setHorde, setStepTool, remove, edges, validate, birth];
}
