/**
 * `#/chat/<session>`: one conversation, live (hooks/use-chat-session.ts): its turns
 * (components/chat-turn.tsx), the message box, and the session's budget and usage.
 */
import { ChatStateBadge } from '../components/badge';
import { ChatThread } from '../components/chat-thread';
import { ErrorBox, Loading } from '../components/status';
import { formatCount, plural } from '../format';
import { useChatSession } from '../hooks/use-chat-session';
import { useSocketStatus } from '../hooks/use-socket-status';
import { runHref } from '../router';
import type { ChatSessionView, ChatState } from '../types';
import type { LiveChat } from '../hooks/use-chat-session';

export function ChatSessionScreen({ id }: { id: string }) {
  const live = useChatSession(id);
  const { view } = live;
  return (
    <section aria-labelledby="chat-title">
      <p class="crumbs"><a href="#/chat">Chat</a> <span aria-hidden="true">/</span> <code>{id}</code></p>
      {view.data === undefined && view.loading && <Loading label="Loading the conversation…" />}
      {view.data === undefined && view.error !== undefined && (
        <>
          <h1 id="chat-title">Chat <code>{id}</code></h1>
          <ErrorBox error={view.error} title="Could not load this conversation" onRetry={view.reload} />
        </>
      )}
      {view.data !== undefined && <Conversation session={view.data} live={live} state={live.state ?? view.data.state} />}
    </section>
  );
}

function Conversation({ session, live, state }: { session: ChatSessionView; live: LiveChat; state: ChatState }) {
  const status = useSocketStatus();
  return (
    <>
      <div class="page-head page-head--row run-title">
        <h1 id="chat-title">{session.title === '' ? 'New conversation' : session.title} <ChatStateBadge state={state} testId="chat-state" /></h1>
        <span class={status === 'open' && live.following ? 'live live--on' : 'live live--off'}>
          {status === 'open' && live.following ? 'Live' : 'Not live — reconnecting'}
        </span>
      </div>
      <p class="muted small chat-facts">
        with <strong>{session.agent}</strong> · {plural(session.turns, 'turn')} · {plural(session.usage.calls, 'model call')},{' '}
        {formatCount(session.usage.inputTokens)} tokens in, {formatCount(session.usage.outputTokens)} out
        {session.run !== undefined && (
          <> · the step <code>{session.run.step}</code> of run <a href={runHref(session.run.runId)} data-testid="chat-run-link">{session.run.runId}</a></>
        )}
      </p>
      {live.view.error !== undefined && <ErrorBox error={live.view.error} title="Could not refresh this conversation; showing what was last loaded" />}
      <ChatThread session={session} live={live} state={state} empty="No messages yet: write the first one below." />
    </>
  );
}
