/**
 * What the agents did in a turn, inline and in the order it started: tool calls (name,
 * arguments, a short result, failures marked) and delegations (agent, task, status, their
 * answer). Each opens and closes; a sub-agent's work is indented under its delegation.
 * Tool and model text goes into text nodes, or sanitized Markdown for an agent's answer.
 */
import type { Streams } from '../chat-stream';
import { plural } from '../format';
import { runHref } from '../router';
import type { TurnItem } from '../types';
import { MarkdownView } from './markdown-view';

const SHORT = 160;

const STATUS_LABEL: Record<TurnItem['status'], string> = { running: 'working…', done: 'done', failed: 'failed', stopped: 'stopped, not finished' };
const STATUS_ICON: Record<TurnItem['status'], string> = { running: '▶', done: '✓', failed: '✕', stopped: '■' };

export function ChatItems({ items, streams }: { items: TurnItem[]; streams: Streams }) {
  if (items.length === 0) return null;
  const tools = items.filter((i) => i.kind === 'tool').length;
  const delegations = items.length - tools;
  const parts = [delegations > 0 ? plural(delegations, 'delegation') : '', tools > 0 ? plural(tools, 'tool call') : ''].filter((p) => p !== '');
  return (
    <details class="chat-work" open data-testid="chat-work">
      <summary>What the agents did <span class="muted small">({parts.join(', ')})</span></summary>
      <ol class="chat-items">
        {items.map((item) => (
          <li key={`${item.kind}:${item.node}:${item.at}:${item.kind === 'tool' ? item.name : ''}`} class="chat-item-wrap"
            style={`--depth: ${depthOf(item)}`}>
            {item.kind === 'tool' ? <ToolItem item={item} /> : <DelegationItem item={item} streams={streams} />}
          </li>
        ))}
      </ol>
    </details>
  );
}

/** How deep under the root agent the item's agent is (a delegation sits under the agent that asked for it). */
function depthOf(item: TurnItem): number {
  const node = item.kind === 'delegation' ? item.parent : item.node;
  return node.split('/').length - 1;
}

function Status({ status }: { status: TurnItem['status'] }) {
  return (
    <span class={`chat-status chat-status--${status}`} data-status={status}>
      <span aria-hidden="true">{STATUS_ICON[status]}</span> {STATUS_LABEL[status]}
    </span>
  );
}

function ToolItem({ item }: { item: Extract<TurnItem, { kind: 'tool' }> }) {
  const brief = item.error !== undefined ? item.error.message : item.result ?? '';
  return (
    <details class={`chat-item chat-item--tool chat-item--${item.status}`} data-testid="chat-tool" data-tool={item.name} data-status={item.status}>
      <summary>
        <span class="chat-item__kind">tool</span> <code class="chat-item__name">{item.name}</code> <Status status={item.status} />
        {item.agent !== '' && <span class="muted small"> · {item.agent}</span>}
        {item.runId !== undefined && <> · <a class="small" href={runHref(item.runId)} data-testid="chat-tool-run">open the run</a></>}
        {brief !== '' && <span class="chat-item__brief muted small"> — {short(brief)}</span>}
      </summary>
      <p class="trace-label">Arguments</p>
      <pre class="pre">{JSON.stringify(item.arguments, null, 2)}</pre>
      {item.error !== undefined && (
        <p class="trace-call__error" role="note" data-testid="chat-tool-error"><code class="error-code">{item.error.code}</code> {item.error.message}</p>
      )}
      {item.result !== undefined && (
        <>
          <p class="trace-label">Result</p>
          <pre class="pre">{item.result}</pre>
        </>
      )}
    </details>
  );
}

function DelegationItem({ item, streams }: { item: Extract<TurnItem, { kind: 'delegation' }>; streams: Streams }) {
  const live = item.status === 'running' ? streams.nodes[item.node]?.text ?? '' : '';
  return (
    <details class={`chat-item chat-item--delegation chat-item--${item.status}`} open
      data-testid="chat-delegation" data-agent={item.agent} data-status={item.status}>
      <summary>
        <span class="chat-item__kind">asked</span> <strong>{item.agent}</strong> <Status status={item.status} />
        <span class="chat-item__brief muted small"> — {short(item.task)}</span>
      </summary>
      <p class="trace-label">Task</p>
      <p class="pre-wrap chat-item__task">{item.task}</p>
      {item.error !== undefined && (
        <p class="trace-call__error" role="note"><code class="error-code">{item.error.code}</code> {item.error.message}</p>
      )}
      {item.text !== undefined && item.text !== '' && (
        <>
          <p class="trace-label">Their answer</p>
          <MarkdownView source={item.text} testId="chat-delegation-answer" />
        </>
      )}
      {live !== '' && <MarkdownView source={live} testId="chat-delegation-live" />}
    </details>
  );
}

function short(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > SHORT ? `${line.slice(0, SHORT)}…` : line;
}
