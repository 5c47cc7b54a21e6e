/**
 * `#/chat`: the conversations with the agent team, newest first, and "New chat" with the
 * agent to talk to (the profiles of `GET /api/agents`). `#/chat/<session>` is one
 * conversation (chat-session.tsx).
 */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { ChatStateBadge } from '../components/badge';
import { Empty, ErrorBox, Loading } from '../components/status';
import { formatTime } from '../format';
import { useResource } from '../hooks/use-resource';
import { chatHref, navigate } from '../router';
import { useServices } from '../services';
import type { AgentProfile } from '../types';
import { ChatSessionScreen } from './chat-session';

export function ChatScreen({ id }: { id: string | undefined }) {
  return id === undefined ? <ChatSessions /> : <ChatSessionScreen id={id} />;
}

function ChatSessions() {
  const { api } = useServices();
  const sessions = useResource(() => api.chatSessions(), [api]);
  return (
    <section aria-labelledby="chat-title">
      <div class="page-head">
        <h1 id="chat-title">Chat</h1>
        <p class="muted">Talk to an agent of the team; it may call its tools and ask other agents for help.</p>
      </div>
      <NewChat />
      <h2>Conversations</h2>
      {sessions.data === undefined && sessions.loading && <Loading label="Loading the conversations…" />}
      {sessions.error !== undefined && <ErrorBox error={sessions.error} title="Could not load the conversations" onRetry={sessions.reload} />}
      {sessions.data !== undefined && sessions.data.length === 0 && (
        <Empty><p><strong>No conversations yet.</strong></p><p>Pick an agent above and start one.</p></Empty>
      )}
      {sessions.data !== undefined && sessions.data.length > 0 && (
        <div class="table-wrap">
          <table class="table table--runs" data-testid="chat-sessions">
            <thead>
              <tr><th scope="col">Title</th><th scope="col">Agent</th><th scope="col">State</th><th scope="col">Updated</th><th scope="col" class="num">Turns</th></tr>
            </thead>
            <tbody>
              {sessions.data.map((s) => (
                <tr key={s.id} data-testid="chat-session-row" data-session={s.id}>
                  <th scope="row"><a href={chatHref(s.id)}>{s.title === '' ? <span class="muted">(no message yet)</span> : s.title}</a></th>
                  <td>{s.agent}</td>
                  <td><ChatStateBadge state={s.state} /></td>
                  <td>{formatTime(s.updatedAt)}</td>
                  <td class="num">{s.turns}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function NewChat() {
  const { api } = useServices();
  const agents = useResource(() => api.agents(), [api]);
  const [chosen, setChosen] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const list: AgentProfile[] = agents.data?.agents ?? [];
  const agent = chosen !== '' ? chosen : list[0]?.name ?? '';

  const start = async (e: Event) => {
    e.preventDefault();
    if (agent === '' || busy) return;
    setBusy(true);
    setError(undefined);
    try {
      const created = await api.createChat(agent);
      navigate({ name: 'chat', id: created.id });
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
    }
  };

  if (agents.data === undefined) {
    return agents.error === undefined
      ? <Loading label="Loading the agents…" />
      : <ErrorBox error={agents.error} title="Could not load the agents" onRetry={agents.reload} />;
  }
  const picked = list.find((a) => a.name === agent);
  return (
    <form class="panel chat-new" onSubmit={(e) => void start(e)} data-testid="chat-new">
      <div class="field field--inline">
        <label for="chat-agent">Agent</label>
        <select id="chat-agent" value={agent} onChange={(e) => setChosen((e.target as HTMLSelectElement).value)}
          aria-describedby="chat-agent-about" data-testid="chat-agent">
          {list.map((a) => <option key={a.name} value={a.name}>{a.name}</option>)}
        </select>
        <p id="chat-agent-about" class="field__hint">{picked === undefined ? 'No agent profiles: add one under Agents.' : picked.description}</p>
      </div>
      <button type="submit" class="btn btn--primary" disabled={agent === '' || busy} data-testid="chat-start">
        {busy ? 'Starting…' : 'New chat'}
      </button>
      {error !== undefined && <ErrorBox error={error} title="Could not start the chat" />}
    </form>
  );
}
