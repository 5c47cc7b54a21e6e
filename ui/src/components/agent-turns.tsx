/**
 * The Run page's agent steps: for each `agent` step that has run, the agent, a link to its
 * conversation, and what the agents did — the delegation tree and tool calls of each turn,
 * as the Chat screen shows them. Refetched when the run's view changes.
 */
import { useResource } from '../hooks/use-resource';
import { chatHref } from '../router';
import { useServices } from '../services';
import { NO_STREAMS } from '../chat-stream';
import type { AgentTurnLink } from '../types';
import { ChatItems } from './chat-items';
import { ErrorBox, Loading } from './status';

export function AgentTurns({ turns, version }: { turns: AgentTurnLink[]; version: number }) {
  if (turns.length === 0) return null;
  return (
    <section aria-labelledby="agent-turns-title" data-testid="agent-turns">
      <h2 id="agent-turns-title">Agent steps</h2>
      {turns.map((t) => <AgentTurn key={t.sessionId} link={t} version={version} />)}
    </section>
  );
}

function AgentTurn({ link, version }: { link: AgentTurnLink; version: number }) {
  const { api } = useServices();
  const session = useResource(() => api.chatSession(link.sessionId), [api, link.sessionId, version]);
  return (
    <div class="agent-turn" data-testid={`agent-turn-${link.step}`}>
      <h3>
        <code>{link.step}</code> · agent <strong>{link.agent}</strong>{' '}
        <a class="small" href={chatHref(link.sessionId)}>open the conversation</a>
      </h3>
      {session.data === undefined && session.loading && <Loading label="Loading what the agents did…" />}
      {session.error !== undefined && <ErrorBox error={session.error} title="Could not load this step's conversation" onRetry={session.reload} />}
      {session.data?.transcript.map((turn) => <ChatItems key={turn.turn} items={turn.items} streams={NO_STREAMS} />)}
    </div>
  );
}
