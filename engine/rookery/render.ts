/**
 * `renderDraft`: a draft → the files of its horde folder (relative path → text):
 * `horde.md`, `agents/<step>.md`, `prompts/<step>.md` for the steps with a prompt, and a
 * README. Front matter is written by smol-toml's serializer, so every string (quotes,
 * newlines, any script) reads back as it was, and every field of the draft is written.
 */
import { stringify } from 'smol-toml';
import { DISPLAY_KEYS } from '../horde/index.js';
import type { DraftStep, HordeDraft } from './types.js';

/** The horde folder of a draft, file by file (relative path → text). */
export function renderDraft(draft: HordeDraft): Map<string, string> {
  const files = new Map<string, string>();
  files.set('horde.md', markdown(hordeTable(draft), `# ${oneLine(draft.display_name)}\n\n${draft.description}`));
  for (const step of draft.steps) {
    files.set(`agents/${step.name}.md`, markdown(stepTable(step), `# ${oneLine(step.display_name)}\n\n${step.description}`));
    if (hasPrompt(step)) files.set(promptFile(step), step.prompt_body.endsWith('\n') ? step.prompt_body : `${step.prompt_body}\n`);
  }
  files.set('README.md', readme(draft));
  return files;
}

function hasPrompt(step: DraftStep): boolean {
  return step.prompt_body.trim() !== '';
}

function promptFile(step: DraftStep): string {
  return `prompts/${step.name}.md`;
}

function hordeTable(draft: HordeDraft): Record<string, unknown> {
  const table: Record<string, unknown> = {
    id: draft.id,
    display_name: draft.display_name,
    description: draft.description,
    pipeline: draft.steps.map((s) => s.name),
    workdir: draft.workdir,
    delivery_root_rel: draft.delivery_root_rel,
    confirm_commands: draft.confirm_commands,
  };
  for (const key of DISPLAY_KEYS) table[key] = draft.display?.[key];
  if (draft.edges.length > 0) table.edges = draft.edges.map((e) => ({ from: e.from, to: e.to, when: e.when, max_loops: e.max_loops }));
  if (draft.triggers.length > 0) table.triggers = draft.triggers;
  return table;
}

function stepTable(step: DraftStep): Record<string, unknown> {
  const table: Record<string, unknown> = {
    name: step.name,
    kind: step.kind,
    display_name: step.display_name,
    description: step.description,
    prompt_file: hasPrompt(step) ? promptFile(step) : undefined,
    output: step.output === '' ? undefined : step.output,
    context_paths: step.context_paths,
    tool_ids: step.tools,
    model: step.model,
    agent: step.agent,
    verify_command: step.verify_command,
    verify_cwd: step.verify_cwd,
    apply_mode: step.apply_mode,
    note: step.note,
    note_mode: step.note_mode,
    adapter: step.adapter,
    to: step.to,
    subject: step.subject,
    tool: step.tool,
    arguments: step.arguments,
    timeout_secs: step.timeout_secs,
    isolation: step.isolation,
  };
  if (step.inputs.length > 0) table.inputs = step.inputs;
  return table;
}

/** TOML front matter between `---` lines, then the body. */
function markdown(table: Record<string, unknown>, body: string): string {
  return `---\n${stringify(tomlValue(table) as Record<string, unknown>).trim()}\n---\n\n${body.trim()}\n`;
}

/** Drop what TOML cannot hold (undefined, null) from tables and arrays, recursively. */
function tomlValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== undefined && v !== null).map(tomlValue);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined && v !== null) out[k] = tomlValue(v);
    return out;
  }
  return value;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function readme(draft: HordeDraft): string {
  const lines = [`# ${oneLine(draft.display_name)}`, ''];
  if (draft.description !== '') lines.push(draft.description, '');
  lines.push('Built with the Rookery. Every file here is plain Markdown with TOML front matter (see the horde format).', '', '## Steps', '');
  draft.steps.forEach((s, i) => {
    const what = s.description === '' ? '' : `: ${oneLine(s.description)}`;
    const writes = s.output === '' ? 'writes nothing of its own' : `writes \`${s.output}\``;
    lines.push(`${i + 1}. **${oneLine(s.display_name)}** (\`${s.name}\`, ${s.kind}) ${writes}${what}`);
  });
  if (draft.edges.length > 0) {
    lines.push('', '## Edges', '');
    for (const e of draft.edges) lines.push(`- \`${e.from}\` → \`${e.to}\` when ${e.when ?? 'always'}${e.max_loops === undefined ? '' : `, at most ${e.max_loops} times`}`);
  }
  const form = draft.steps.find((s) => s.inputs.length > 0)?.inputs ?? [];
  if (form.length > 0) {
    lines.push('', '## Inputs', '');
    for (const input of form) lines.push(`- \`${input.id}\` (${input.type ?? 'text'}${input.required === true ? ', required' : ''})${input.label === undefined ? '' : `: ${oneLine(input.label)}`}`);
  }
  const example = form.find((i) => i.required === true) ?? form[0];
  const run = example === undefined ? `kowalski run ${draft.id}` : `kowalski run ${draft.id} --input ${example.id}=…`;
  lines.push('', '## Run it', '', '```sh', `kowalski validate .`, run, '```', '');
  return lines.join('\n');
}
