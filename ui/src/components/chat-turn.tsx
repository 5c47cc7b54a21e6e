/**
 * One turn of a chat: the user's message, what the agents did (chat-items.tsx), then the
 * answer as sanitized Markdown — streaming while the turn runs, final once it ended. A
 * turn its budget stopped names what was left undone and offers more budget; one that
 * failed shows its error once. Usage sits small under the answer; the turn's model calls
 * open as a tree (trace-tree.tsx).
 */
import { useState } from 'preact/hooks';
import { ROOT_NODE } from '../chat-stream';
import type { Streams } from '../chat-stream';
import { formatCost, formatCount, formatTime, plural } from '../format';
import { href } from '../router';
import type { TurnUsage, TurnView } from '../types';
import { BudgetGrant } from './budget-grant';
import { ChatItems } from './chat-items';
import { MarkdownView } from './markdown-view';
import { TurnTraceTree } from './trace-tree';

export interface TurnProps {
  sessionId: string;
  turn: TurnView;
  /** The session's last turn, and the session runs (this turn is under way). */
  working: boolean;
  /** The session's last turn, stopped on its budget: more can be granted. */
  canGrant: boolean;
  streams: Streams;
  /** The session's last sequence, to refresh the trace tree. */
  version: number;
  onChanged: () => void;
}

export function ChatTurn({ sessionId, turn, working, canGrant, streams, version, onChanged }: TurnProps) {
  const [tree, setTree] = useState(false);
  const treeId = `chat-tree-${turn.turn}`;
  const answer = turn.answer;
  const live = streams.turn === turn.turn ? streams.nodes[ROOT_NODE]?.text ?? '' : '';
  return (
    <article class="chat-turn" aria-label={`Turn ${turn.turn}`} data-testid="chat-turn" data-turn={turn.turn}
      data-stop={answer?.stop ?? (working ? 'working' : 'none')}>
      <div class="chat-msg chat-msg--user">
        <p class="chat-msg__who">You <span class="muted small">· {formatTime(turn.at)}</span></p>
        <p class="pre-wrap chat-msg__text" data-testid="chat-user-message">{turn.text}</p>
      </div>
      <TurnMemory turn={turn} />
      <ChatItems items={turn.items} streams={streams} />
      <div class="chat-msg chat-msg--agent">
        <p class="chat-msg__who">{turn.agent}</p>
        {answer === undefined && (
          <>
            {working
              ? <p class="chat-working" role="status" data-testid="chat-working"><span class="spinner" aria-hidden="true" />working…</p>
              : <p class="muted small">No answer: the turn has not finished.</p>}
            {live !== '' && <MarkdownView source={live} testId="chat-answer-live" />}
          </>
        )}
        {answer?.stop === 'done' && <MarkdownView source={answer.text} testId="chat-answer" />}
        {answer?.stop === 'budget_exhausted' && (
          <div class="chat-stopped" role="note" data-testid="chat-budget-stop">
            <p class="pre-wrap chat-stopped__text">{answer.text}</p>
            {canGrant && <BudgetGrant sessionId={sessionId} onDone={onChanged} />}
          </div>
        )}
        {answer?.stop === 'error' && (
          <p class="chat-error" role="note" data-testid="chat-error">
            <code class="error-code">{answer.error?.code ?? 'KW_ERR_CHAT'}</code> {answer.error?.message ?? answer.text}
          </p>
        )}
        <p class="chat-usage muted small">
          {answer !== undefined && <span data-testid="chat-usage">{usageText(answer.usage)} · </span>}
          <span>budget {turn.budget.used} of {turn.budget.limit} model calls</span>
          {' · '}
          <button type="button" class="linkish" aria-expanded={tree} aria-controls={tree ? treeId : undefined}
            onClick={() => setTree((t) => !t)} data-testid="chat-tree-toggle">
            {tree ? 'Hide the trace tree' : 'Trace tree'}
          </button>
        </p>
        {tree && <div id={treeId}><TurnTraceTree sessionId={sessionId} turn={turn.turn} version={version} /></div>}
      </div>
    </article>
  );
}

function usageText(u: TurnUsage): string {
  return `${plural(u.calls, 'call')}, ${plural(u.toolCalls, 'tool call')} · ${formatCount(u.inputTokens)} tokens in, ${formatCount(u.outputTokens)} out · ${formatCost(u.costUsd)}`;
}

/** What the agent was given besides the conversation: the memories found for the message, and the summary of folded turns. */
function TurnMemory({ turn }: { turn: TurnView }) {
  const { memories, summary } = turn;
  if (summary === undefined && (memories === undefined || (memories.notes.length === 0 && memories.error === undefined))) return null;
  return (
    <div class="chat-memory small" data-testid="chat-memory">
      {memories !== undefined && memories.notes.length > 0 && (
        <details>
          <summary>Given {memories.notes.length} {memories.notes.length === 1 ? 'memory' : 'memories'}</summary>
          <ul>
            {memories.notes.map((m) => (
              <li key={m.path}><a href={href({ name: 'vault', note: m.path })}><code>{m.path}</code></a> {m.text}</li>
            ))}
          </ul>
        </details>
      )}
      {memories?.error !== undefined && <p class="muted">No memories: the search failed (<code>{memories.error.code}</code> {memories.error.message}).</p>}
      {summary !== undefined && (
        <details>
          <summary>Turns 1–{summary.through} were folded into a summary</summary>
          <p class="pre-wrap">{summary.text}</p>
        </details>
      )}
    </div>
  );
}
