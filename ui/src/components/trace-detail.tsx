/**
 * One model call in full, fetched when its row is opened: the prompt as sent, the
 * completion, and each tool call with its arguments, its result and its error. All of
 * it is model or tool text, so untrusted: it goes into text nodes only, in `<pre>` where
 * layout matters — never HTML, never Markdown.
 */
import { formatCount, formatDuration, formatTime, plural } from '../format';
import { useResource } from '../hooks/use-resource';
import { useServices } from '../services';
import type { ChatMessage, TracedToolCall } from '../types';
import { ErrorBox, Loading } from './status';

/** Longer text starts collapsed, so a prompt holding a whole fetched page stays readable. */
const COLLAPSE_CHARS = 1500;
const COLLAPSE_LINES = 25;
const PREVIEW_CHARS = 120;

export function TraceDetailView({ id }: { id: number }) {
  const { api } = useServices();
  const detail = useResource(() => api.trace(id), [api, id]);
  const t = detail.data;
  if (t === undefined) {
    return detail.error === undefined
      ? <Loading label="Loading the model call…" />
      : <ErrorBox error={detail.error} title="Could not load this model call" onRetry={detail.reload} />;
  }
  return (
    <div class="trace-detail" data-testid="trace-detail">
      <p class="small muted trace-detail__facts">
        Started {formatTime(t.startedAt)}
        {/* A call that failed before any answer records no attempts: "0 HTTP tries" would mislead. */}
        {t.attempts > 0 && ` · ${plural(t.attempts, 'HTTP try', 'HTTP tries')}`}
        {' · tools offered: '}{t.tools.length === 0 ? 'none' : t.tools.join(', ')}
      </p>
      {t.error !== null && (
        <p class="trace-detail__error" role="note"><code class="error-code">{t.error.code}</code> {t.error.message}</p>
      )}
      <h3 class="trace-detail__title">Prompt <span class="muted small">({plural(t.messages.length, 'message')})</span></h3>
      <ol class="trace-items" data-testid="trace-prompt">
        {t.messages.map((m, i) => <Message key={i} message={m} />)}
      </ol>
      <h3 class="trace-detail__title">Completion</h3>
      {t.completion === ''
        ? <p class="muted small">Empty{t.calls.length > 0 ? ': the model only called tools.' : '.'}</p>
        : <Text text={t.completion} testId="trace-completion" />}
      {t.calls.length > 0 && (
        <>
          <h3 class="trace-detail__title">Tool calls <span class="muted small">({t.calls.length})</span></h3>
          <ol class="trace-items">
            {t.calls.map((c, i) => <Call key={i} call={c} />)}
          </ol>
        </>
      )}
    </div>
  );
}

function Message({ message: m }: { message: ChatMessage }) {
  const asked = m.role === 'assistant' ? m.toolCalls ?? [] : [];
  return (
    <li class={`trace-item trace-item--${m.role}`} data-testid="trace-message" data-role={m.role}>
      <div class="trace-item__head">
        <span class="trace-role">{m.role}</span>
        {m.role === 'tool' && (
          <>
            <code>{m.toolName}</code> <span class="muted small">{m.toolCallId}</span>
            {m.isError === true && <span class="trace-bad">error</span>}
          </>
        )}
      </div>
      {m.content !== '' && <Text text={m.content} />}
      {m.content === '' && asked.length === 0 && <p class="muted small">No text.</p>}
      {asked.map((c, i) => (
        <div key={i} class="trace-asked">
          <p class="trace-label">Asked for <code>{c.name === '' ? '(no name)' : c.name}</code> <span class="muted small">{c.id}</span></p>
          <Text text={json(c.arguments)} />
          {c.argumentsError !== undefined && <p class="trace-call__error"><span class="trace-bad">bad arguments</span> {c.argumentsError}</p>}
        </div>
      ))}
    </li>
  );
}

function Call({ call }: { call: TracedToolCall }) {
  return (
    <li class={call.error === undefined ? 'trace-item trace-call' : 'trace-item trace-call trace-call--error'}
      data-testid="trace-call" data-tool={call.name}>
      <div class="trace-item__head">
        <code class="trace-call__name">{call.name === '' ? '(no name)' : call.name}</code>
        <span class="muted small">{call.id} · {formatDuration(call.durationMs)}</span>
        {call.error !== undefined && <span class="trace-bad">failed</span>}
      </div>
      {call.error !== undefined && (
        <p class="trace-call__error" role="note" data-testid="trace-call-error">
          <code class="error-code">{call.error.code}</code> {call.error.message}
        </p>
      )}
      <p class="trace-label">Arguments</p>
      <Text text={json(call.arguments)} testId="trace-call-arguments" />
      {call.rawArguments !== undefined && (
        <>
          <p class="trace-label">As the model wrote them</p>
          <Text text={call.rawArguments} />
        </>
      )}
      <p class="trace-label">Result <span class="muted small">(what the model got back)</span></p>
      <Text text={call.result} testId="trace-call-result" />
      {call.meta !== undefined && (
        <>
          <p class="trace-label">Reported by the tool</p>
          <Text text={json(call.meta)} />
        </>
      )}
    </li>
  );
}

/** Plain text, wrapped; long text starts collapsed behind its first line. */
function Text({ text, testId }: { text: string; testId?: string }) {
  const lines = text.split('\n').length;
  if (text.length <= COLLAPSE_CHARS && lines <= COLLAPSE_LINES) return <pre class="pre" data-testid={testId}>{text}</pre>;
  return (
    <details class="trace-long" data-testid={testId}>
      <summary>
        <span class="trace-long__preview">{preview(text)}</span>{' '}
        <span class="muted small">({formatCount(text.length)} characters, {plural(lines, 'line')}: show all)</span>
      </summary>
      <pre class="pre">{text}</pre>
    </details>
  );
}

function preview(text: string): string {
  const first = text.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  return first.length > PREVIEW_CHARS ? `${first.slice(0, PREVIEW_CHARS)}…` : first;
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? String(value);
}
