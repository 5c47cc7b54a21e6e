/** A conversation's turns and its message box, live (hooks/use-chat-session.ts): the Chat screen's and the Rookery's. */
import { ChatComposer } from './chat-composer';
import { ChatTurn } from './chat-turn';
import type { LiveChat } from '../hooks/use-chat-session';
import type { ChatSessionView, ChatState } from '../types';

export function ChatThread({ session, live, state, empty }: { session: ChatSessionView; live: LiveChat; state: ChatState; empty: string }) {
  const last = session.transcript.at(-1);
  const running = state === 'running';
  return (
    <>
      {session.transcript.length === 0
        ? <p class="muted" data-testid="chat-empty">{empty}</p>
        : (
          <div class="chat-turns" data-testid="chat-turns">
            {session.transcript.map((t) => (
              <ChatTurn key={t.turn} sessionId={session.id} turn={t} streams={live.streams} version={session.lastSeq}
                working={t === last && running} canGrant={t === last && state === 'exhausted'} onChanged={live.view.refresh} />
            ))}
          </div>
        )}
      <ChatComposer sessionId={session.id} running={running} onSent={live.view.refresh} />
    </>
  );
}
