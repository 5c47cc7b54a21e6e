/** How to get in: shown when the server answers 401 (the bare address, or a token that is no longer right). */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PromptState, TokenPrompter } from '../auth';

export function TokenPrompt({ prompter }: { prompter: TokenPrompter }) {
  const [state, setState] = useState<PromptState>(() => prompter.current());
  const [value, setValue] = useState('');
  const dialog = useRef<HTMLDialogElement>(null);

  useEffect(() => prompter.subscribe(setState), [prompter]);

  useEffect(() => {
    const d = dialog.current;
    if (d === null) return;
    if (state.open && !d.open) {
      setValue('');
      d.showModal();
    } else if (!state.open && d.open) {
      d.close();
    }
  }, [state.open]);

  const submit = (e: Event) => {
    e.preventDefault();
    if (value.trim() === '') return;
    prompter.answer(value.trim());
  };

  return (
    <dialog ref={dialog} class="dialog" aria-labelledby="token-title" data-testid="token-prompt"
      onCancel={(e) => { e.preventDefault(); prompter.answer(null); }}>
      <form onSubmit={submit} class="form">
        <h2 id="token-title">Sign in to kowalski</h2>
        {state.linkRefused && <p class="field__error" role="alert" data-testid="link-refused">That sign-in link was used already or has expired (links work once, for 10 minutes).</p>}
        <p>
          On the machine kowalski runs on, run <code>kowalski open</code>: it prints a one-time
          sign-in link, and opens it where there is a browser.
        </p>
        <p>
          Or paste the API token, kept in <code>&lt;data dir&gt;/api-token</code>. It is stored in
          this browser only.
        </p>
        {state.refused && <p class="field__error" role="alert">The token stored in this browser was refused. Paste the current one.</p>}
        <div class="field">
          <label for="token-input">API token</label>
          <input id="token-input" type="password" autocomplete="off" spellcheck={false} value={value}
            onInput={(e) => setValue(e.currentTarget.value)} data-testid="token-input" />
        </div>
        <div class="actions">
          <button type="submit" class="btn btn--primary" disabled={value.trim() === ''}>Use this token</button>
          <button type="button" class="btn" onClick={() => prompter.answer(null)}>Cancel</button>
        </div>
      </form>
    </dialog>
  );
}
