/** A definition list of key/value pairs, e.g. a run's input. */
import type { ComponentChildren } from 'preact';

export function KeyValues({ entries, empty = 'none' }: { entries: [string, ComponentChildren][]; empty?: string }) {
  if (entries.length === 0) return <p class="muted">{empty}</p>;
  return (
    <dl class="kv">
      {entries.map(([k, v]) => (
        <div class="kv__row" key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}
