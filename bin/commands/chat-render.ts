/**
 * How `kowalski chat` prints a turn: the root agent's tokens as they arrive, each tool
 * call (name, arguments shortened; then a short result or the error code) and each
 * delegation (the agent and its task; then its end), indented by the depth of the agent
 * that made it; and, for a resumed session, its past turns. Colour only on a terminal
 * without NO_COLOR.
 */
import type { TurnItem, TurnOutcome, TurnView } from '../../engine/index.js';
import { DELEGATE_TOOL } from '../../engine/index.js';
import type { ChatEvent, TokenPiece, TurnWatch } from './chat-types.js';

const ROOT = 'r';
const SHORT = 80;

export interface Paint {
  dim(s: string): string;
  bold(s: string): string;
  agent(s: string): string;
  warn(s: string): string;
  error(s: string): string;
}

const ansi = (open: number, close: number) => (s: string): string => `\u001b[${open}m${s}\u001b[${close}m`;

/** ANSI colours when `enabled`, else the text as it is. */
export function paint(enabled: boolean): Paint {
  if (!enabled) {
    const same = (s: string): string => s;
    return { dim: same, bold: same, agent: same, warn: same, error: same };
  }
  return { dim: ansi(2, 22), bold: ansi(1, 22), agent: ansi(36, 39), warn: ansi(33, 39), error: ansi(31, 39) };
}

/** Colour on a terminal, unless NO_COLOR is set (https://no-color.org). */
export function wantsColour(stream: NodeJS.WriteStream): boolean {
  return stream.isTTY === true && (process.env.NO_COLOR ?? '') === '';
}

/** One line, at most `max` characters. */
export function shorten(text: string, max = SHORT): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}

/** A tool's result as one short line. */
export function shortResult(text: string): string {
  return text.trim() === '' ? '(empty)' : shorten(text);
}

const depth = (node: string): number => node.split('/').length - 1;
const indent = (level: number): string => '  '.repeat(level + 1);
const failed = (p: Paint, e: { code: string; message: string }): string => p.error(`failed: ${shorten(e.message)} [${e.code}]`);

export interface Out {
  write(text: string): void;
}

/**
 * Prints one turn as it happens. The answer (root tokens) goes to `answer`, everything
 * else to `notes`; when they are the same stream, a note starts on a line of its own.
 */
export class TurnPrinter implements TurnWatch {
  private midLine = false;
  private readonly tools = new Map<string, string>();
  private readonly agents = new Map<string, string>();

  constructor(private readonly out: { answer: Out; notes: Out; prefix: boolean; paint: Paint }) {}

  onToken(piece: TokenPiece): void {
    if (piece.node !== ROOT || piece.text === '') return;
    if (!this.midLine && this.out.prefix) this.out.answer.write(this.out.paint.agent(`${piece.agent}> `));
    this.out.answer.write(piece.text);
    this.midLine = true;
  }

  onEvent(e: ChatEvent): void {
    const p = this.out.paint;
    switch (e.type) {
      case 'tool.started':
        if (e.name === DELEGATE_TOOL) return;
        this.tools.set(`${e.node}:${e.seq}.${e.index}`, e.name);
        this.note(depth(e.node), p.dim(`[${e.name}] ${shorten(JSON.stringify(e.arguments))}`));
        return;
      case 'tool.finished': {
        const name = this.tools.get(`${e.node}:${e.seq}.${e.index}`);
        if (name === undefined) return;
        this.note(depth(e.node), e.error === undefined ? p.dim(`[${name}] -> ${shortResult(e.result)}`) : `${p.dim(`[${name}]`)} ${failed(p, e.error)}`);
        return;
      }
      case 'delegation.started':
        this.agents.set(e.node, e.agent.name);
        this.note(depth(e.node) - 1, `${p.dim('>>')} ${p.agent(e.agent.name)}: ${shorten(e.task)}`);
        return;
      case 'delegation.finished': {
        const agent = this.agents.get(e.node) ?? '?';
        this.note(depth(e.node) - 1, `${p.dim('<<')} ${p.agent(agent)} ${e.error === undefined ? p.dim('done') : failed(p, e.error)}`);
        return;
      }
      default:
        return;
    }
  }

  /** After the turn: end the answer's line; a stop that is not `done` is said, with what to do next. */
  end(outcome: TurnOutcome, hint: string): void {
    this.lineEnd();
    const p = this.out.paint;
    if (outcome.stop === 'budget_exhausted') {
      const undone = outcome.undone ?? [];
      this.out.notes.write(`${p.warn(`the turn stopped: its budget is used up (${outcome.usage.calls} model calls).`)}${undone.length === 0 ? '' : ' Left undone:'}\n`);
      for (const u of undone) this.out.notes.write(`  - ${u.agent}: ${shorten(u.task)}\n`);
      this.out.notes.write(`${hint}\n`);
    } else if (outcome.stop === 'error') {
      this.out.notes.write(`${p.error(`the turn failed: ${outcome.error?.message ?? 'unknown error'} [${outcome.error?.code ?? 'KW_ERR_INTERNAL'}]`)}\n`);
    }
  }

  /** End the answer's line if one is open (before a prompt or a message). */
  lineEnd(): void {
    if (this.midLine) this.out.answer.write('\n');
    this.midLine = false;
  }

  private note(level: number, text: string): void {
    if (this.out.answer === this.out.notes) this.lineEnd();
    this.out.notes.write(`${indent(Math.max(0, level))}${text}\n`);
  }
}

function itemLine(p: Paint, item: TurnItem): string {
  const open = item.status === 'running' ? p.dim('...') : item.status === 'stopped' ? p.dim('stopped, not finished') : undefined;
  if (item.kind === 'tool') {
    const end = open ?? (item.error !== undefined ? failed(p, item.error) : p.dim(`-> ${shortResult(item.result ?? '')}`));
    return `${indent(depth(item.node))}${p.dim(`[${item.name}] ${shorten(JSON.stringify(item.arguments), 50)}`)} ${end}`;
  }
  const end = open ?? (item.error !== undefined ? failed(p, item.error) : p.dim('done'));
  return `${indent(depth(item.node) - 1)}${p.dim('>>')} ${p.agent(item.agent)}: ${shorten(item.task, 60)} ${end}`;
}

/** Past turns as the terminal shows them: the message, what the agents did, the answer and how it stopped. */
export function historyText(turns: TurnView[], p: Paint): string {
  const lines: string[] = [];
  for (const t of turns) {
    lines.push(`${p.bold('you>')} ${t.text}`);
    for (const item of t.items) lines.push(itemLine(p, item));
    if (t.answer === undefined) {
      lines.push(p.dim('  (under way)'));
      continue;
    }
    if (t.answer.text !== '') lines.push(`${p.agent(`${t.agent}>`)} ${t.answer.text}`);
    if (t.answer.stop === 'budget_exhausted') lines.push(p.warn(`  (stopped: its budget of ${t.budget.limit} model calls is used up)`));
    if (t.answer.stop === 'error') lines.push(p.error(`  (failed: ${t.answer.error?.message ?? ''} [${t.answer.error?.code ?? ''}])`));
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
