/**
 * `kowalski chat`: talk with the agent team — interactively (chat-repl.ts), or once for
 * scripts with `--message` (the answer streamed, or one JSON line with `--json`; exit 0
 * done, 1 error, 3 budget exhausted). Through the server that owns the data directory,
 * else with an embedded engine (chat-backend.ts).
 */
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import type { TurnOutcome } from '../../engine/index.js';
import { DEFAULT_AGENT, openChat, sessionFor, titleOf } from './chat-backend.js';
import { TurnPrinter, paint } from './chat-render.js';
import { chatRepl } from './chat-repl.js';
import type { ChatBackend, ChatOptions, TurnWatch } from './chat-types.js';
import { untilSignal } from './backend.js';
import { EXIT, dataDir } from './common.js';

export function exitForStop(stop: TurnOutcome['stop']): number {
  if (stop === 'done') return EXIT.ok;
  if (stop === 'budget_exhausted') return EXIT.parked;
  return EXIT.failed;
}

const quiet: TurnWatch = { onToken: () => undefined, onEvent: () => undefined };

async function oneShot(chat: ChatBackend, opts: ChatOptions, text: string): Promise<number> {
  const json = opts.json === true;
  let id: string | undefined;
  const note = (): string => (id === undefined ? 'no session was made' : chat.leftNote(id));
  return untilSignal(async () => {
    process.stderr.write(`\nkowalski: stopped; ${note()}\n`);
    await chat.close();
  }, async () => {
    if (opts.session !== undefined) {
      id = (await sessionFor(chat, opts.session, opts.agent)).id;
      await chat.resume(id, quiet); // a turn left under way ends first
    } else {
      id = (await chat.create(opts.agent ?? DEFAULT_AGENT, titleOf(text))).id;
    }
    const printer = json ? undefined : new TurnPrinter({ answer: process.stdout, notes: process.stderr, prefix: false, paint: paint(false) });
    const outcome = await chat.send(id, text, printer ?? quiet);
    if (printer !== undefined) printer.end(outcome, `to go on: kowalski chat --session ${id}, then /continue`);
    else {
      const { text: answer, stop, usage, traceId, error, undone } = outcome;
      process.stdout.write(`${JSON.stringify({ sessionId: id, text: answer, stop, usage, traceId, ...(error === undefined ? {} : { error }), ...(undone === undefined ? {} : { undone }) })}\n`);
    }
    return exitForStop(outcome.stop);
  });
}

export async function chatCommand(opts: ChatOptions): Promise<number> {
  if (opts.json === true && opts.message === undefined) throw new KowalskiError('KW_ERR_USAGE', '--json needs --message (the interactive chat prints text)');
  if (opts.message !== undefined && opts.message.trim() === '') throw new KowalskiError('KW_ERR_INPUT_INVALID', '--message is empty: give the text to send');
  const dir = opts.dataDir === undefined ? dataDir() : path.resolve(opts.dataDir);
  const chat = await openChat(dir);
  try {
    return opts.message === undefined ? await chatRepl(chat, opts) : await oneShot(chat, opts, opts.message);
  } finally {
    await chat.close();
  }
}
