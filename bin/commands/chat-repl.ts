/**
 * The interactive `kowalski chat`: a `you> ` prompt (node:readline), each answer streamed
 * as it comes with the tool calls and delegations of its turn, and the slash commands.
 * A session is made at its first message (titled by it) and goes on at the next start
 * with `--session ID`, which prints its last turns first. Ctrl-C while a turn runs leaves
 * the turn open (it goes on at the next start, or in the server); Ctrl-D or /exit leaves.
 */
import readline from 'node:readline';
import { KowalskiError } from '../../core/index.js';
import { agentNotFound } from '../../engine/index.js';
import type { TurnOutcome } from '../../engine/index.js';
import { DEFAULT_AGENT, sessionFor, titleOf } from './chat-backend.js';
import { TurnPrinter, historyText, paint, wantsColour } from './chat-render.js';
import type { ChatBackend, ChatOptions, TurnWatch } from './chat-types.js';
import { EXIT, reportError } from './common.js';

/** Past turns printed when a session is resumed. */
const HISTORY_TURNS = 10;

const HELP = `commands:
  /help           this list
  /new            a new session with the current agent
  /agents         the team: each agent and what it does
  /agent NAME     talk to another agent (in a new session)
  /continue [N]   give a turn its budget stopped N more model calls (default: [chat] max_iterations) and go on with it
  /exit           leave (or Ctrl-D); the session goes on with kowalski chat --session ID
`;

/** Lines typed, in order, also while a turn runs (piped input arrives all at once). */
function lineQueue(rl: readline.Interface): () => Promise<string | null> {
  const lines: string[] = [];
  let ended = false;
  let waiter: ((line: string | null) => void) | undefined;
  rl.on('line', (line) => {
    if (waiter === undefined) lines.push(line);
    else {
      const w = waiter;
      waiter = undefined;
      w(line);
    }
  });
  rl.on('close', () => {
    ended = true;
    waiter?.(null);
  });
  return () => {
    if (lines.length > 0) return Promise.resolve(lines.shift()!);
    if (ended) return Promise.resolve(null);
    return new Promise((resolve) => (waiter = resolve));
  };
}

export async function chatRepl(chat: ChatBackend, opts: ChatOptions): Promise<number> {
  const out = process.stdout;
  const p = paint(wantsColour(out));
  let agent = opts.agent ?? DEFAULT_AGENT;
  let sessionId: string | undefined;
  /** The session of the turn under way, if one is (what Ctrl-C leaves). */
  let busy: string | undefined;

  /** Run one turn to its end, printing it; errors are printed, not thrown. */
  const turn = async (id: string, go: (watch: TurnWatch) => Promise<TurnOutcome | undefined>): Promise<void> => {
    const printer = new TurnPrinter({ answer: out, notes: out, prefix: true, paint: p });
    busy = id;
    try {
      const outcome = await go(printer);
      if (outcome === undefined) return;
      printer.end(outcome, 'type /continue to go on');
      const u = outcome.usage;
      out.write(`${p.dim(`(${u.calls} model call${u.calls === 1 ? '' : 's'}, ${u.toolCalls} tool call${u.toolCalls === 1 ? '' : 's'}, ${u.inputTokens} tokens in, ${u.outputTokens} out)`)}\n`);
    } catch (err) {
      printer.lineEnd();
      reportError(err, false);
    } finally {
      busy = undefined;
    }
  };

  const agentNames = async (): Promise<string[]> => (await chat.agents()).map((a) => a.name);
  if (opts.session !== undefined) {
    const session = await sessionFor(chat, opts.session, opts.agent);
    sessionId = session.id;
    agent = session.agent;
    const shown = session.transcript.slice(-HISTORY_TURNS);
    out.write(p.dim(`session ${session.id} with ${agent}, ${session.turns} turn${session.turns === 1 ? '' : 's'}${shown.length < session.transcript.length ? ` (the last ${shown.length})` : ''}`) + '\n');
    out.write(historyText(shown, p));
    if (session.state === 'running') {
      out.write(`${p.dim(`(turn ${session.turns} is still under way; it goes on here)`)}\n`);
      await turn(session.id, (watch) => chat.resume(session.id, watch));
    } else if (session.state === 'exhausted') {
      out.write('type /continue to go on\n');
    }
  } else {
    const known = await agentNames();
    if (!known.includes(agent)) throw agentNotFound(agent, known, '/agents lists them');
    out.write(p.dim(`chatting with ${agent}; /help lists the commands`) + '\n');
  }

  const rl = readline.createInterface({ input: process.stdin, output: out });
  const next = lineQueue(rl);
  const onInterrupt = (): void => {
    if (busy === undefined) {
      out.write(`\n${p.dim('(/exit or Ctrl-D to leave)')}\n`);
      rl.prompt();
      return;
    }
    process.stderr.write(`\nkowalski: stopped; ${chat.leftNote(busy)}\n`);
    rl.close();
    void chat.close().finally(() => process.exit(EXIT.failed));
  };
  rl.on('SIGINT', onInterrupt);
  process.on('SIGINT', onInterrupt);
  process.once('SIGTERM', onInterrupt);

  /** A slash command; false to leave. */
  const command = async (line: string): Promise<boolean> => {
    const [name, ...args] = line.split(/\s+/);
    switch (name) {
      case '/exit':
      case '/quit':
        return false;
      case '/help':
        out.write(HELP);
        return true;
      case '/new':
        sessionId = undefined;
        out.write(p.dim(`a new session with ${agent}`) + '\n');
        return true;
      case '/agents': {
        const agents = await chat.agents();
        const width = Math.max(...agents.map((a) => a.name.length));
        for (const a of agents) out.write(`${a.name === agent ? '*' : ' '} ${p.agent(a.name.padEnd(width))}  ${a.description}\n`);
        return true;
      }
      case '/agent': {
        const wanted = args[0];
        if (wanted === undefined) throw new KowalskiError('KW_ERR_USAGE', `/agent needs a name (now: ${agent})`);
        const known = await agentNames();
        if (!known.includes(wanted)) throw agentNotFound(wanted, known, '/agents lists them');
        agent = wanted;
        sessionId = undefined;
        out.write(p.dim(`a new session with ${agent}`) + '\n');
        return true;
      }
      case '/continue': {
        const extra = args[0] === undefined ? undefined : Number(args[0]);
        if (extra !== undefined && (!Number.isInteger(extra) || extra < 1)) throw new KowalskiError('KW_ERR_USAGE', `/continue takes a whole number of model calls, not ${JSON.stringify(args[0])}`);
        if (sessionId === undefined) throw new KowalskiError('KW_ERR_CHAT_NOT_STOPPED', 'nothing to continue: this session has no turn yet');
        const id = sessionId;
        await turn(id, (watch) => chat.grant(id, extra, watch));
        return true;
      }
      default:
        throw new KowalskiError('KW_ERR_USAGE', `unknown command ${name ?? ''}; /help lists them`);
    }
  };

  try {
    for (;;) {
      rl.setPrompt(p.bold('you> '));
      rl.prompt();
      const line = await next();
      if (line === null) break;
      const text = line.trim();
      if (text === '') continue;
      if (text.startsWith('/')) {
        try {
          if (!(await command(text))) break;
        } catch (err) {
          reportError(err, false);
        }
        continue;
      }
      try {
        sessionId ??= (await chat.create(agent, titleOf(text))).id;
      } catch (err) {
        reportError(err, false);
        continue;
      }
      const id = sessionId;
      await turn(id, (watch) => chat.send(id, text, watch));
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
    rl.close();
  }
  out.write('\n');
  if (sessionId !== undefined) out.write(`${p.dim(`session ${sessionId}; go on with it: kowalski chat --session ${sessionId}`)}\n`);
  return EXIT.ok;
}
