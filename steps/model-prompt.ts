/**
 * The messages a model step sends: a short system message saying what this kind of step
 * is for and the shape of the document to write, then the step's prompt file with the
 * run's answers and the context the step reads, each fenced so nothing in a file can pass
 * for an instruction boundary. For `ask`, the question comes last, where small models
 * attend best.
 */
import { KowalskiError } from '../core/index.js';
import type { ChatMessage } from '../agents/index.js';
import { fence, readContext } from './artifact.js';
import { promptFileText } from './prompt-file.js';
import type { StepTask } from './protocol.js';

/** Per context file, what a model is given at most (the rest is cut, with a note). */
export const CONTEXT_FILE_CHARS = 200_000;

const ROLES: Record<string, string> = {
  process: 'Read the material below and write the document the instructions ask for.',
  step: 'Read the material below and write the document the instructions ask for.',
  compile: 'Combine the documents below into one coherent document, as the instructions ask.',
  ask: 'Answer the question at the end from the material below.',
  lint: 'Review the material below and list each problem you find: where it is, what is wrong, how to fix it. If there are none, say so.',
  deliver: 'Write the final handoff the person who ran this workflow will open: lead with the answer, then the supporting detail.',
  final: 'Write the final handoff the person who ran this workflow will open: lead with the answer, then the supporting detail.',
};

function systemMessage(task: StepTask): string {
  const { step, horde } = task;
  const lines = [
    `You are the step "${step.displayName}" of the workflow "${horde.displayName}".`,
    ROLES[step.kind] ?? ROLES.process!,
    'Write Markdown only. Use only the material given and what tools return; never invent facts, numbers or names.',
  ];
  const n = step.normalize;
  if (n?.docTitle !== undefined) lines.push(`Start with the heading "# ${n.docTitle}".`);
  if (n?.sections !== undefined && n.sections.length > 0) {
    lines.push(`Use exactly these sections, as "## " headings, in this order: ${n.sections.map((s) => `"${s}"`).join(', ')}.`);
  }
  return lines.join('\n');
}

/** The question an `ask` step answers: the form's `question`, else the horde's default. */
export function questionOf(task: StepTask): string | undefined {
  const q = task.input.question ?? task.horde.display.default_question;
  return q === undefined || q.trim() === '' ? undefined : q.trim();
}

function clip(text: string): string {
  if (text.length <= CONTEXT_FILE_CHARS) return text;
  return `${text.slice(0, CONTEXT_FILE_CHARS)}\n… [cut: ${text.length - CONTEXT_FILE_CHARS} more characters not shown]`;
}

export function buildMessages(task: StepTask): ChatMessage[] {
  const parts: string[] = [];
  const prompt = promptFileText(task);
  if (prompt !== '') parts.push(prompt);
  const answers = Object.entries(task.input).filter(([, v]) => v.trim() !== '');
  if (answers.length > 0) {
    parts.push(['## Input', '', ...answers.map(([k, v]) => (v.includes('\n') ? `- ${k}:\n${fence(v)}` : `- ${k}: ${v}`))].join('\n'));
  }
  // `@artifact@` may name a file another reference already gives (a plan reading the profile and, on a loop back, the failed results): each file once.
  const seen = new Set<string>();
  const context = task.step.context.map((ref) => readContext(task, ref)).filter((c) => !seen.has(c.path) && seen.add(c.path) !== undefined);
  if (context.length > 0) {
    parts.push('## Context');
    for (const c of context) {
      const rel = c.ref.startsWith('@') ? `${c.ref} (${c.path.slice(task.workdir.length + 1)})` : c.ref;
      parts.push(`### ${rel}\n\n${fence(clip(c.text))}`);
    }
  }
  if (task.step.kind === 'ask') {
    const q = questionOf(task);
    if (q === undefined) {
      throw new KowalskiError('KW_ERR_INPUT_INVALID', `step \`${task.step.name}\` (ask) has no question: give the run a \`question\` input or set default_question in horde.md`,
        { where: { file: task.step.file, key: 'kind' } });
    }
    parts.push(`## Question\n\n${q}`);
  }
  return [
    { role: 'system', content: systemMessage(task) },
    { role: 'user', content: parts.join('\n\n') || 'Write the document.' },
  ];
}
