/** The message box: Enter sends, Shift+Enter starts a new line; closed while a turn runs; a refusal shows with its code. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { useServices } from '../services';
import { ErrorBox } from './status';

export function ChatComposer({ sessionId, running, onSent }: { sessionId: string; running: boolean; onSent: () => void }) {
  const { api } = useServices();
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const closed = running || sending;
  const box = useRef<HTMLTextAreaElement>(null);
  /**
   * The box had the focus when the message went: it gets it back whenever it opens again (a
   * disabled box loses it) — after the send, and again after the turn, whose start the
   * session may show only after the send's answer — until the operator puts the focus
   * somewhere else.
   */
  const refocus = useRef(false);
  useEffect(() => {
    if (!closed && refocus.current) box.current?.focus();
  }, [closed]);
  useEffect(() => {
    const moved = (e: FocusEvent): void => {
      if (e.target !== box.current) refocus.current = false;
    };
    document.addEventListener('focusin', moved);
    return () => document.removeEventListener('focusin', moved);
  }, []);

  const send = async () => {
    if (closed || text.trim() === '') return;
    refocus.current = document.activeElement === box.current;
    setSending(true);
    setError(undefined);
    try {
      await api.sendChat(sessionId, text);
      setText('');
      onSent();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setSending(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Enter' || e.shiftKey || e.isComposing) return;
    e.preventDefault();
    void send();
  };

  return (
    <form class="chat-composer" onSubmit={(e) => { e.preventDefault(); void send(); }} data-testid="chat-composer">
      {error !== undefined && <ErrorBox error={error} title="The message was not sent" />}
      <div class="field chat-composer__field">
        <label for="chat-message">Message</label>
        <textarea id="chat-message" ref={box} rows={3} value={text} disabled={closed} aria-describedby="chat-message-hint"
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} onKeyDown={onKeyDown} data-testid="chat-input" />
        <p id="chat-message-hint" class="field__hint">
          {running ? 'The agents are working on the last message; you can write again once they have answered.' : 'Enter sends; Shift+Enter starts a new line.'}
        </p>
      </div>
      <button type="submit" class="btn btn--primary" disabled={closed || text.trim() === ''} data-testid="chat-send">
        {sending ? 'Sending…' : 'Send'}
      </button>
    </form>
  );
}
