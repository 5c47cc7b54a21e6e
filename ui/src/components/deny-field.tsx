/**
 * Deny with a reason, as the approval and review panels ask it: the reason is required (an
 * empty one is refused here, with the input focused) and is recorded with the run.
 */
import { useState } from 'preact/hooks';

export function DenyField({ step, busy, denying, onDeny }: { step: string; busy: boolean; denying: boolean; onDeny: (reason: string) => void }) {
  const [reason, setReason] = useState('');
  const [missing, setMissing] = useState(false);
  const id = `deny-reason-${step}`;
  const deny = () => {
    if (reason.trim() === '') {
      setMissing(true);
      document.getElementById(id)?.focus();
      return;
    }
    onDeny(reason.trim());
  };
  return (
    <div class="approval__deny">
      <div class="field">
        <label for={id}>Reason to deny <span class="muted small">(required to deny)</span></label>
        <input id={id} type="text" value={reason} data-testid="deny-reason" disabled={busy} autocomplete="off"
          aria-invalid={missing} aria-describedby={missing ? `${id}-error` : undefined}
          onInput={(e) => { setReason(e.currentTarget.value); setMissing(false); }}
          onKeyDown={(e) => { if (e.key === 'Enter') { e.preventDefault(); deny(); } }} />
        {missing && <p id={`${id}-error`} class="field__error" role="alert">Write why you deny it; the reason is recorded with the run.</p>}
      </div>
      <button type="button" class="btn btn--danger" data-testid="deny-button" disabled={busy} onClick={deny}>
        {denying ? 'Denying…' : 'Deny'}
      </button>
    </div>
  );
}
