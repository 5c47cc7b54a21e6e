/**
 * Where `kowalski chat` talks: the server that owns the data directory (chat-remote.ts),
 * or else an embedded engine. Both answer in the engine's shapes, so the command and its
 * printing do not depend on which it is.
 */
import type { Engine, TurnOutcome } from '../../engine/index.js';
import type { ChatBackend, ChatSession, TurnWatch } from './chat-types.js';
import { KowalskiError } from '../../core/index.js';
import { openEngine } from './backend.js';
import { remoteChat } from './chat-remote.js';
import { findServer } from './remote.js';

const BY = 'operator (cli)';

/** Follow `done` with the session's events and tokens told to `watch`. */
async function watched(engine: Engine, id: string, watch: TurnWatch, run: (onToken: TurnWatch['onToken']) => Promise<TurnOutcome>): Promise<TurnOutcome> {
  const off = engine.on('chat:event', ({ stored }) => {
    if (stored.sessionId === id) watch.onEvent(stored.event);
  });
  try {
    return await run((piece) => watch.onToken(piece));
  } finally {
    off();
  }
}

function embeddedChat(engine: Engine): ChatBackend {
  const chat = engine.chat;
  return {
    agents: async () => engine.team.catalog().profiles.map(({ name, description }) => ({ name, description })),
    create: async (agent, title) => chat.create({ agent, title, by: BY }),
    get: async (id) => chat.get(id),
    send: (id, text, watch) => watched(engine, id, watch, (onToken) => chat.send(id, text, { by: BY, onToken }).done),
    grant: (id, extra, watch) => watched(engine, id, watch, (onToken) => chat.grant(id, extra ?? engine.config.chat.maxIterations, { by: BY, onToken }).done),
    async resume(id, watch) {
      const under = chat.turnUnderWay(id);
      if (under === undefined) return undefined;
      const offTokens = chat.onTokens(id, (piece) => watch.onToken(piece));
      try {
        return await watched(engine, id, watch, () => under);
      } finally {
        offTokens();
      }
    },
    leftNote: (id) => `the turn stays open and goes on at the next start (\`kowalski chat --session ${id}\`, or \`kowalski serve\`)`,
    close: () => engine.close(),
  };
}

/** The server that owns the data directory, else an embedded engine whose interrupted turns go on first. */
export async function openChat(dir: string): Promise<ChatBackend> {
  const lookup = await findServer(dir);
  if (lookup.kind === 'server') return remoteChat(lookup.api);
  const engine = await openEngine(dir, lookup);
  engine.chat.recover();
  return embeddedChat(engine);
}

/** The agent of a new session when --agent is not given. */
export const DEFAULT_AGENT = 'assistant';

/** A session's first line as its title. */
export function titleOf(text: string): string {
  return (text.split('\n').find((l) => l.trim() !== '') ?? '').trim().slice(0, 80);
}

/** The session `--session` names, checked against `--agent` when both are given. */
export async function sessionFor(chat: ChatBackend, id: string, agent: string | undefined): Promise<ChatSession> {
  const session = await chat.get(id);
  if (agent !== undefined && agent !== session.agent) {
    throw new KowalskiError('KW_ERR_USAGE', `chat session ${id} is with agent "${session.agent}", not "${agent}": leave out --agent to go on with it, or --session to start a new one`);
  }
  return session;
}
