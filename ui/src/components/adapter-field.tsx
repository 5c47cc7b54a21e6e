/**
 * One text field of Setup's adapter forms (adapter-add.tsx, adapter-edit.tsx): its label,
 * the input, a hint under it and the problem found with it. `id` is the input's id and its
 * test id; the label points at it.
 */
interface Props {
  id: string;
  label: string;
  value: string;
  placeholder: string;
  onInput: (value: string) => void;
  hint?: string | undefined;
  /** What is wrong with the value (shown as an alert, the input marked invalid). */
  problem?: string | undefined;
}

export function AdapterField({ id, label, value, placeholder, onInput, hint, problem }: Props) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} type="text" value={value} autocomplete="off" spellcheck={false} placeholder={placeholder}
        aria-invalid={problem !== undefined} onInput={(e) => onInput(e.currentTarget.value)} data-testid={id} />
      {hint !== undefined && <p class="field__hint">{hint}</p>}
      {problem !== undefined && <p class="field__error" role="alert">{problem}</p>}
    </div>
  );
}

