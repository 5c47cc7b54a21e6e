/**
 * `#/agents`: the agent team — every profile in effect (built-in or yours) with its model
 * and tools, the problems of profile files, and a new profile by name. Read again when the
 * server says the team changed (a profile saved or removed, a file edited, the tools changed).
 */
import { useState } from 'preact/hooks';
import { AgentProblemList } from '../components/agent-problems';
import { OriginTag } from '../components/badge';
import { ErrorBox, Loading } from '../components/status';
import { useChanged } from '../hooks/use-changed';
import { useResource } from '../hooks/use-resource';
import { agentHref, navigate } from '../router';
import { useServices } from '../services';
import type { AgentProfile } from '../types';

/** What a profile's name may be (the server checks it too). */
const AGENT_NAME = /^[a-z][a-z0-9-]{0,63}$/;

export function AgentsScreen() {
  const { api } = useServices();
  const list = useResource(() => api.agents(), [api]);
  useChanged('agents', list.refresh);
  return (
    <section aria-labelledby="agents-title">
      <div class="page-head page-head--row">
        <div>
          <h1 id="agents-title">Agents</h1>
          <p class="muted">Your team: each agent is a profile with its own system prompt, model and tools. Open one to edit it.</p>
        </div>
        <NewAgent />
      </div>
      {list.data === undefined && list.loading && <Loading label="Loading the agents…" />}
      {list.data === undefined && list.error !== undefined && <ErrorBox error={list.error} title="Could not load the agents" onRetry={list.reload} />}
      {list.data !== undefined && (
        <>
          <div class="table-wrap">
            <table class="table table--agents" data-testid="agents-table">
              <thead>
                <tr>
                  <th scope="col">Agent</th><th scope="col">Description</th><th scope="col">Model</th>
                  <th scope="col">Tools</th><th scope="col">Origin</th>
                </tr>
              </thead>
              <tbody>{list.data.agents.map((a) => <AgentRow key={a.name} agent={a} />)}</tbody>
            </table>
          </div>
          {list.data.problems.length > 0 && (
            <div class="error-box" role="alert" data-testid="agents-problems">
              <p class="error-box__title">These profile files have problems; until they are fixed, the last good version (or the built-in) is used:</p>
              <AgentProblemList problems={list.data.problems} />
            </div>
          )}
        </>
      )}
    </section>
  );
}

function AgentRow({ agent }: { agent: AgentProfile }) {
  return (
    <tr data-testid={`agent-row-${agent.name}`}>
      <th scope="row"><a href={agentHref(agent.name)}><code>{agent.name}</code></a></th>
      <td>{agent.description}</td>
      <td>{agent.model === undefined ? <span class="muted">default</span> : <code>{agent.model}</code>}</td>
      <td>{agent.tools === undefined ? <span class="muted">all tools</span> : agent.tools.length === 0 ? <span class="muted">none</span> : agent.tools.map((t) => <code key={t} class="chip">{t}</code>)}</td>
      <td><OriginTag origin={agent.origin} /></td>
    </tr>
  );
}

function NewAgent() {
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (e: Event) => {
    e.preventDefault();
    const wanted = name.trim();
    if (!AGENT_NAME.test(wanted)) {
      setProblem('Use lowercase letters, digits and hyphens, starting with a letter.');
      return;
    }
    navigate({ name: 'agent', id: wanted });
  };
  return (
    <form class="new-agent" onSubmit={submit} aria-label="New agent" noValidate>
      <div class="field field--inline">
        <label for="new-agent-name">New agent</label>
        <input id="new-agent-name" type="text" value={name} placeholder="e.g. critic" autocomplete="off" spellcheck={false} data-testid="new-agent-name"
          aria-invalid={problem !== null} aria-describedby={problem === null ? undefined : 'new-agent-error'}
          onInput={(e) => { setName(e.currentTarget.value); setProblem(null); }} />
        {problem !== null && <p class="field__error" id="new-agent-error" role="alert">{problem}</p>}
      </div>
      <button type="submit" class="btn" data-testid="new-agent-create">Create…</button>
    </form>
  );
}
